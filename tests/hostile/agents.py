"""A hostile ADK agent for the hostile-input suite: each user message makes it misbehave in one way.

``exit 0`` / ``exit 3``: a tool calls ``sys.exit``; ``os_exit``: a tool calls ``os._exit(0)``; ``interrupt``: a
tool raises ``KeyboardInterrupt``; ``block``: a tool sleeps for an hour (holding the event loop; it says so on
``AgentSignals``' pipe first); ``spin``: a
tool spins on the CPU; ``surrogate``: the answer holds a lone surrogate; ``deep N``: a tool call whose arguments
are nested N levels deep; ``leak``: a tool raises an error that quotes ``GOOGLE_API_KEY``; ``shout``: a tool
prints workflow commands to stdout and stderr; ``fd``: a tool writes workflow commands to file descriptors 1 and
2 and has a child process print one; ``token``: a tool lists the environment variables whose name holds
TOKEN (the answer names them); ``log``: a tool logs an error holding ``GOOGLE_API_KEY``, workflow commands and a
lone surrogate, then fails; ``reveal``: the answer quotes ``GOOGLE_API_KEY``. Anything else is echoed.
"""

from __future__ import annotations

HOSTILE_AGENT = '''
from __future__ import annotations

import logging
import os
import subprocess
import sys
import time

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


def misbehave(how: str) -> dict:
    """Misbehaves as asked."""
    if how == "exit 0":
        sys.exit(0)
    if how == "exit 3":
        sys.exit(3)
    if how == "os_exit":
        os._exit(0)
    if how == "interrupt":
        raise KeyboardInterrupt
    if how == "block":
        signal_fd = os.environ.get("TEST_AGENT_SIGNAL_FD")  # tests.runners.scripted.AgentSignals: blocking now
        if signal_fd:
            os.write(int(signal_fd), b".")
        time.sleep(3600)
    if how == "spin":
        end = time.monotonic() + 3600
        while time.monotonic() < end:
            pass
    if how == "leak":
        raise RuntimeError("upstream refused key " + os.environ.get("GOOGLE_API_KEY", "?"))
    if how == "log":
        logging.getLogger("hostile.agent").error(
            "key %s\\n::error::from a log\\n::stop-commands::x \\ud800", os.environ.get("GOOGLE_API_KEY", "?")
        )
        raise RuntimeError("failed after logging")
    if how == "token":
        return {"seen": sorted(name for name in os.environ if "TOKEN" in name.upper())}
    if how == "shout":
        print("::error::injected from stdout")
        print("::stop-commands::x", file=sys.stderr)
        return {"said": "shouted"}
    if how == "fd":
        os.write(1, b"::stop-commands::from fd 1\\n")
        os.write(2, b"::stop-commands::from fd 2\\n")
        subprocess.run([sys.executable, "-c", "print('::stop-commands::from a child')"], check=True)
        return {"said": "written"}
    return {"how": how}


def nested(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


MISBEHAVIOURS = {
    "exit 0", "exit 3", "os_exit", "interrupt", "block", "spin", "leak", "shout", "token", "log", "fd"
}


class HostileModel(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1]
        response = next((p.function_response for p in last.parts or [] if p.function_response), None)
        text = " ".join(p.text for p in last.parts or [] if p.text)
        if response is not None:
            seen = (response.response or {}).get("seen")
            parts = [types.Part(text="done" if seen is None else f"seen {seen}")]
        elif text == "reveal":
            parts = [types.Part(text="the key is " + os.environ.get("GOOGLE_API_KEY", "?"))]
        elif text == "surrogate":
            parts = [types.Part(text="bad \\ud800 text and \\U0001f600 and \\x1b[31m red \\x07")]
        elif text.startswith("deep "):
            depth = int(text[5:])
            call = types.FunctionCall(name="misbehave", args={"how": "deep", "x": nested(depth)})
            parts = [types.Part(function_call=call)]
        elif text in MISBEHAVIOURS:
            parts = [types.Part(function_call=types.FunctionCall(name="misbehave", args={"how": text}))]
        else:
            parts = [types.Part(text=f"echo: {text}")]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


root_agent = LlmAgent(
    name="hostile_agent",
    model=HostileModel(model="hostile"),
    instruction="Misbehave.",
    tools=[misbehave],
)
'''

"""Scripted ADK agents for the runner tests, written into temporary agent folders.

``SCRIPT_AGENT`` obeys the user's message: ``weather CITY`` calls a tool and answers from it, ``state KEY`` reads
the session state through a tool, ``explode`` calls a tool that raises, ``hang`` never answers (and says so on
``AgentSignals``' pipe). Anything else is echoed.
"""

from __future__ import annotations

import json
import os
import select
from pathlib import Path
from types import TracebackType
from typing import Any

# The file descriptor, in the environment of the gate a test starts, to which an agent writes one byte when it
# reaches a point the test waits for (the scripted model's ``hang``, the hostile agent's ``block``).
SIGNAL_FD = "TEST_AGENT_SIGNAL_FD"

SCRIPT_AGENT = '''
from __future__ import annotations

import asyncio
import os

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.tool_context import ToolContext
from google.genai import types


def signal_the_test() -> None:
    fd = os.environ.get("TEST_AGENT_SIGNAL_FD")
    if fd:
        os.write(int(fd), b".")


def get_weather(city: str) -> dict:
    """Returns the weather of a city."""
    return {"city": city, "condition": "sunny"}


def read_state(key: str, tool_context: ToolContext) -> dict:
    """Reads a value from the session state."""
    return {"key": key, "value": tool_context.state.get(key)}


def explode(reason: str) -> dict:
    """A tool that always fails."""
    raise ValueError(f"weather service down: {reason}")


class ScriptModel(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1]
        response = next((p.function_response for p in last.parts or [] if p.function_response), None)
        text = " ".join(p.text for p in last.parts or [] if p.text)
        if response is not None:
            data = response.response or {}
            if response.name == "read_state":
                parts = [types.Part(text=f"{data['key']} is {data['value']}")]
            else:
                parts = [types.Part(text=f"It is {data['condition']} in {data['city']}.")]
        elif text.startswith("weather "):
            parts = [types.Part(function_call=types.FunctionCall(name="get_weather", args={"city": text[8:]}))]
        elif text.startswith("state "):
            parts = [types.Part(function_call=types.FunctionCall(name="read_state", args={"key": text[6:]}))]
        elif text == "explode":
            parts = [types.Part(function_call=types.FunctionCall(name="explode", args={"reason": "test"}))]
        elif text == "hang":
            signal_the_test()
            await asyncio.sleep(3600)
            parts = []
        else:
            parts = [types.Part(text=f"echo: {text}")]
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            model_version="script-1",
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=10, candidates_token_count=3, total_token_count=13
            ),
        )


root_agent = LlmAgent(
    name="script_agent",
    model=ScriptModel(model="script"),
    instruction="Follow the script.",
    tools=[get_weather, read_state, explode],
)
'''


def write_agent(folder: Path, source: str = SCRIPT_AGENT, *, init: str = "from . import agent\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text(init, encoding="utf-8")
    (folder / "agent.py").write_text(source, encoding="utf-8")
    return folder


def turn(text: str, *, answer: str | None = None, tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    invocation: dict[str, Any] = {"user_content": {"role": "user", "parts": [{"text": text}]}}
    if answer is not None:
        invocation["final_response"] = {"role": "model", "parts": [{"text": answer}]}
    if tools is not None:
        invocation["intermediate_data"] = {"tool_uses": tools}
    return invocation


def write_evalset(path: Path, cases: dict[str, list[dict[str, Any]]], **case_fields: dict[str, Any]) -> Path:
    """An eval set whose cases are ``{eval_id: [turns]}``; ``case_fields[eval_id]`` adds fields to a case."""
    eval_cases = [
        {"eval_id": eval_id, "conversation": turns, **case_fields.get(eval_id, {})} for eval_id, turns in cases.items()
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"eval_set_id": path.stem.split(".")[0], "eval_cases": eval_cases}), encoding="utf-8")
    return path


def write_config(folder: Path, criteria: dict[str, Any]) -> Path:
    path = folder / "test_config.json"
    path.write_text(json.dumps({"criteria": criteria}), encoding="utf-8")
    return path


class AgentSignals:
    """A pipe from the agents of a gate process the test starts: each writes a byte to it when it reaches the point
    the test waits for (``SIGNAL_FD``), whichever of the gate's processes it runs in. The test's event, in place of
    a sleep: start the gate with ``env`` in its environment and ``pass_fds``, call ``handed_over``, then ``wait``."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self._open = [self.read_fd, self.write_fd]  # closed once each: a number closed may be reused at once

    @property
    def env(self) -> dict[str, str]:
        return {SIGNAL_FD: str(self.write_fd)}

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self.write_fd,)

    def handed_over(self) -> None:
        """The gate holds the pipe's write end now: this process closes its own, so that the pipe ends (and
        ``wait`` fails at once) when the gate ends without signalling."""
        self._close(self.write_fd)

    def wait(self, count: int, *, timeout: float = 120) -> None:
        """Returns once ``count`` agents signalled; fails when the gate ended first, or after ``timeout`` seconds
        without a signal (a guard far above what a signal takes)."""
        received = 0
        while received < count:
            ready, _, _ = select.select([self.read_fd], [], [], timeout)
            assert ready, f"{received} of {count} agent signals, then none in {timeout} s"
            data = os.read(self.read_fd, count - received)
            assert data, f"the gate ended after {received} of {count} agent signals"
            received += len(data)

    def __enter__(self) -> AgentSignals:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        for fd in list(self._open):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd in self._open:
            self._open.remove(fd)
            os.close(fd)

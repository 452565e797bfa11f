"""What a failed case run says, and whether running it again may help."""

from __future__ import annotations

import asyncio
import os
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from adk_eval_gate.support.retry import retry_after_seconds, transient_status

_LIBRARY_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}", f"{os.sep}lib{os.sep}python")
_GATE = f"{os.sep}adk_eval_gate{os.sep}"
_MODEL_CLASSES = os.sep.join(("", "google", "adk", "models", ""))  # ADK's model classes, which call the SDKs
_API_ERRORS = frozenset({"APIError", "ClientError", "ServerError"})  # google-genai's (by name: not imported here)
_CONNECTION_WORDS = ("Connect", "Network", "RemoteProtocol", "ServerDisconnected")


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _library(filename: str) -> bool:
    return any(marker in filename for marker in _LIBRARY_MARKERS) or _GATE in filename


def _from_model_call(error: BaseException) -> bool:
    """Whether the error came out of the agent's model call rather than its own code.

    Each exception of the chain, the outermost first, is read from where it was raised outwards: the first frame
    that is either the agent's code (a tool, a callback, a model class of its own: anything outside installed
    libraries and the gate) or ADK's model classes (``google/adk/models/``, where ADK calls the provider's SDK)
    says where it came from. A ``ConnectionError`` a tool raises is the agent's; the same error inside
    google-genai's HTTP call, under ADK's ``Gemini``, is the model call's. Nothing said (an error of ADK's own
    code, such as a tool the model made up): the agent's run failed, as ADK's eval records it.
    """
    for item in _chain(error):
        for frame in reversed(traceback.extract_tb(item.__traceback__)):
            if _MODEL_CLASSES in frame.filename:
                return True
            if not _library(frame.filename):
                return False
    return False


def _sdk_transient(item: BaseException) -> bool:
    """A transport error google-genai itself retries (its ``_HTTPX_TRANSIENT_EXC``, ``_AIOHTTP_TRANSIENT_EXC``),
    a lost connection, or an httpx or aiohttp connection error of another provider's SDK."""
    client = sys.modules.get("google.genai._api_client")  # imported wherever a genai error can come from
    marked = (*getattr(client, "_HTTPX_TRANSIENT_EXC", ()), *getattr(client, "_AIOHTTP_TRANSIENT_EXC", ()))
    if marked and isinstance(item, marked):
        return True
    if isinstance(item, (ConnectionError, asyncio.IncompleteReadError)):
        return True
    name = type(item).__name__
    return type(item).__module__.startswith(("httpx", "aiohttp")) and any(word in name for word in _CONNECTION_WORDS)


def transient_failure(error: BaseException) -> tuple[bool, float | None]:
    """(retry?, seconds to wait) for an exception raised while running an agent.

    Only a failure of the model provider's transport, raised from inside the agent's model call
    (``_from_model_call``), is transient: google-genai's ``APIError`` with a status its SDK retries (408, 429, 5xx)
    or a lost connection. Anything the agent's own code raised (a tool's ``ConnectionError`` too) fails the run, as
    ADK's eval fails it (``LocalEvalService._perform_inference_single_eval_item``: the inference's status FAILURE).
    """
    if not _from_model_call(error):
        return False, None
    genai_errors = sys.modules.get("google.genai.errors")
    api_error = getattr(genai_errors, "APIError", None)
    for item in _chain(error):
        code = getattr(item, "code", None)
        is_api_error = (api_error is not None and isinstance(item, api_error)) or type(item).__name__ in _API_ERRORS
        if is_api_error and isinstance(code, int):
            if transient_status(code):
                return True, retry_after_seconds(getattr(getattr(item, "response", None), "headers", None) or {})
            return False, None
        if _sdk_transient(item):
            return True, None
    return False, None


def _own_frame(error: BaseException) -> str:
    """`` (file:line in function)`` of the innermost frame outside installed libraries, if any."""
    for item in _chain(error):
        frames = [frame for frame in traceback.extract_tb(item.__traceback__) if not _library(frame.filename)]
        if frames:
            frame = frames[-1]
            try:
                shown = Path(frame.filename).resolve().relative_to(Path.cwd().resolve()).as_posix()
            except ValueError:
                shown = frame.filename
            return f" ({shown}:{frame.lineno} in {frame.name})"
    return ""


def describe_agent_error(error: BaseException, agent: Any) -> str:
    """One line: what the agent raised, and where in the agent's own code."""
    if isinstance(error, SystemExit):
        return f"the agent {agent.display} called sys.exit({error.code!r}){_own_frame(error)}"
    detail = " ".join(str(error).split()) or type(error).__name__
    if len(detail) > 300:
        detail = detail[:297] + "..."
    return f"the agent {agent.display} raised {type(error).__name__}: {detail}{_own_frame(error)}"

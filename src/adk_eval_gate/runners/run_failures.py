"""What a failed case run says, and whether running it again may help."""

from __future__ import annotations

import asyncio
import os
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from adk_eval_gate.support.retry import retry_after_seconds, transient_status

_LIBRARY_MARKERS = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}", f"{os.sep}lib{os.sep}python")


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def transient_failure(error: BaseException) -> tuple[bool, float | None]:
    """(retry?, seconds to wait) for an exception raised while running an agent.

    Transient: a model API error with status 408/429/5xx (google-genai's ``APIError``) and lost connections.
    """
    for item in _chain(error):
        code = getattr(item, "code", None)
        if type(item).__name__ in {"APIError", "ClientError", "ServerError"} and isinstance(code, int):
            if transient_status(code):
                return True, retry_after_seconds(getattr(getattr(item, "response", None), "headers", None) or {})
            return False, None
        if isinstance(item, (ConnectionError, asyncio.IncompleteReadError)):
            return True, None
        module = type(item).__module__
        if module.startswith(("httpx", "aiohttp")) and any(
            word in type(item).__name__ for word in ("Connect", "Network", "RemoteProtocol", "ServerDisconnected")
        ):
            return True, None
    return False, None


def _own_frame(error: BaseException) -> str:
    """`` (file:line in function)`` of the innermost frame outside installed libraries, if any."""
    for item in _chain(error):
        frames = [
            frame
            for frame in traceback.extract_tb(item.__traceback__)
            if not any(marker in frame.filename for marker in _LIBRARY_MARKERS)
            and f"{os.sep}adk_eval_gate{os.sep}" not in frame.filename
        ]
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

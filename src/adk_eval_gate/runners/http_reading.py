"""What the http runner reads from an agent server, within limits: an answer, a line of an SSE stream, a whole
stream. The server is not ours to trust (a 1.2 GB answer took the gate to 1.8 GiB of memory): past a limit the
case run is an error naming it, and the rest of the answer is never read."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx

from adk_eval_gate.support import http_body
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.support.http_body import MIB

_LINE_END = re.compile(rb"\r\n|\r|\n")
SHOWN_NAMES = 10  # app names an error lists; the rest are counted
SHOWN_NAME_CHARS = 80


class AgentServerError(GateError):
    """The agent server answered something the runner cannot use."""


@dataclass(frozen=True)
class ReadLimits:
    answer: int = 64 * MIB  # one JSON answer (a turn's events from /run, /list-apps, a session)
    sse_line: int = 16 * MIB  # one line of a /run_sse stream (one event)
    sse_stream: int = 64 * MIB  # a whole /run_sse stream (one turn)


def _too_large(what: str, part: str, limit: int) -> AgentServerError:
    return AgentServerError(
        f"{what} sent {part} larger than {http_body.size_text(limit)}, the http runner's limit; the rest was not read",
        hint="an agent's events are rarely this large: look for large tool results or files sent inline",
    )


async def read_capped(response: httpx.Response, *, what: str, limit: int) -> httpx.Response:
    """``response`` (opened with ``stream``) read in full, as a response of its own; at most ``limit`` bytes."""
    return await http_body.read_capped(response, limit=limit, too_large=lambda: _too_large(what, "an answer", limit))


async def sse_lines(response: httpx.Response, *, what: str, limits: ReadLimits) -> AsyncIterator[str]:
    """The lines of an SSE stream (``\\n``, ``\\r\\n`` or ``\\r`` ends one), each and all of them within limits."""
    parts: list[bytes] = []
    pending = total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > limits.sse_stream:
            raise _too_large(what, "a stream", limits.sse_stream)
        start = 0
        for end in _LINE_END.finditer(chunk):
            parts.append(chunk[start : end.start()])
            yield b"".join(parts).decode("utf-8", "replace")
            parts, pending, start = [], 0, end.end()
        if start < len(chunk):
            parts.append(chunk[start:])
            pending += len(chunk) - start
            if pending > limits.sse_line:
                raise _too_large(what, "a line", limits.sse_line)
    if parts:
        yield b"".join(parts).decode("utf-8", "replace")


def summarized(names: list[str]) -> str:
    """App names for an error line: the first few, each cut short, and how many more there are."""
    shown = [name if len(name) <= SHOWN_NAME_CHARS else name[: SHOWN_NAME_CHARS - 3] + "..." for name in names]
    text = ", ".join(shown[:SHOWN_NAMES])
    return f"{text} and {len(names) - SHOWN_NAMES:,} more" if len(names) > SHOWN_NAMES else text or "nothing"

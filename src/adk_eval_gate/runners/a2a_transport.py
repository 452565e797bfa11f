"""The HTTP client under the a2a runner's A2A client (a2a-sdk's transports speak through it): what the runner takes
from an A2A server it does not trust.

- A redirect to another origin (scheme, host and port) is never followed: the request carries ``--agent-header``
  (often a bearer token) and the conversation.
- A whole answer is read as UTF-8 (a byte that is not is replaced) within ``A2aLimits.answer``, an event stream
  within ``A2aLimits.stream`` (as decoded), and no further: past a limit the turn fails with one line naming it,
  and the rest is never read.

Every request goes to the origin of ``--agent-url`` only (``same_origin``): an agent card may name any host.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from adk_eval_gate.runners.http_reading import AgentServerError
from adk_eval_gate.support import http_body
from adk_eval_gate.support.http_body import MIB


@dataclass(frozen=True)
class A2aLimits:
    answer: int = 64 * MIB  # one answer: the agent card, a JSON-RPC result, a task from tasks/get
    stream: int = 64 * MIB  # one turn's event stream (message/stream)


class A2aAnswerRefused(AgentServerError):
    """The A2A server answered something the runner does not take; the message says what."""


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host.lower(), url.port if url.port is not None else default


def where(url: httpx.URL) -> str:
    """A server as a message names it: its host and port, never a path or query (which can hold a key)."""
    return f"{url.host}:{url.port}" if url.port is not None else url.host


def _too_large(url: httpx.URL, part: str, limit: int) -> A2aAnswerRefused:
    return A2aAnswerRefused(
        f"the A2A server at {where(url)} sent {part} larger than {http_body.size_text(limit)}, the a2a runner's "
        "limit; the rest was not read",
        hint="look for large artifacts or files sent inline",
    )


class _CappedStream(httpx.AsyncByteStream):
    """An event stream that stops with ``A2aAnswerRefused`` once it has given ``limit`` bytes."""

    def __init__(self, inner: Any, *, limit: int, url: httpx.URL) -> None:
        self._inner = inner
        self._limit = limit
        self._url = url

    async def __aiter__(self) -> AsyncIterator[bytes]:
        total = 0
        async for chunk in self._inner:
            total += len(chunk)
            if total > self._limit:
                raise _too_large(self._url, "a stream", self._limit)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class GuardedClient(httpx.AsyncClient):
    """``httpx.AsyncClient`` whose answers are bounded and whose redirects stay on their origin."""

    limits_of_answers = A2aLimits()

    async def _refuse_redirect(self, response: httpx.Response) -> None:
        if not response.has_redirect_location:
            return
        source = response.request.url
        try:
            target = source.join(response.headers["Location"])
        except Exception:  # a Location the URL parser refuses
            target = None
        if target is not None and origin(target) == origin(source):
            return
        shown = where(target) if target is not None and target.host else "an address that cannot be read"
        raise A2aAnswerRefused(
            f"the A2A server at {where(source)} answered {response.status_code} with a redirect to {shown}, another "
            "host: not followed, as the request carries the --agent-header values"
        )

    async def send(self, request: httpx.Request, *, stream: bool = False, **kwargs: Any) -> httpx.Response:
        response = await super().send(request, stream=True, **kwargs)
        limits = self.limits_of_answers
        if stream:
            response.stream = _CappedStream(response.stream, limit=limits.stream, url=request.url)
            return response
        try:
            read = await http_body.read_capped(
                response, limit=limits.answer, too_large=lambda: _too_large(request.url, "an answer", limits.answer)
            )
        finally:
            await response.aclose()
        return _as_utf8(read)


def _as_utf8(response: httpx.Response) -> httpx.Response:
    """An answer whose body is not UTF-8 with each byte that is not replaced (U+FFFD), as the event streams are
    read: the SDK's JSON parsing would otherwise fail on it with a ``UnicodeDecodeError``."""
    try:
        response.content.decode("utf-8")
    except UnicodeDecodeError:
        text = response.content.decode("utf-8", "replace").encode("utf-8")
        headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() != "content-length"]
        return httpx.Response(
            response.status_code, headers=headers, content=text, request=response.request, history=response.history
        )
    return response


def guarded_client(*, headers: dict[str, str], timeout: float, connections: int, limits: A2aLimits) -> GuardedClient:
    client = GuardedClient(
        headers=headers,
        timeout=httpx.Timeout(timeout, connect=min(30.0, timeout)),
        limits=httpx.Limits(max_connections=connections),
        follow_redirects=True,
    )
    client.limits_of_answers = limits
    client.event_hooks = {"request": [], "response": [client._refuse_redirect]}
    return client


def same_origin(url: str, *, base: str) -> str:
    """``url`` (from an agent card) on the origin of ``base`` (``--agent-url``): its path kept, its scheme, host and
    port replaced, so the runner's requests and headers never go anywhere the user did not name."""
    card_url, base_url = httpx.URL(url or base), httpx.URL(base)
    if origin(card_url) == origin(base_url):
        return str(card_url)
    return str(card_url.copy_with(scheme=base_url.scheme, host=base_url.host, port=base_url.port))

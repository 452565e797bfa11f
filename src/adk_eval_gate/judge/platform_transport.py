"""The HTTP transport under the evaluation SDK's client: an answer may be at most so large.

google-genai reads a whole answer into memory and parses it; a service (or something posing as it) that answers
without end would take the gate's memory with it. This transport reads at most ``max_bytes`` of an answer, asks
for it unencoded (so the bytes counted are the bytes parsed), and fails the request past the limit.
"""

from __future__ import annotations

import httpx

MAX_ANSWER_BYTES = 1024 * 1024  # an answer of the service is a few kilobytes (the judge's limit too)


class AnswerTooLarge(httpx.TransportError):
    """The answer exceeded the limit (not retried: the same request would get the same answer)."""


class EncodedAnswer(httpx.TransportError):
    """The answer came compressed although it was asked for unencoded: its size once decoded is unknown."""


class CappedTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, *, max_bytes: int = MAX_ANSWER_BYTES) -> None:
        self.inner = inner
        self.max_bytes = max_bytes

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["Accept-Encoding"] = "identity"
        response = await self.inner.handle_async_request(request)
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            await response.aclose()
            raise EncodedAnswer(
                f"the evaluation service answered with Content-Encoding {encoding[:40]!r}, not the identity asked for",
                request=request,
            )
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in response.stream:  # type: ignore[union-attr]
                size += len(chunk)
                if size > self.max_bytes:
                    raise AnswerTooLarge(
                        f"the evaluation service's answer is larger than {self.max_bytes:,} bytes", request=request
                    )
                chunks.append(chunk)
        finally:
            await response.aclose()
        headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() != "content-length"]
        return httpx.Response(
            response.status_code, headers=headers, content=b"".join(chunks), extensions=response.extensions
        )

    async def aclose(self) -> None:
        await self.inner.aclose()

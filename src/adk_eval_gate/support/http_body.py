"""An HTTP answer from a server we do not trust, read within a size limit: the http runner's agent servers and the
judges' providers. Past the limit the reading stops (the rest is never read, so memory stays bounded) and the
caller's error is raised; the limit counts the body as decoded, so a compressed answer cannot grow past it either.

Works with httpx's and httpx2's responses alike (the Anthropic SDK speaks httpx2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

MIB = 1024 * 1024
_DROPPED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})  # of the body as sent

Response = TypeVar("Response", bound=Any)  # httpx.Response or httpx2.Response


def size_text(limit: int) -> str:
    """``64 MiB``, or the exact number of bytes when it is not a whole number of MiB."""
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit:,} bytes"


async def read_capped(response: Response, *, limit: int, too_large: Callable[[], Exception]) -> Response:
    """``response`` (opened with ``stream``) read in full, as a response of its own; at most ``limit`` bytes, else
    ``too_large()`` is raised and nothing more is read."""
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > limit:
            raise too_large()
        chunks.append(chunk)
    headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in _DROPPED_HEADERS]
    read: Response = type(response)(
        response.status_code,
        headers=headers,
        content=b"".join(chunks),
        request=response.request,
        extensions=response.extensions,
        history=response.history,
    )
    return read

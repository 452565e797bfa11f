"""When and how long to wait before trying a judge call again.

Retried: HTTP 408, 429 and 5xx, timeouts and dropped connections. The server's own hint wins: a
``Retry-After`` header (seconds or an HTTP date) or a ``google.rpc.RetryInfo`` ``retryDelay`` in the error body;
otherwise exponential backoff with jitter. Everything else (a bad key, a bad request) fails at once.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.genai import errors as genai_errors

from adk_eval_gate.retry_after import retry_after_seconds

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    max_tries: int = 5
    max_tries_rate_limited: int = 10  # a 429 is the quota working as meant, not an outage: more patience
    base_delay: float = 1.0  # seconds before the second try; doubles per try
    max_delay: float = 30.0
    max_server_delay: float = 120.0  # a longer Retry-After is capped (a CI job has a time limit)

    def tries_for(self, error: BaseException) -> int:
        limited = isinstance(error, genai_errors.APIError) and error.code == 429
        return max(self.max_tries, self.max_tries_rate_limited) if limited else self.max_tries

    def backoff(self, failed_tries: int, rng: random.Random) -> float:
        """Exponential with "equal jitter": between half and all of ``base * 2**(n-1)``, capped."""
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** max(failed_tries - 1, 0))
        return ceiling * rng.uniform(0.5, 1.0)

    def delay(self, error: BaseException, failed_tries: int, rng: random.Random) -> float:
        hint = server_delay(error)
        if hint is not None:
            return min(hint, self.max_server_delay) + rng.uniform(0.0, min(0.05, self.base_delay))
        return self.backoff(failed_tries, rng)


def _timeout_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [asyncio.TimeoutError, TimeoutError]
    try:
        import httpx

        errors.append(httpx.TimeoutException)
    except ImportError:  # pragma: no cover - google-genai depends on httpx
        pass
    return tuple(errors)


TIMEOUT_ERRORS = _timeout_errors()


def _transport_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [asyncio.TimeoutError, TimeoutError, ConnectionError]
    try:
        import httpx

        errors.append(httpx.TransportError)
    except ImportError:  # pragma: no cover - google-genai depends on httpx
        pass
    try:
        import aiohttp

        errors.extend([aiohttp.ClientConnectionError, aiohttp.ServerTimeoutError, aiohttp.ClientPayloadError])
    except ImportError:
        pass
    return tuple(errors)


TRANSPORT_ERRORS = _transport_errors()


def is_retryable(error: BaseException) -> bool:
    if isinstance(error, genai_errors.APIError):
        return error.code in RETRYABLE_STATUS
    return isinstance(error, TRANSPORT_ERRORS)


def _headers(error: BaseException) -> Mapping[str, str] | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    return headers if headers is not None and hasattr(headers, "get") else None


def _retry_info_delay(details: Any) -> float | None:
    error = details.get("error", details) if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    if not isinstance(items, list):
        return None
    for item in items:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)s\s*", str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def server_delay(error: BaseException) -> float | None:
    """The wait the server asked for, if it said one."""
    headers = _headers(error)
    if headers is not None:
        seconds = retry_after_seconds(headers)
        if seconds is not None:
            return seconds
    if isinstance(error, genai_errors.APIError):
        return _retry_info_delay(error.details)
    return None


def describe_error(error: BaseException) -> str:
    """One line about a failed call, without the request (which could carry the key)."""
    if isinstance(error, genai_errors.APIError):
        text = f"HTTP {error.code}"
        if error.status:
            text += f" {error.status}"
        if error.message:
            message = " ".join(str(error.message).split())
            text += f": {message[:200]}"
        return text
    if isinstance(error, TIMEOUT_ERRORS):
        return "timed out"
    detail = " ".join(str(error).split())[:200]
    return f"{type(error).__name__}: {detail}" if detail else type(error).__name__

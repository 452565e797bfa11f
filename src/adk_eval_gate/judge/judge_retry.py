"""When and how long to wait before trying a judge call again.

Retried: transient HTTP statuses (``support.retry.transient_status``: 408, 425, 429, 5xx), timeouts and dropped
connections, from google-genai and from the SDKs behind ADK's other model classes (OpenAI, Anthropic, LiteLLM:
their errors carry ``status_code``). The server's own hint wins: a ``Retry-After`` header (seconds or an HTTP
date), OpenAI's ``retry-after-ms``, or a ``google.rpc.RetryInfo`` ``retryDelay`` in the error body; otherwise
exponential backoff with jitter. Everything else (a bad key, a bad request) fails at once.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.genai import errors as genai_errors

from adk_eval_gate.judge.http_guard import JudgeAnswerRefused
from adk_eval_gate.support.retry import Backoff, retry_after_seconds, transient_status


@dataclass(frozen=True)
class JudgeRetry:
    """The judge's numbers: more patience for a 429 (the quota working as meant, not an outage)."""

    backoff: Backoff
    rate_limited_attempts: int = 10

    def attempts_for(self, error: BaseException) -> int:
        limited = status_of(error) == 429
        return max(self.backoff.attempts, self.rate_limited_attempts) if limited else self.backoff.attempts

    def delay(self, error: BaseException, failed_attempts: int, rng: random.Random) -> float:
        return self.backoff.delay(failed_attempts, retry_after=server_delay(error), rng=rng)

    def wait_refused(self, error: BaseException) -> str | None:
        """Why the judge gives up at once when the server asks for a longer wait than it ever waits (a quota spent
        for the hour or the day): waiting the most each time, ten times, cost 18 minutes per question before."""
        asked, cap = server_delay(error), self.backoff.server_cap
        if asked is None or cap is None or asked <= cap:
            return None
        return f"the provider asked to wait {_seconds(asked)}, more than the {_seconds(cap)} the judge waits at most"

    def give_up(self, error: BaseException, tries: int) -> tuple[bool, str | None]:
        """Whether a call that failed on its ``tries``-th try is given up, and when it is because the server asked for
        a longer wait than the judge makes, why (``wait_refused``: a quota, not an outage)."""
        if not is_retryable(error):
            return True, None
        refused = self.wait_refused(error)
        return refused is not None or tries >= self.attempts_for(error), refused


def _seconds(value: float) -> str:
    if math.isinf(value):
        return "an endless time"
    if value >= 1e12:
        return f"{value:.3g} s"
    return f"{value:,.0f} s" if value >= 10 or value == int(value) else f"{value:.1f} s"


JUDGE_RETRY = JudgeRetry(Backoff(attempts=5, initial=1.0, maximum=30.0, jitter=(0.5, 1.0), server_cap=120.0))


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


def _sdk_errors(name: str) -> tuple[type[BaseException], ...]:
    """The OpenAI and Anthropic SDKs' class ``name`` (``APIConnectionError``), of those already imported: an
    error of theirs can only come from an SDK that is loaded, and importing them here would slow every start."""
    found = (getattr(sys.modules.get(module), name, None) for module in ("openai", "anthropic"))
    return tuple(error for error in found if isinstance(error, type) and issubclass(error, BaseException))


def _is_timeout(error: BaseException) -> bool:
    return isinstance(error, (*TIMEOUT_ERRORS, *_sdk_errors("APITimeoutError")))


def _is_transport_error(error: BaseException) -> bool:
    """A timeout or a dropped connection (the SDKs' timeouts are connection errors too)."""
    return isinstance(error, (*TRANSPORT_ERRORS, *_sdk_errors("APIConnectionError")))


def status_of(error: BaseException) -> int | None:
    """The HTTP status of a failed call: google-genai's ``code``, the other SDKs' ``status_code``."""
    status = error.code if isinstance(error, genai_errors.APIError) else getattr(error, "status_code", None)
    return status if isinstance(status, int) and not isinstance(status, bool) else None


def is_retryable(error: BaseException) -> bool:
    status = status_of(error)
    if status is not None:
        return transient_status(status)
    return _is_transport_error(error)


def _headers(error: BaseException) -> Mapping[str, str] | None:
    """The failed response's headers that carry a wait (LiteLLM keeps the provider's in
    ``litellm_response_headers``)."""
    response = getattr(error, "response", None)
    candidates: tuple[Any, ...] = (getattr(error, "litellm_response_headers", None), getattr(response, "headers", None))
    for headers in candidates:
        if not hasattr(headers, "get"):  # httpx's and aiohttp's headers, a dict
            continue
        if headers.get("retry-after-ms") or retry_after_seconds(headers) is not None:
            found: Mapping[str, str] = headers
            return found
    return None


def _retry_after_ms(headers: Mapping[str, str]) -> float | None:
    try:
        milliseconds = float(headers.get("retry-after-ms") or "")
    except ValueError:
        return None
    return milliseconds / 1000 if milliseconds >= 0 else None


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
        seconds = _retry_after_ms(headers)  # OpenAI's, more precise than its Retry-After
        if seconds is None:
            seconds = retry_after_seconds(headers)
        if seconds is not None:
            return seconds
    if isinstance(error, genai_errors.APIError):
        return _retry_info_delay(error.details)
    return None


_TRACEBACK = "Traceback (most recent call last):"


def describe_error(error: BaseException) -> str:
    """One line about a failed call, without the request (which could carry the key)."""
    if isinstance(error, JudgeAnswerRefused):  # says what the server did, and which one
        return str(error)
    if isinstance(error, genai_errors.APIError):
        text = f"HTTP {error.code}"
        if error.status:
            text += f" {error.status}"
        if error.message:
            message = " ".join(str(error.message).split())
            text += f": {message[:200]}"
        return text
    if _is_timeout(error):
        return "timed out"
    # LiteLLM puts the traceback of an unexpected error in its message: the paths of this machine, no news
    detail = " ".join(str(error).split(_TRACEBACK, 1)[0].split())[:200]
    name = type(error).__name__ if status_of(error) is None else f"HTTP {status_of(error)} {type(error).__name__}"
    return f"{name}: {detail}" if detail else name

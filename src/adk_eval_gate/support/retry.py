"""Calling services that fail for a while: one rule for which HTTP statuses are transient, one backoff, and how
long a server asked us to wait (``Retry-After``).

The case runs (``execute``), the LLM judge (``judge.judge_retry``), the GitHub client and the http runner each hold
their own numbers (``CASE_RUN_RETRY``, ``JUDGE_RETRY``, ``GITHUB_RETRY``, ``AGENT_SERVER_RETRY``), all in this shape.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import math
import random
from dataclasses import dataclass
from typing import Any

TRANSIENT_STATUS = frozenset({408, 425, 429})  # and every 5xx


def transient_status(status: int) -> bool:
    """An HTTP status worth trying again after a wait: a timeout, too early, too many requests, a server error."""
    return status in TRANSIENT_STATUS or 500 <= status < 600


@dataclass(frozen=True)
class Backoff:
    """How often to try, and how long to wait between tries: exponential, capped, with jitter, unless the
    server said how long (``retry_after``). The random source is passed in, so tests can fix it."""

    attempts: int  # tries in all, the first included
    initial: float  # seconds before the second try; doubles per try
    maximum: float  # the longest computed wait
    jitter: tuple[float, float] = (1.0, 1.0)  # the computed wait is multiplied by a random factor in this range
    server_cap: float | None = None  # a longer wait asked by the server is cut to this (a CI job has a time limit)

    def delay(
        self, failed_attempts: int, *, retry_after: float | None = None, rng: random.Random | None = None
    ) -> float:
        if retry_after is not None:
            wait = retry_after if self.server_cap is None else min(retry_after, self.server_cap)
            return max(0.0, wait)
        ceiling = min(self.maximum, self.initial * 2.0 ** max(failed_attempts - 1, 0))
        low, high = self.jitter
        return ceiling * (rng or _RANDOM).uniform(low, high) if low != high else ceiling * low


_RANDOM = random.Random()


def parse_retry_after(value: str, *, now: dt.datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` value, a number of seconds or an HTTP date; None if unreadable."""
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.timezone.utc)
        seconds = (when - (now or dt.datetime.now(dt.timezone.utc))).total_seconds()
    if math.isnan(seconds):
        return None
    return max(seconds, 0.0)


def retry_after_seconds(headers: Any, *, now: dt.datetime | None = None) -> float | None:
    """The ``Retry-After`` of a response's headers (any mapping with ``get``), or None."""
    try:
        value = headers.get("Retry-After") or headers.get("retry-after")
    except AttributeError:
        return None
    return parse_retry_after(str(value), now=now) if value else None

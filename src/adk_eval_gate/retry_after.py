"""``Retry-After``: how long a server asked us to wait (the judge, the http runner and the GitHub client)."""

from __future__ import annotations

import datetime as dt
import email.utils
import math
from typing import Any


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

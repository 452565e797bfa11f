"""Retry-After, as the judge, the http runner and the GitHub client read it."""

from __future__ import annotations

import datetime as dt

from adk_eval_gate.retry_after import parse_retry_after, retry_after_seconds

NOW = dt.datetime(2026, 11, 21, 12, 0, 0, tzinfo=dt.timezone.utc)


def test_seconds_and_http_dates() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("Sat, 21 Nov 2026 12:00:30 GMT", now=NOW) == 30.0
    assert parse_retry_after("Sat, 21 Nov 2026 11:00:00 GMT", now=NOW) == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after("nan") is None


def test_from_headers_of_any_case() -> None:
    assert retry_after_seconds({"retry-after": "2"}) == 2.0
    assert retry_after_seconds({"Retry-After": "3"}) == 3.0
    assert retry_after_seconds({}) is None
    assert retry_after_seconds(None) is None

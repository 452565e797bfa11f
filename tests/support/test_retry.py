"""Retry-After, as the judge, the http runner and the GitHub client read it."""

from __future__ import annotations

import datetime as dt

from adk_eval_gate.support.retry import parse_retry_after, retry_after_seconds

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


def test_transient_statuses_are_one_rule_for_every_caller() -> None:
    from adk_eval_gate.support.retry import transient_status

    assert [s for s in (200, 400, 401, 403, 404, 408, 409, 425, 429, 500, 501, 503, 599) if transient_status(s)] == [
        408,
        425,
        429,
        500,
        501,
        503,
        599,
    ]


def test_backoff_doubles_is_capped_jitters_and_honours_the_server() -> None:
    import random

    from adk_eval_gate.support.retry import Backoff

    plain = Backoff(attempts=5, initial=1.0, maximum=5.0)
    assert [plain.delay(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    assert plain.delay(3, retry_after=12.5) == 12.5
    assert Backoff(attempts=2, initial=1.0, maximum=5.0, server_cap=10.0).delay(1, retry_after=99) == 10.0
    jittered = Backoff(attempts=5, initial=2.0, maximum=30.0, jitter=(0.8, 1.2))
    delays = {jittered.delay(2, rng=random.Random(seed)) for seed in range(20)}
    assert all(3.2 <= d <= 4.8 for d in delays) and len(delays) > 1
    assert jittered.delay(2, rng=random.Random(7)) == jittered.delay(2, rng=random.Random(7))

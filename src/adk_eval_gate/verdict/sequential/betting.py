"""Two one-sided betting tests of a bounded mean (Waudby-Smith & Ramdas, JRSS-B 2024), on values in [0, 1] where
higher is better.

* PASS test, null ``mean <= pass_null``: capital ``K+ = prod(1 + l_i (x_i - pass_null))``, with
  ``0 <= l_i <= c / pass_null``.
* FAIL test, null ``mean >= fail_null``: capital ``K- = prod(1 + k_i (fail_null - x_i))``, with
  ``0 <= k_i <= c / (1 - fail_null)``.

Each capital is a nonnegative supermartingale under its null, whatever the distribution of the values in [0, 1] and
however it drifts, so by Ville's inequality it ever reaches ``1 / alpha`` with probability at most ``alpha``: under
any stopping rule, any number of looks and any later continuation. The bets are predictable (computed from the
values before ``i`` only): the larger of the binary Kelly bet and the aGRAPA bet, from the earlier values plus one
pseudo-value (1 for K+, 0 for K-), truncated at ``c = 0.9`` of the largest safe bet so that no factor falls below
``1 - c``. Capitals are kept as logarithms: they cannot overflow, and no factor reaches zero, so no NaN.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

BET_CAP = 0.9
# Nulls are kept this far inside (0, 1): a bet against "mean <= 0" or "mean >= 1" would be unbounded.
EDGE = 1e-6


@dataclass(frozen=True)
class Nulls:
    """What the two tests reject: PASS proves ``mean > pass_null``, FAIL proves ``mean < fail_null``; ``exact``: the
    threshold is the top of the range (``all``, a threshold of 1.0), where only every run at the top passes and the
    PASS test is not run (it could only claim less)."""

    pass_null: float
    fail_null: float
    exact: bool


@functools.lru_cache(maxsize=256)
def nulls_for(threshold: float, *, margin: float) -> Nulls:
    """The nulls for a threshold in [0, 1]: a pass tolerates a true shortfall of ``margin``, a fail needs proof that
    the threshold is missed."""
    exact = threshold >= 1.0
    return Nulls(
        pass_null=min(max(threshold - margin, EDGE), 1.0 - EDGE),
        fail_null=min(max(threshold, EDGE), 1.0 - EDGE),
        exact=exact,
    )


@dataclass(frozen=True)
class Capitals:
    """The running figures of one stream of values: how many, their mean and Welford sum of squares (what the next
    bets are computed from), and the two log capitals."""

    count: int = 0
    mean: float = 0.0
    squares: float = 0.0
    log_pass: float = 0.0
    log_fail: float = 0.0


def _bet(edge: float, estimate: float, variance: float, cap: float) -> float:
    """The larger of the binary Kelly and the aGRAPA bet on the estimate's distance from the null's edge, capped."""
    gap = estimate - edge
    if gap <= 0.0:
        return 0.0
    kelly = gap / (edge * (1.0 - edge))
    grapa = gap / (variance + gap * gap)
    return min(cap, max(kelly, grapa))


def _pass_bet(capitals: Capitals, nulls: Nulls) -> float:
    """The PASS test's next bet: the estimate is the earlier values' mean with one pseudo-value of 1."""
    if nulls.exact:
        return 0.0
    seen = capitals.count + 1
    estimate = (1.0 + capitals.mean * capitals.count) / seen
    variance = (0.25 + capitals.squares) / seen
    return _bet(nulls.pass_null, estimate, variance, BET_CAP / nulls.pass_null)


def _fail_bet(capitals: Capitals, nulls: Nulls) -> float:
    """The FAIL test's next bet, on the distance below ``fail_null`` (values mirrored), one pseudo-value of 0."""
    seen = capitals.count + 1
    shortfall = 1.0 - capitals.mean * capitals.count / seen
    variance = (0.25 + capitals.squares) / seen
    return _bet(1.0 - nulls.fail_null, shortfall, variance, BET_CAP / (1.0 - nulls.fail_null))


def advance(capitals: Capitals, value: float, nulls: Nulls) -> Capitals:
    """The figures after one more value in [0, 1], each capital multiplied by its factor for it."""
    lean = _pass_bet(capitals, nulls)
    against = _fail_bet(capitals, nulls)
    count = capitals.count + 1
    step = value - capitals.mean
    mean = capitals.mean + step / count
    return Capitals(
        count=count,
        mean=mean,
        squares=capitals.squares + step * (value - mean),
        log_pass=capitals.log_pass + math.log1p(lean * (value - nulls.pass_null)),
        log_fail=capitals.log_fail + math.log1p(against * (nulls.fail_null - value)),
    )


def e_value(log_capital: float) -> float:
    """A log capital as an e-value that JSON can hold (held below the largest float)."""
    return math.exp(min(log_capital, 700.0))

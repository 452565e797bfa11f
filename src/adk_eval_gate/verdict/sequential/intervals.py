"""The anytime-valid interval for a mean in [0, 1] (a betting confidence sequence, Waudby-Smith & Ramdas 2024,
predictable plug-in bets): at every run at once, the true mean lies in it with the stated confidence, so it may be
looked at after each run and still be what it says.

Each bound is a one-sided test at half the error: the lower bound is the highest ``m`` that the capital against
``mean <= m`` has already reached ``2 / alpha`` for, the upper bound the mirror. Every factor of those capitals
falls as ``m`` rises (or rises, for the upper one), so each bound is found by bisection.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from adk_eval_gate.verdict.sequential.betting import BET_CAP

_STEPS = 24  # bounds to within 6e-8, rounded outwards


def plug_in_bets(values: Sequence[float], *, alpha: float) -> list[float]:
    """The predictable plug-in bets (WSR eq. 26): from the mean and variance of the values before each one, with
    one pseudo-value of 1/2 and one of spread 1/4."""
    bets = []
    total, squares, estimate = 0.0, 0.25, 0.5
    for index, value in enumerate(values, start=1):
        variance = squares / index
        bets.append(math.sqrt(2.0 * math.log(2.0 / alpha) / (variance * index * math.log1p(index))))
        squares += (value - estimate) ** 2
        total += value
        estimate = (0.5 + total) / (index + 1)
    return bets


def _log_capital_above(values: Sequence[float], bets: Sequence[float], m: float) -> float:
    """The log capital against ``mean <= m`` (``m`` in (0, 1))."""
    cap = BET_CAP / m
    return math.fsum(math.log1p(min(bet, cap) * (value - m)) for value, bet in zip(values, bets, strict=True))


def log_capital_below(values: Sequence[float], bets: Sequence[float], m: float) -> float:
    """The log capital against ``mean >= m`` (``m`` in (0, 1))."""
    cap = BET_CAP / (1.0 - m)
    return math.fsum(math.log1p(min(bet, cap) * (m - value)) for value, bet in zip(values, bets, strict=True))


def _edge(rejected: Callable[[float], bool], *, rising: bool) -> float:
    """The boundary, by bisection, between the ``m`` that ``rejected`` rejects and those it keeps: the rejected ones lie
    below it when ``rising``, above it otherwise; the bound returned is on the kept side's edge, rounded outwards."""
    low, high = 0.0, 1.0
    for _ in range(_STEPS):
        middle = (low + high) / 2.0
        if rejected(middle) == rising:
            low = middle
        else:
            high = middle
    return low if rising else high


def anytime_interval(values: Sequence[float], *, confidence: float) -> tuple[float, float]:
    """The anytime-valid interval for the mean of values in [0, 1] after the last of them: (0, 1) before any."""
    alpha = 1.0 - confidence
    bound = math.log(2.0 / alpha)
    bets = plug_in_bets(values, alpha=alpha)
    low = _edge(lambda m: m > 0.0 and _log_capital_above(values, bets, m) >= bound, rising=True)
    high = _edge(lambda m: m < 1.0 and log_capital_below(values, bets, m) >= bound, rising=False)
    return low, max(low, high)

"""Small statistics: means, sums and spreads that cannot overflow, and for the noise checks of ``compare``
Welch's interval for a difference of two means and the prediction interval of one more value against a history.

Every number that enters is finite (``sanitize``, ``score``), but finite numbers can still add up past the largest
float (a metric that returns 1e308 on two rows): ``mean`` and ``spread`` then scale the values down first, so the
mean of finite values is finite, and ``total`` holds at the largest float. Values that stay in range get exactly
the arithmetic they always had.

Student's t quantile is found by bisection on its distribution function, written with the regularized
incomplete beta function (continued fraction, modified Lentz). Exact to ~1e-10, no scipy needed.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Iterable, Sequence

_TINY = 1e-300
LARGEST = sys.float_info.max


def _finite(values: Sequence[float]) -> bool:
    return all(math.isfinite(value) for value in values)


def _held(value: float) -> float:
    """``value`` within the largest float either way (a sum or difference of finite values that overflowed)."""
    return max(-LARGEST, min(value, LARGEST))


def _scale(values: Sequence[float]) -> float:
    return max(abs(value) for value in values) or 1.0


def mean(values: Sequence[float]) -> float:
    """``statistics.fmean``, finite for finite values however large (ValueError for none)."""
    if not values:
        raise ValueError("the mean of no values")
    try:
        return statistics.fmean(values)
    except (OverflowError, ValueError):
        if not _finite(values):
            return float(sum(values)) / len(values)  # inf, -inf or nan, as the values say
    scale = _scale(values)
    return math.fsum(value / scale for value in values) / len(values) * scale


def spread(values: Sequence[float]) -> float:
    """``statistics.stdev`` (two values or more), at most the largest float."""
    try:
        return statistics.stdev(values)
    except OverflowError:
        scale = _scale(values)
        return min(statistics.stdev([value / scale for value in values]) * scale, LARGEST)


def total(values: Iterable[float]) -> float:
    """The sum of the values, held at the largest float (with its sign) instead of overflowing."""
    numbers = list(values)
    result = float(sum(numbers))
    if math.isfinite(result) or not _finite(numbers):
        return result
    scale = _scale(numbers)
    return _held(math.fsum(value / scale for value in numbers) * scale)


def _beta_fraction(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, 400):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            result *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return result


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (0.5 < p < 1)."""
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
        if high - low < 1e-12:
            break
    return (low + high) / 2.0


def welch_interval(base: Sequence[float], head: Sequence[float], *, confidence: float = 0.95) -> tuple[float, float]:
    """The ``confidence`` interval of ``mean(head) - mean(base)`` (Welch; both sides need two or more values)."""
    if len(base) < 2 or len(head) < 2:
        raise ValueError("Welch's interval needs at least two values on each side")
    difference = _held(mean(head) - mean(base))
    try:
        base_part = statistics.variance(base) / len(base)
        head_part = statistics.variance(head) / len(head)
        variance = base_part + head_part
        if variance <= 1e-18:  # no spread (deterministic scores), or too little to square without underflow
            return difference, difference
        denominator = base_part**2 / (len(base) - 1) + head_part**2 / (len(head) - 1)
        df = variance**2 / denominator if denominator > 0 else float(len(base) + len(head) - 2)
    except OverflowError:  # scores near the largest float: no noise model, the difference stands as it is
        return difference, difference
    margin = t_quantile(1.0 - (1.0 - confidence) / 2.0, df) * math.sqrt(variance)
    return _held(difference - margin), _held(difference + margin)


def prediction_interval(history: Sequence[float], value: float, *, confidence: float = 0.95) -> tuple[float, float]:
    """The ``confidence`` interval of ``value - mean(history)`` when ``value`` is one more draw like the history's
    (Student's prediction interval; the history needs two or more values)."""
    if len(history) < 2:
        raise ValueError("a prediction interval needs at least two earlier values")
    difference = _held(value - mean(history))
    deviation = spread(history)
    if deviation <= 1e-12:
        return difference, difference
    margin = t_quantile(1.0 - (1.0 - confidence) / 2.0, len(history) - 1) * deviation * math.sqrt(1 + 1 / len(history))
    return _held(difference - margin), _held(difference + margin)

"""Welch's interval and Student's t quantile (checked against published table values)."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adk_eval_gate.support.stats import (
    LARGEST,
    incomplete_beta,
    mean,
    prediction_interval,
    spread,
    t_cdf,
    t_quantile,
    total,
    welch_interval,
)

# two-sided 95% critical values of Student's t, from standard tables
T_975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 5: 2.5706, 10: 2.2281, 30: 2.0423, 120: 1.9799}


@pytest.mark.parametrize(("df", "expected"), sorted(T_975.items()))
def test_t_quantile_matches_tables(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_t_cdf_and_beta_edges() -> None:
    assert t_cdf(0.0, 4) == pytest.approx(0.5)
    assert t_cdf(-2.7764, 4) == pytest.approx(0.025, abs=1e-5)
    assert incomplete_beta(2.0, 3.0, 0.0) == 0.0 and incomplete_beta(2.0, 3.0, 1.0) == 1.0
    assert incomplete_beta(1.0, 1.0, 0.3) == pytest.approx(0.3)  # the uniform distribution


def test_welch_interval_known_example() -> None:
    low, high = welch_interval([0.8, 0.9, 0.7], [0.6, 0.9, 0.8])
    assert (low + high) / 2 == pytest.approx(-0.0333333, abs=1e-6)
    assert low < -0.0333 < high
    assert welch_interval([1.0, 1.0, 1.0], [0.5, 0.5]) == (-0.5, -0.5)  # no spread: the difference itself


def test_welch_needs_two_values_per_side() -> None:
    with pytest.raises(ValueError, match="at least two"):
        welch_interval([1.0], [1.0, 0.5])


scores = st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=2, max_size=8)


@pytest.mark.slow  # a third of a second of examples
@given(scores, scores)
def test_the_interval_contains_the_difference_of_means(base: list[float], head: list[float]) -> None:
    low, high = welch_interval(base, head)
    difference = statistics.fmean(head) - statistics.fmean(base)
    assert low <= difference + 1e-9 and difference - 1e-9 <= high
    flipped = welch_interval(head, base)
    assert flipped[0] == pytest.approx(-high, abs=1e-9) and flipped[1] == pytest.approx(-low, abs=1e-9)


def test_the_prediction_interval_of_one_more_value() -> None:
    # t(0.975, 4) = 2.7764451052; sd of 1..5 = sqrt(2.5); sqrt(1 + 1/5)
    low, high = prediction_interval([1.0, 2.0, 3.0, 4.0, 5.0], 3.5)
    assert math.isclose(high - 0.5, 4.808944, rel_tol=1e-6) and math.isclose(low, 0.5 - 4.808944, rel_tol=1e-6)
    assert prediction_interval([0.7, 0.7, 0.7], 0.4) == pytest.approx((-0.3, -0.3))  # no spread: the bare difference
    with pytest.raises(ValueError):
        prediction_interval([1.0], 0.5)


def test_means_sums_and_spreads_of_finite_values_never_overflow() -> None:
    assert mean([1e308, 1e308]) == 1e308 and mean([LARGEST] * 3) == LARGEST and mean([LARGEST, -LARGEST]) == 0.0
    assert total([1e308, 1e308]) == LARGEST and total([-1e308, -1e308]) == -LARGEST
    assert total([1e308, 1e308, -1e308]) == 1e308  # only the running sum overflowed
    assert spread([LARGEST, -LARGEST]) == LARGEST and spread([1e308, 1e308]) == 0.0
    assert welch_interval([LARGEST, -LARGEST], [LARGEST, -LARGEST]) == (0.0, 0.0)
    assert prediction_interval([1e308, 1e308, 1e308], -1e308) == (-LARGEST, -LARGEST)
    assert prediction_interval([LARGEST, -LARGEST, LARGEST], 0.0) == (-LARGEST, LARGEST)


@pytest.mark.slow  # a property test: a hundred generated lists
@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=1, max_size=8))
def test_values_in_range_get_the_arithmetic_they_always_had(values: list[float]) -> None:
    assert mean(values) == statistics.fmean(values) and total(values) == sum(values)
    if len(values) > 1:
        assert spread(values) == statistics.stdev(values)

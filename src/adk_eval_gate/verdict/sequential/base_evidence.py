"""The anytime-valid comparison of a case with the base branch, and the false-discovery control across cases.

A case's head runs are compared with its base runs (a fixed sample: the newest base run and history runs of the same
case digest) through their anytime intervals, each at half the error: a regression is **proven** when the head's
upper bound lies below the base's lower bound minus the tolerance, **no regression** when the head's lower bound lies
at or above the base's upper bound minus the tolerance, and anything else is within noise. The head's interval stays
valid however many runs the sequential test stopped at, where a fixed-n comparison (Welch) would not be.

Across cases the flags are chosen by e-BH (Wang & Ramdas, arXiv 2009.02824), which controls the expected share of
false flags at ``alpha`` under any dependence between the cases. A case's e-value is the head's capital against
"head mean >= base lower bound - tolerance", stopped where the head stopped (stopped values, not running maxima);
it is an e-value for "no regression" whenever the base's bound holds, which it does at the base's confidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from adk_eval_gate.verdict.sequential.intervals import anytime_interval, log_capital_below, plug_in_bets

BaseCall = Literal["regression", "no-regression", "within-noise"]


def compare_with_base(*, head: tuple[float, float], base: tuple[float, float], tolerance: float) -> BaseCall:
    """The call on one case from the head's and the base's anytime intervals (same scale, higher better)."""
    if head[1] < base[0] - tolerance:
        return "regression"
    if head[0] >= base[1] - tolerance:
        return "no-regression"
    return "within-noise"


def base_settled(
    head: Mapping[str, Sequence[float]], base: Mapping[str, Sequence[float]], *, confidence: float, tolerance: float
) -> bool:
    """Whether a case's comparison with the base is settled (``--fail-on-regression`` runs a case until it is, within
    its most runs): a regression proven on one metric, or no regression proven on every metric the base has values
    for. Values per metric on 0 to 1, each side's anytime interval at half the error; a metric with a value outside
    that range is not compared (as the comparison leaves it untested)."""
    calls = []
    half = 1.0 - (1.0 - confidence) / 2
    for name, base_values in base.items():
        values = head.get(name, ())
        if not base_values or any(not 0.0 <= value <= 1.0 for value in (*values, *base_values)):
            continue
        if not values:
            return False
        head_interval = anytime_interval(values, confidence=half)
        base_interval = anytime_interval(base_values, confidence=half)
        call = compare_with_base(head=head_interval, base=base_interval, tolerance=tolerance)
        if call == "regression":
            return True
        calls.append(call)
    return all(call == "no-regression" for call in calls)


def regression_e_value(head: Sequence[float], *, base_low: float, tolerance: float, alpha: float) -> float:
    """The head's evidence (values in [0, 1], higher better) that its mean is below ``base_low - tolerance``."""
    edge = base_low - tolerance
    if edge <= 0.0 or not head:
        return 1.0  # nothing can fall below an edge at the bottom of the range
    bets = plug_in_bets(head, alpha=alpha)
    return math.exp(min(log_capital_below(head, bets, min(edge, 1.0 - 1e-6)), 700.0))


def e_bh(e_values: Sequence[float], *, alpha: float) -> list[int]:
    """The indices e-BH flags: the ``k`` largest e-values, for the largest ``k`` whose ``k``-th largest e-value is at
    least ``m / (alpha k)`` (``m`` cases)."""
    order = sorted(range(len(e_values)), key=lambda index: e_values[index], reverse=True)
    count = len(e_values)
    flagged = 0
    for rank, index in enumerate(order, start=1):
        if e_values[index] >= count / (alpha * rank):
            flagged = rank
    return sorted(order[:flagged])

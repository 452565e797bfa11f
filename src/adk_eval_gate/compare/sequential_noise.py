"""The noise check under ``--sequential``: anytime-valid, in place of Welch's interval and the history's prediction
interval, which hold only for a number of runs fixed in advance.

A drop is a **proven** regression (``significant``) when the head's anytime upper bound lies below the base's lower
bound minus the tolerance (the core's ``compare_with_base``, each interval at half the error; the base's values are
its runs and the history's scores of the case), and then only if e-BH across every drop the comparison tested
flags it, so that the expected share of false flags stays within the error; any other drop is within noise. A rise is
significant in the mirror case. Values are a metric's run scores on 0 to 1; a metric scored outside that range is
left untested."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adk_eval_gate.model.results import MetricChange, NoiseModel, Significance
from adk_eval_gate.verdict import anytime_interval, compare_with_base, e_bh, regression_e_value

MODEL: NoiseModel = "anytime"


@dataclass(frozen=True)
class Sides:
    """A change's head runs and base values, each side's anytime interval at half the error."""

    head: tuple[float, float]
    base: tuple[float, float]
    head_values: tuple[float, ...]


def sides(head_runs: Sequence[float], base_values: Sequence[float], *, confidence: float) -> Sides | None:
    """The two intervals, or None when a side has no value or one outside 0 to 1."""
    values = [*head_runs, *base_values]
    if not head_runs or not base_values or any(not 0.0 <= value <= 1.0 for value in values):
        return None
    half = 1.0 - (1.0 - confidence) / 2
    head = anytime_interval(head_runs, confidence=half)
    base = anytime_interval(base_values, confidence=half)
    return Sides(head=head, base=base, head_values=tuple(head_runs))


def significance(
    found: Sides | None, *, drop: bool, tolerance: float
) -> tuple[Significance, NoiseModel | None, list[float] | None]:
    """(significance, the model, the interval of head - base) of a drop or a rise, before e-BH."""
    if found is None:
        return "untested", None, None
    low = found.head[0] - found.base[1]
    high = found.head[1] - found.base[0]
    if drop:
        proven = compare_with_base(head=found.head, base=found.base, tolerance=tolerance) == "regression"
    else:
        proven = found.head[0] > found.base[1] + tolerance
    return ("significant" if proven else "noise"), MODEL, [round(low, 6), round(high, 6)]


def flagged_by_e_bh(
    changes: list[MetricChange], tested: dict[int, Sides], *, confidence: float, tolerance: float
) -> list[MetricChange]:
    """The changes, the drops proven by their intervals kept significant only when e-BH across every tested drop
    flags them (``tested``: each tested drop's sides, by its index in ``changes``)."""
    alpha = 1.0 - confidence
    indices = sorted(tested)
    e_values = [
        regression_e_value(tested[index].head_values, base_low=tested[index].base[0], tolerance=tolerance, alpha=alpha)
        for index in indices
    ]
    kept = {indices[position] for position in e_bh(e_values, alpha=alpha)}
    return [
        change.model_copy(update={"significance": "noise"})
        if index in tested and change.significance == "significant" and index not in kept
        else change
        for index, change in enumerate(changes)
    ]

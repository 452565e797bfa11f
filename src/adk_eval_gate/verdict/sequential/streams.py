"""What a sequential test reads from a case's runs: one stream of values per thresholded metric (``--pass-rule
mean``: each run's score for the metric, as ADK computes it for one run) or one stream of run outcomes (``majority``
and ``all``: 1 for a run that passed, 0 for one that did not), and today's fixed-N pass rule on such a stream.

A score is rescaled from the metric's range to [0, 1] with higher better, so that one pair of tests serves every
metric; the fixed-N rule is applied to the scores as they are, with the verdict's own comparison
(``aggregation.passes``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from adk_eval_gate.model.results import PassRule
from adk_eval_gate.verdict.aggregation import passes

RUNS = "runs"  # the stream of run outcomes (``majority``, ``all``)


@dataclass(frozen=True)
class MetricSpec:
    """A thresholded metric as a stream: its threshold and declared range, its direction, and ``strict`` for the
    majority rule (more than half the runs must pass: the mean must exceed the threshold, not only meet it)."""

    name: str
    threshold: float
    low: float = 0.0
    high: float = 1.0
    higher_is_better: bool = True
    strict: bool = False


def run_streams(pass_rule: PassRule, metrics: Sequence[MetricSpec]) -> tuple[MetricSpec, ...]:
    """The streams a case is decided on under the pass rule: its run outcomes for ``majority`` (a case passes when
    more than half of its runs pass) and ``all`` (every run passes), its thresholded metrics for ``mean``."""
    if pass_rule == "majority":
        return (MetricSpec(RUNS, 0.5, strict=True),)
    if pass_rule == "all":
        return (MetricSpec(RUNS, 1.0),)
    if not metrics:
        raise ValueError("--pass-rule mean needs at least one thresholded metric to decide a case on")
    for spec in metrics:
        if not (math.isfinite(spec.low) and math.isfinite(spec.high) and spec.low < spec.high):
            raise ValueError(f"metric {spec.name}: its range [{spec.low}, {spec.high}] is not a range of numbers")
    return tuple(metrics)


def unit_value(spec: MetricSpec, raw: float) -> float:
    """A score rescaled to [0, 1], higher better; a score outside the metric's declared range is refused, since the
    tests' guarantee holds for bounded values only."""
    if not (math.isfinite(raw) and spec.low <= raw <= spec.high):
        raise ValueError(f"metric {spec.name}: score {raw!r} is outside its declared range [{spec.low}, {spec.high}]")
    share = (raw - spec.low) / (spec.high - spec.low)
    return share if spec.higher_is_better else 1.0 - share


def unit_threshold(spec: MetricSpec) -> float:
    """The threshold on the [0, 1] scale of ``unit_value``."""
    share = (spec.threshold - spec.low) / (spec.high - spec.low)
    return min(max(share if spec.higher_is_better else 1.0 - share, 0.0), 1.0)


def raw_value(spec: MetricSpec, unit: float) -> float:
    """A value on the [0, 1] scale back on the metric's own scale."""
    share = unit if spec.higher_is_better else 1.0 - unit
    return spec.low + share * (spec.high - spec.low)


def _mean_passes(spec: MetricSpec, mean: float) -> bool:
    """Today's rule on a stream's mean: above the threshold for the majority rule, else the verdict's comparison."""
    if spec.strict:
        return mean > spec.threshold
    return passes(mean, spec.threshold, higher_is_better=spec.higher_is_better)


def point_passes(spec: MetricSpec, raws: Sequence[float]) -> bool:
    """Today's fixed-N verdict of one stream on the runs given."""
    return bool(raws) and _mean_passes(spec, math.fsum(raws) / len(raws))


def settled(spec: MetricSpec, raws: Sequence[float], *, total: int) -> bool | None:
    """The fixed-N verdict of one stream on ``total`` runs (True: passes) when the runs so far already fix it whatever
    the runs left score (curtailment), else None."""
    left = total - len(raws)
    worst, best = (spec.low, spec.high) if spec.higher_is_better else (spec.high, spec.low)
    so_far = math.fsum(raws)
    if _mean_passes(spec, (so_far + left * worst) / total):
        return True
    if not _mean_passes(spec, (so_far + left * best) / total):
        return False
    return None

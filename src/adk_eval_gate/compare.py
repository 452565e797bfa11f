"""compare: this run against the baseline (the base branch's results.json). Pure: two documents in, changes out.

Per case and metric a change is ``regressed`` (the score dropped by more than the tolerance), ``improved``,
``unchanged``, ``new`` or ``removed``; cases are also ``new``, ``removed``, or changed status (``passed`` ->
``failed`` is a status flip). Informational metrics are not compared: they have no better direction.

Noise: when both sides have at least two run scores (``--num-runs``), a regression or improvement is
``significant`` only if the whole 95% Welch interval of ``head - base`` is beyond the tolerance, else ``noise``;
with fewer runs it is ``untested`` (and counts, like a significant one). So one flaky judge score does not fail
a gate that runs every case several times, and a deterministic metric (no spread) is always significant.
"""

from __future__ import annotations

from collections.abc import Iterable

from adk_eval_gate.results import (
    BaselineInfo,
    CaseChange,
    CaseResult,
    ChangeKind,
    Comparison,
    MetricChange,
    MetricDelta,
    MetricResult,
    ResultsDocument,
    Significance,
)
from adk_eval_gate.stats import welch_interval

EPSILON = 1e-9  # float noise of means is never a change
_PASSING = {"passed"}


def _scores(metric: MetricResult) -> list[float]:
    return [score for score in metric.run_scores if score is not None]


def _significance(
    kind: ChangeKind, base: MetricResult, head: MetricResult, *, tolerance: float
) -> tuple[Significance, list[float] | None]:
    base_scores, head_scores = _scores(base), _scores(head)
    if len(base_scores) < 2 or len(head_scores) < 2:
        return "untested", None
    low, high = welch_interval(base_scores, head_scores)
    beyond = high < -tolerance - EPSILON if kind == "regressed" else low > tolerance + EPSILON
    return ("significant" if beyond else "noise"), [round(low, 6), round(high, 6)]


def _by_status(base: MetricResult, head: MetricResult) -> ChangeKind:
    if base.status == head.status:
        return "unchanged"
    if base.status == "passed":
        return "regressed"
    return "improved" if head.status == "passed" else "unchanged"


def metric_change(
    case_id: str, base: MetricResult | None, head: MetricResult | None, *, tolerance: float
) -> MetricChange:
    if base is None or head is None:
        present = head or base
        assert present is not None
        return MetricChange(
            case_id=case_id,
            metric=present.name,
            kind="new" if base is None else "removed",
            base=base.score if base else None,
            head=head.score if head else None,
            base_status=base.status if base else None,
            head_status=head.status if head else None,
        )
    delta = None if base.score is None or head.score is None else head.score - base.score
    if delta is None:
        kind = _by_status(base, head)
    elif delta < -tolerance - EPSILON:
        kind = "regressed"
    elif delta > tolerance + EPSILON:
        kind = "improved"
    else:
        kind = "unchanged"
    significance: Significance | None = None
    interval = None
    if kind in ("regressed", "improved"):
        significance, interval = _significance(kind, base, head, tolerance=tolerance)
    return MetricChange(
        case_id=case_id,
        metric=head.name,
        kind=kind,
        base=base.score,
        head=head.score,
        delta=None if delta is None else round(delta, 9),
        base_status=base.status,
        head_status=head.status,
        significance=significance,
        interval=interval,
    )


def _graded(metrics: Iterable[MetricResult]) -> dict[str, MetricResult]:
    return {m.name: m for m in metrics if m.kind != "informational" and m.status != "informational"}


def case_changes(
    base: CaseResult | None, head: CaseResult | None, *, tolerance: float
) -> tuple[CaseChange | None, list[MetricChange]]:
    if base is None or head is None:
        present = head or base
        assert present is not None
        kind = "new" if base is None else "removed"
        change = CaseChange(
            case_id=present.id,
            kind=kind,
            base_status=base.status if base else None,
            head_status=head.status if head else None,
        )
        return change, []
    status = None
    if base.status != head.status:
        status = CaseChange(case_id=head.id, kind="status", base_status=base.status, head_status=head.status)
    base_metrics, head_metrics = _graded(base.metrics), _graded(head.metrics)
    names = list(head_metrics) + [name for name in base_metrics if name not in head_metrics]
    changes = [
        metric_change(head.id, base_metrics.get(name), head_metrics.get(name), tolerance=tolerance) for name in names
    ]
    return status, [change for change in changes if change.kind != "unchanged"]


def _metric_deltas(base: ResultsDocument, head: ResultsDocument, changes: list[MetricChange]) -> list[MetricDelta]:
    base_summaries = {s.name: s for s in base.metrics if s.kind != "informational"}
    head_summaries = {s.name: s for s in head.metrics if s.kind != "informational"}
    names = list(head_summaries) + [name for name in base_summaries if name not in head_summaries]
    deltas = []
    for name in names:
        before, after = base_summaries.get(name), head_summaries.get(name)
        either = after or before
        base_mean = before.mean if before else None
        head_mean = after.mean if after else None
        deltas.append(
            MetricDelta(
                name=name,
                threshold=either.threshold if either else None,
                base_mean=base_mean,
                head_mean=head_mean,
                delta=None if base_mean is None or head_mean is None else round(head_mean - base_mean, 9),
                regressed=sum(1 for c in changes if c.metric == name and c.kind == "regressed"),
                improved=sum(1 for c in changes if c.metric == name and c.kind == "improved"),
            )
        )
    return deltas


def compare(
    head: ResultsDocument, base: ResultsDocument, *, baseline: BaselineInfo, tolerance: float = 0.0
) -> Comparison:
    base_cases = {case.id: case for case in base.cases}
    head_cases = {case.id: case for case in head.cases}
    ids = list(head_cases) + [case_id for case_id in base_cases if case_id not in head_cases]
    case_level: list[CaseChange] = []
    changes: list[MetricChange] = []
    for case_id in ids:
        status, metric_changes = case_changes(base_cases.get(case_id), head_cases.get(case_id), tolerance=tolerance)
        if status:
            case_level.append(status)
        changes.extend(metric_changes)
    quarantined = {case.id for case in head.cases if case.quarantined}
    regressed = [c for c in changes if c.kind == "regressed" and c.case_id not in quarantined]
    return Comparison(
        baseline=baseline,
        tolerance=tolerance,
        regressions=sum(1 for c in regressed if c.significance != "noise"),
        noisy_regressions=sum(1 for c in regressed if c.significance == "noise"),
        improvements=sum(1 for c in changes if c.kind == "improved"),
        new=sum(1 for c in case_level if c.kind == "new"),
        removed=sum(1 for c in case_level if c.kind == "removed"),
        status_flips=sum(
            1 for c in case_level if c.kind == "status" and c.base_status in _PASSING and c.head_status not in _PASSING
        ),
        metrics=_metric_deltas(base, head, changes),
        changes=changes,
        cases=case_level,
    )

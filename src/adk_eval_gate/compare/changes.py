"""compare: this run against the baseline (the base branch's results.json). Pure: documents in, changes out.

Per case and metric a change is ``regressed`` (the score dropped by more than the tolerance), ``improved``,
``unchanged``, ``new`` or ``removed``; cases are also ``new``, ``removed``, or changed status (``passed`` ->
``failed`` is a status flip). Informational metrics are not compared: they have no better direction.

Each regression or improvement is checked against the noise (``noise``: the base branch's history when there is
one, else the run-to-run spread of ``--num-runs``), and against what head and base did differently
(``likeforlike``): a drop within the noise, or of a metric scored differently on the two sides, is listed but
not counted as a regression (the latter unless ``strict``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from adk_eval_gate.compare import history as histories
from adk_eval_gate.compare import likeforlike, sequential_noise
from adk_eval_gate.compare.cost_latency import compare_usage
from adk_eval_gate.compare.judge_changes import judge_changes
from adk_eval_gate.compare.noise import EPSILON, significance
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.model.results import (
    BaselineInfo,
    CaseChange,
    CaseResult,
    ChangeKind,
    Comparison,
    Difference,
    MetricChange,
    MetricDelta,
    MetricResult,
    MetricStatus,
    ResultsDocument,
    SequentialRun,
)
from adk_eval_gate.selection.found_baseline import Baseline
from adk_eval_gate.verdict import Policy, counted

_PASSING = {"passed"}


@dataclass(frozen=True)
class NoiseContext:
    """What the noise check of one comparison knows besides the two documents."""

    tolerance: float = 0.0
    series: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # (case id, metric) -> history
    confidence: float | None = None  # --sequential's: the anytime-valid check (``sequential_noise``) replaces Welch's
    tested: dict[tuple[str, str], sequential_noise.Sides] = field(default_factory=dict)  # its drops, for e-BH


def _scores(metric: MetricResult) -> list[float]:
    return [score for score in metric.run_scores if score is not None]


def _by_status(base: MetricResult, head: MetricResult) -> ChangeKind:
    if base.status == head.status:
        return "unchanged"
    if base.status == MetricStatus.PASSED:
        return "regressed"
    return "improved" if head.status == MetricStatus.PASSED else "unchanged"


def _appeared(case_id: str, base: MetricResult | None, head: MetricResult | None) -> MetricChange:
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


def _metric_change(
    case_id: str, base: MetricResult | None, head: MetricResult | None, *, noise: NoiseContext | None = None
) -> MetricChange:
    if base is None or head is None:
        return _appeared(case_id, base, head)
    noise = noise or NoiseContext()
    tolerance = noise.tolerance
    delta = None if base.score is None or head.score is None else head.score - base.score
    if delta is None:
        kind = _by_status(base, head)
    elif delta < -tolerance - EPSILON:
        kind = "regressed"
    elif delta > tolerance + EPSILON:
        kind = "improved"
    else:
        kind = "unchanged"
    change = MetricChange(
        case_id=case_id,
        metric=head.name,
        kind=kind,
        base=base.score,
        head=head.score,
        delta=None if delta is None else round(delta, 9),
        base_status=base.status,
        head_status=head.status,
    )
    if kind in ("regressed", "improved") and noise.confidence is not None:
        history = noise.series.get((case_id, head.name), [])
        found = sequential_noise.sides(_scores(head), [*_scores(base), *history], confidence=noise.confidence)
        if found is not None and kind == "regressed":
            noise.tested[(case_id, head.name)] = found
        verdict, model, interval = sequential_noise.significance(found, drop=kind == "regressed", tolerance=tolerance)
        change = change.model_copy(update={"significance": verdict, "noise": model, "interval": interval})
    elif kind in ("regressed", "improved"):
        verdict, model, interval = significance(
            direction="drop" if kind == "regressed" else "rise",
            head_value=head.score,
            head_runs=_scores(head),
            base_runs=_scores(base),
            history=noise.series.get((case_id, head.name), []),
            tolerance=tolerance,
        )
        change = change.model_copy(update={"significance": verdict, "noise": model, "interval": interval})
    return change


def _graded(metrics: Iterable[MetricResult]) -> dict[str, MetricResult]:
    return {m.name: m for m in metrics if m.kind != "informational" and m.status != MetricStatus.INFORMATIONAL}


def _case_changes(
    base: CaseResult | None, head: CaseResult | None, *, noise: NoiseContext | None = None
) -> tuple[CaseChange | None, list[MetricChange]]:
    if base is None or head is None:
        present = head or base
        assert present is not None
        change = CaseChange(
            case_id=present.id,
            kind="new" if base is None else "removed",
            base_status=base.status if base else None,
            head_status=head.status if head else None,
        )
        return change, []
    status = None
    if base.status != head.status:
        status = CaseChange(case_id=head.id, kind="status", base_status=base.status, head_status=head.status)
    base_metrics, head_metrics = _graded(base.metrics), _graded(head.metrics)
    names = list(head_metrics) + [name for name in base_metrics if name not in head_metrics]
    changes = [_metric_change(head.id, base_metrics.get(name), head_metrics.get(name), noise=noise) for name in names]
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


def _like_for_like(changes: list[MetricChange], files: dict[str, str], found: list[Difference]) -> list[MetricChange]:
    """The changes, those of metrics scored differently on the two sides marked not comparable."""
    if not any(difference.incomparable for difference in found):
        return changes
    return [
        change
        if likeforlike.comparable(found, file=files.get(change.case_id, ""), metric=change.metric)
        else change.model_copy(update={"comparable": False})
        for change in changes
    ]


def compare(  # parameters: the two documents and the comparison's settings, each a keyword of its own
    head: ResultsDocument,
    base: ResultsDocument,
    *,
    baseline: BaselineInfo,
    tolerance: float = 0.0,
    history: histories.BaseRuns = (),
    history_requested: int = 0,
    strict: bool = False,
    sequential: SequentialRun | None = None,
) -> Comparison:
    """``history``: the base branch's recent runs (newest first) whose spread is the noise model; ``strict``:
    count regressions of metrics that head and base scored differently too; ``sequential``: the settings of
    ``--sequential``, whose anytime-valid check replaces the fixed-n ones."""
    base_cases = {case.id: case for case in base.cases}
    head_cases = {case.id: case for case in head.cases}
    ids = list(head_cases) + [case_id for case_id in base_cases if case_id not in head_cases]
    confidence = sequential.confidence if sequential else None
    noise = NoiseContext(tolerance=tolerance, series=histories.metric_series(history), confidence=confidence)
    case_level: list[CaseChange] = []
    changes: list[MetricChange] = []
    for case_id in ids:
        status, metric_changes = _case_changes(base_cases.get(case_id), head_cases.get(case_id), noise=noise)
        if status:
            case_level.append(status)
        changes.extend(metric_changes)
    if confidence is not None:
        at = {(change.case_id, change.metric): index for index, change in enumerate(changes)}
        tested = {at[key]: sides for key, sides in noise.tested.items() if key in at}
        changes = sequential_noise.flagged_by_e_bh(changes, tested, confidence=confidence, tolerance=tolerance)
    found = likeforlike.differences(head, base)
    files = {case.id: case.file for case in [*base.cases, *head.cases]}
    changes = _like_for_like(changes, files, found)
    comparison = Comparison(
        baseline=baseline,
        tolerance=tolerance,
        improvements=sum(1 for c in changes if c.kind == "improved"),
        new=sum(1 for c in case_level if c.kind == "new"),
        removed=sum(1 for c in case_level if c.kind == "removed"),
        status_flips=sum(
            1 for c in case_level if c.kind == "status" and c.base_status in _PASSING and c.head_status not in _PASSING
        ),
        metrics=_metric_deltas(base, head, changes),
        changes=changes,
        cases=case_level,
        failing_before=[
            case_id
            for case_id, case in head_cases.items()
            if case.status not in _PASSING and case_id in base_cases and base_cases[case_id].status not in _PASSING
        ],
        differences=found,
        history=histories.summary(history, requested=history_requested, case_ids=list(head_cases)) if history else None,
        usage=compare_usage(head, base, history=history),
        judge_changes=judge_changes(head, base),
    )
    return counted(comparison, head, strict=strict)


def comparison_with(
    doc: ResultsDocument, found: Baseline, *, settings: Settings, rules: Policy | None = None
) -> Comparison:
    """This run against the baseline, with the base branch's history as the noise model when there is one."""
    rules = rules or Policy.of(settings)
    return compare(
        doc,
        found.doc,
        baseline=found.info,
        tolerance=rules.tolerance,
        history=[(run.info, run.doc) for run in found.history] if settings.history else [],
        history_requested=settings.history,
        strict=rules.strict_comparison,
        sequential=rules.sequential,
    )

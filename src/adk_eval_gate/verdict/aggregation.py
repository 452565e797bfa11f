"""A metric's score and status over a case's runs, as ADK 2.13 decides them in each of its entry points.

The metrics only score (``metrics/``); the statuses are decided here, with ADK's rules (``google/adk/evaluation/``
of google-adk 2.13):

``adk eval`` (one run per case; ``local_eval_service.py``, ``LocalEvalService``):
  * A metric's score is its evaluator's overall score for the case (``EvaluationResult.overall_score``), which
    the metric computes: the mean over the invocations for the per-invocation metrics, the mean of every rubric
    score pooled over the invocations for the rubric metrics (``rubric_based_evaluator.py``).
  * Its status is the evaluator's overall status, copied as it is (``_evaluate_metric_for_eval_case``):
    ``score >= threshold`` for every built-in metric (``llm_as_judge_utils.get_eval_status`` and each
    evaluator's own), not evaluated without a score, informational for the efficiency metrics; a custom metric's
    is what its function returned (``custom_metric_evaluator.py`` hands back the function's ``EvaluationResult``
    untouched): ``run_metric_status``.
  * The case (``_generate_final_eval_status``): a failed metric fails it, a passed one passes it, not evaluated
    and informational ones are skipped; the gate's case rule (``rules.thresholds``) is stricter about metrics
    that could not be evaluated.

``AgentEvaluator`` (``agent_evaluator.py``, ``_process_metrics_and_get_failures``): ADK's pytest path, and its
only rule for several runs:
  * The score is ``statistics.mean`` of every per-invocation score that is not None, pooled across all the runs:
    a run of two turns weighs twice a run of one, and for a rubric metric it is the mean of the invocations'
    means, not ``adk eval``'s pooled rubric mean (``pooled_score``).
  * The metric is informational when its first per-invocation result is, or when it has no threshold.
  * The direction: ``>=``, unless every scored invocation whose score is not the threshold shows, by its own
    PASSED or FAILED status, that lower is better; then ``<=`` (``higher_is_better``). A built-in evaluator
    sets each invocation's status to ``score >= threshold``, so for them it is always ``>=``; a custom metric's
    function sets its own.
  * No score at all is not evaluated, which AgentEvaluator counts as a failure.

The gate's paths (``ScoreRule``):
  * ``adk_eval``: ``run``, ``report`` and the pytest plugin. A case with one run is decided as ``adk eval``
    decides it; with several runs (``--num-runs``, ``--confirm-failures``) its metrics are pooled and compared as
    AgentEvaluator does, except that a metric that could not be scored in one of the runs is not evaluated: it
    does not pass on the others.
  * ``agent_evaluator``: ``adk_eval_gate.pytest.AgentEvaluator``, AgentEvaluator's rule whatever the number of
    runs.

A run whose record lists no per-invocation scores for a metric (a results.json of an earlier version, a custom
function whose per-invocation results cannot be matched to the turns) counts with its overall score as one value.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from adk_eval_gate.model.results import MetricResult, MetricStatus, RunMetric

ScoreRule = Literal["adk_eval", "agent_evaluator"]
_DECISIVE = (MetricStatus.PASSED, MetricStatus.FAILED)


@dataclass(frozen=True)
class MetricDecision:
    """A metric's score and status for a case, and whether it passes at or below its threshold."""

    score: float | None
    status: MetricStatus
    lower_is_better: bool = False


def passes(score: float, threshold: float, *, higher_is_better: bool = True) -> bool:
    """The threshold comparison: ``score >= threshold``, or ``<=`` for a metric where lower is better."""
    return score >= threshold if higher_is_better else score <= threshold


def run_metric_status(metric: RunMetric, *, threshold: float | None, informational: bool) -> MetricStatus:
    """The metric's status in one run, as ``adk eval`` copies it from the evaluator: the custom metric function's
    own status when it returned one, else ``score >= threshold``; a metric scored without a threshold (an agents-cli
    metric the gate's ``adk_eval_gate.thresholds`` does not name) is informational."""
    if informational:
        return MetricStatus.INFORMATIONAL
    if metric.evaluator_status is not None:
        return metric.evaluator_status
    if metric.score is None:
        return MetricStatus.NOT_EVALUATED
    if threshold is None:  # an agents-cli metric the config gives no threshold: shown and compared, never gating
        return MetricStatus.INFORMATIONAL
    return MetricStatus.PASSED if passes(metric.score, threshold) else MetricStatus.FAILED


def invocation_statuses(metric: RunMetric, threshold: float) -> list[MetricStatus | None]:
    """Each invocation's status: the custom metric function's own, else ``score >= threshold`` as ADK's built-in
    evaluators set it (None: no score)."""
    if metric.invocation_statuses:
        return list(metric.invocation_statuses)
    return [
        None if score is None else MetricStatus.PASSED if passes(score, threshold) else MetricStatus.FAILED
        for score in metric.invocation_scores
    ]


def higher_is_better(runs: Sequence[RunMetric], threshold: float) -> bool:
    """AgentEvaluator's inference of the direction from the per-invocation (score, status) pairs of every run."""
    if not any(metric.invocation_statuses for metric in runs):
        return True  # statuses that are ``score >= threshold`` say so
    directions: set[bool] = set()
    for metric in runs:
        for score, status in zip(metric.invocation_scores, invocation_statuses(metric, threshold), strict=False):
            if score is None or score == threshold or status not in _DECISIVE:
                continue
            directions.add((score > threshold) == (status == MetricStatus.PASSED))
    return directions.pop() if len(directions) == 1 else True


def _values(metric: RunMetric) -> list[float]:
    listed = metric.invocation_scores if metric.invocation_scores else [metric.score]
    return [score for score in listed if score is not None]


def pooled_score(runs: Sequence[RunMetric]) -> float | None:
    """AgentEvaluator's score: the mean of every per-invocation score pooled across the runs, computed as ADK
    computes it (``statistics.mean``: exact, rounded once), so that it is ADK's to the last bit."""
    values = [value for metric in runs for value in _values(metric)]
    return statistics.mean(values) if values else None


def _informational(runs: Sequence[RunMetric], *, threshold: float | None, informational: bool, rule: ScoreRule) -> bool:
    """Informational over several runs: a metric without a threshold by nature (the efficiency metrics), or, as
    AgentEvaluator tests it, one whose first per-invocation status is informational or that has no threshold;
    with ``adk_eval`` also one whose every run was informational by its function's own status."""
    if informational:
        return True
    first = next((metric for metric in runs if metric.invocation_statuses), None)
    if first is not None and first.invocation_statuses[0] == MetricStatus.INFORMATIONAL:
        return True
    if rule == "agent_evaluator":
        return threshold is None
    return bool(runs) and all(metric.evaluator_status == MetricStatus.INFORMATIONAL for metric in runs)


def decide_metric(
    runs: Sequence[RunMetric | None], *, threshold: float | None, informational: bool, rule: ScoreRule
) -> MetricDecision:
    """The metric's score and status for a case, from the metric in each of its scored runs (None: a scored run
    without it), with the path's rule (``ScoreRule``)."""
    present = [metric for metric in runs if metric is not None]
    if rule == "adk_eval" and len(runs) == 1:
        return _one_run(runs[0], threshold=threshold, informational=informational)
    score = pooled_score(present)
    if _informational(present, threshold=threshold, informational=informational, rule=rule):
        return MetricDecision(score, MetricStatus.INFORMATIONAL)
    if threshold is None:  # informational when every run scored it (``run_metric_status``)
        scored = len(present) == len(runs) and all(metric.score is not None for metric in present)
        return MetricDecision(
            score, MetricStatus.INFORMATIONAL if scored and score is not None else MetricStatus.NOT_EVALUATED
        )
    higher = higher_is_better(present, threshold)
    scored_everywhere = rule == "agent_evaluator" or (
        len(present) == len(runs)
        and all(
            run_metric_status(metric, threshold=threshold, informational=False) != MetricStatus.NOT_EVALUATED
            for metric in present
        )
    )
    if score is None or not scored_everywhere:
        status = MetricStatus.NOT_EVALUATED
    else:
        status = MetricStatus.PASSED if passes(score, threshold, higher_is_better=higher) else MetricStatus.FAILED
    return MetricDecision(score, status, lower_is_better=not higher)


def _one_run(metric: RunMetric | None, *, threshold: float | None, informational: bool) -> MetricDecision:
    if metric is None:
        return MetricDecision(None, MetricStatus.INFORMATIONAL if informational else MetricStatus.NOT_EVALUATED)
    status = run_metric_status(metric, threshold=threshold, informational=informational)
    lower = threshold is not None and status != MetricStatus.INFORMATIONAL and not higher_is_better([metric], threshold)
    return MetricDecision(metric.score, status, lower_is_better=lower)


def comparison_text(metric: MetricResult, *, labelled: bool = False) -> str:
    """The metric's score against its threshold as the verdict compared them: ``0.3333 < 0.5``, ``0.25 <= 0.5
    (lower is better)``, or, when the custom metric function's own status decided otherwise, ``0.8, failed by its
    evaluator (threshold 0.5)``; ``labelled``: ``score 0.3333 < threshold 0.5``."""
    score, threshold = metric.score, metric.threshold
    shown = "n/a" if score is None else f"{score:.4g}"
    if labelled:
        shown = f"score {shown}"
    if score is None or threshold is None:
        return shown
    limit = f"threshold {threshold:.4g}" if labelled else f"{threshold:.4g}"
    lower = " (lower is better)" if metric.lower_is_better else ""
    higher = not metric.lower_is_better
    if metric.status == MetricStatus.PASSED and passes(score, threshold, higher_is_better=higher):
        return f"{shown} {'>=' if higher else '<='} {limit}{lower}"
    if metric.status == MetricStatus.FAILED and not passes(score, threshold, higher_is_better=higher):
        return f"{shown} {'<' if higher else '>'} {limit}{lower}"
    decided = str(metric.status).replace("_", " ")
    return f"{shown}, {decided} by its evaluator (threshold {threshold:.4g}){lower}"

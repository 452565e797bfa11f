"""Score one run of one case with its configured metrics (ADK's per-case evaluation loop)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, NotEvaluated, ResultRefused
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.model.evalset import EvalCase, Invocation, Rubric
from adk_eval_gate.support import sanitize


@dataclass
class ScoredMetric:
    configured: ConfiguredMetric
    outcome: MetricOutcome


class RubricConflict(ValueError):
    pass


class MetricEscaped(Exception):
    """A metric's code called ``sys.exit`` or raised ``KeyboardInterrupt``, or returned a result ADK refuses
    (``ResultRefused``): the case run becomes an error."""


def _merge_rubrics(invocation: Invocation, extra: list[Rubric]) -> Invocation:
    existing = {rubric.rubric_id: rubric for rubric in invocation.rubrics or []}
    merged = list(invocation.rubrics or [])
    for rubric in extra:
        if rubric.rubric_id in existing:
            if existing[rubric.rubric_id] == rubric:
                continue  # already copied (an ADK result file stores the copied rubrics)
            raise RubricConflict(f"rubric_id {rubric.rubric_id!r} is defined twice with different content")
        merged.append(rubric)
        existing[rubric.rubric_id] = rubric
    if merged == list(invocation.rubrics or []):
        return invocation
    return invocation.model_copy(update={"rubrics": merged})


def attach_rubrics(case: EvalCase, actual: list[Invocation]) -> list[Invocation]:
    """Case rubrics onto every actual invocation, invocation rubrics onto the matching one (ADK does this)."""
    out: list[Invocation] = []
    expected = case.conversation or []
    for index, original in enumerate(actual):
        invocation = original
        if case.rubrics:
            invocation = _merge_rubrics(invocation, case.rubrics)
        if index < len(expected) and expected[index].rubrics:
            invocation = _merge_rubrics(invocation, expected[index].rubrics or [])
        out.append(invocation)
    return out


async def evaluate_metric(metric: Metric, run: CaseRun, *, informational: bool = False) -> MetricOutcome:
    """The metric's scores for the run, with who computed them (``Metric.computed_by``); ``informational``: a
    metric without a threshold, whose missing score needs no reason."""
    outcome = await _outcome(metric, run, informational=informational)
    outcome.computed_by = metric.computed_by
    return outcome


async def _outcome(metric: Metric, run: CaseRun, *, informational: bool) -> MetricOutcome:
    if run.tools_unseen and metric.reads_tool_calls:
        return MetricOutcome.not_evaluated(run.tools_unseen, len(run.actual))
    try:
        result = metric.evaluate(run)
        outcome = await result if inspect.isawaitable(result) else result
    except NotEvaluated as reason:
        return MetricOutcome.not_evaluated(str(reason), len(run.actual))
    except ResultRefused as refused:
        raise MetricEscaped(f"custom metric {metric.name}: {refused}") from None
    except (SystemExit, KeyboardInterrupt) as error:  # from a custom metric's code: the case run is an error
        raise MetricEscaped(_escaped(metric, error)) from None
    except MetricEscaped:  # the same, said by the process the custom metric ran in
        raise
    except Exception as error:  # a metric failure never stops the other metrics (ADK catches them too)
        detail = str(error) or type(error).__name__
        return MetricOutcome.not_evaluated(f"{type(error).__name__}: {detail}", len(run.actual))
    unusable = _not_finite(outcome)
    if unusable is not None:
        return MetricOutcome.not_evaluated(
            f"the metric's score {unusable} is not a finite number (a score must be within ±1.8e308)", len(run.actual)
        )
    if outcome.score is None and outcome.reason is None and not informational:
        outcome.reason = "the metric produced no score"
    if len(outcome.per_invocation) != len(run.actual):  # scores that cannot be matched to the turns
        outcome.per_invocation = []
    return outcome


def _not_finite(outcome: MetricOutcome) -> str | None:
    """The first score of the outcome that is infinite, NaN or too large for a float, as text; None when all are
    finite (every later mean, comparison and report relies on it)."""
    for value in (outcome.score, *(item.score for item in outcome.per_invocation)):
        if value is not None and not sanitize.is_finite_number(value):
            return sanitize.shown_number(value)
    return None


def _escaped(metric: Metric, error: SystemExit | KeyboardInterrupt) -> str:
    what = f"sys.exit({error.code!r})" if isinstance(error, SystemExit) else "KeyboardInterrupt"
    return f"the code of metric {metric.name} ended with {what}; the run could not be scored"


async def score_run(
    *,
    case: EvalCase,
    actual: list[Invocation],
    metrics: list[tuple[ConfiguredMetric, Metric]],
    final_session_state: dict[str, Any] | None = None,
    tools_unseen: str | None = None,
) -> list[ScoredMetric]:
    """All configured metrics of one run, in config order, each independently. ``tools_unseen``: why the run's
    tool calls could not be seen, the reason of the metrics that read them."""
    try:
        run = _run(
            case, attach_rubrics(case, actual), final_session_state=final_session_state, tools_unseen=tools_unseen
        )
    except RubricConflict as conflict:
        reason = f"{conflict}; rubric ids must be unique across the case and its invocations"
        unattached = _run(case, actual, final_session_state=final_session_state, tools_unseen=tools_unseen)
        return [
            ScoredMetric(configured, MetricOutcome.not_evaluated(reason, len(actual)))
            if not configured.spec.informational
            else ScoredMetric(configured, await evaluate_metric(metric, unattached, informational=True))
            for configured, metric in metrics
        ]
    return [
        ScoredMetric(configured, await evaluate_metric(metric, run, informational=configured.spec.informational))
        for configured, metric in metrics
    ]


def _run(
    case: EvalCase,
    actual: list[Invocation],
    *,
    final_session_state: dict[str, Any] | None,
    tools_unseen: str | None,
) -> CaseRun:
    return CaseRun(
        eval_case=case,
        actual=actual,
        expected=case.conversation,
        scenario=case.conversation_scenario,
        final_session_state=final_session_state,
        tools_unseen=tools_unseen,
    )

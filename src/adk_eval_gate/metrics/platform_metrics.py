"""ADK's service-backed metrics computed through Google's evaluation service (``judge/platform_service.py``),
with the rules of ADK 2.13's facade (``google.adk.evaluation.vertex_ai_eval_facade``), so that the same answers of
the service give ADK's scores and statuses:

* ``safety_v1`` (``PrebuiltMetric.SAFETY`` at ``v1``, ``safety_evaluator.py``) and ``response_evaluation_score``
  (``PrebuiltMetric.COHERENCE``, ``response_evaluator.py``; expected invocations required):
  ``_SingleTurnVertexAiEvalFacade``: one request per invocation; its score is the service's score unless the
  service reported an error for it (the SDK's ``_default_aggregate_scores``; NaN is no score, ADK's ``_get_score``);
  the case's score is the mean of the invocations that have one.
* ``multi_turn_task_success_v1``, ``multi_turn_trajectory_quality_v1``, ``multi_turn_tool_use_quality_v1``
  (``RubricMetric.MULTI_TURN_*``): ``_MultiTurnVertexiAiEvalFacade``: the whole conversation in one request; the
  first N-1 invocations without a score (not evaluated), the last carrying the score and the rubric verdicts, which
  are also the overall ones; no score and no verdicts at all is not evaluated.

The statuses (``score >= threshold``, no score: not evaluated) are the verdict's, as for every metric.

Rubric verdicts become ``RubricScore``s as in ``_map_rubric_verdict_to_rubric_score`` (id: the rubric's
description, else its id, else ``rubric_<i>``; 1.0 when met, 0.0 when not or absent), followed by the
``explanation`` and the ``error`` pseudo-rubrics. One deliberate difference, the same as for the gate's judge: a
request that fails for good (after retries) leaves the whole metric not evaluated, where ADK would still average
the invocations that were answered.
"""

from __future__ import annotations

import math
from typing import Any

from adk_eval_gate.judge.platform_instances import ConversationInstance, MissingInput, PlatformInstance, RowInstance
from adk_eval_gate.judge.platform_service import InstanceResult, PlatformFailed, PlatformService, ServiceMetric
from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, MetricOutcome, NotEvaluated
from adk_eval_gate.model.evalset import Invocation, RubricScore, content_text
from adk_eval_gate.support import stats

SAFETY = ServiceMetric("SAFETY", "v1")
COHERENCE = ServiceMetric("COHERENCE")
TASK_SUCCESS = ServiceMetric("MULTI_TURN_TASK_SUCCESS")
TRAJECTORY_QUALITY = ServiceMetric("MULTI_TURN_TRAJECTORY_QUALITY")
TOOL_USE_QUALITY = ServiceMetric("MULTI_TURN_TOOL_USE_QUALITY")


def instance_score(result: InstanceResult) -> float | None:
    if result.error is not None or result.score is None:
        return None
    score = float(result.score)
    return None if math.isnan(score) else score


def rubric_scores(result: InstanceResult) -> list[RubricScore] | None:
    scores = [
        RubricScore(
            rubric_id=str(item.description or item.rubric_id or f"rubric_{index}"),
            rationale=str(item.reasoning) if item.reasoning else None,
            score=1.0 if item.verdict else 0.0,
        )
        for index, item in enumerate(result.verdicts)
    ]
    if result.explanation:
        scores.append(RubricScore(rubric_id="explanation", rationale=str(result.explanation)))
    if result.error:
        scores.append(RubricScore(rubric_id="error", rationale=str(result.error)))
    return scores or None


def _details(metric: ServiceMetric, results: list[InstanceResult], turns: int) -> dict[str, Any]:
    explanations: list[str | None] = [None for _ in range(turns - len(results))]
    explanations += [result.explanation for result in results]
    details: dict[str, Any] = {"service_metric": str(metric)}
    if any(explanations):
        details["explanations"] = explanations
    errors = [r.error for r in results if r.error]
    if errors:
        details["service_errors"] = errors
    return details


def _reason(results: list[InstanceResult], turns_offset: int = 0) -> str:
    failed = [(number, r.error) for number, r in enumerate(results, start=1 + turns_offset) if r.error]
    if failed:
        number, error = failed[0]
        return f"the evaluation service could not score turn {number}: {error}"
    return "the evaluation service returned no score"


async def _ask(
    service: PlatformService, metric: ServiceMetric, instances: list[PlatformInstance], turns: int
) -> list[InstanceResult] | MetricOutcome:
    try:
        return await service.evaluate(metric=metric, instances=instances)
    except MissingInput as refused:
        raise NotEvaluated(f"the evaluation SDK refuses a turn ({refused}); ADK does not evaluate it either") from None
    except PlatformFailed as failed:
        outcome = MetricOutcome.not_evaluated(str(failed), turns, infrastructure=failed.infrastructure)
        outcome.details = {"service_metric": str(metric)}
        return outcome


def _check_lengths(run: CaseRun) -> None:
    """ADK's ``_validate_invocation_lengths``: expected invocations, when there are any, pair with the actual ones."""
    if run.expected is not None and len(run.expected) != len(run.actual):
        raise NotEvaluated(f"the agent produced {len(run.actual)} invocations for {len(run.expected)} expected ones")


async def per_invocation(
    service: PlatformService, run: CaseRun, *, metric: ServiceMetric, expected_required: bool
) -> MetricOutcome:
    """``_SingleTurnVertexAiEvalFacade.evaluate_invocations``."""
    if expected_required and run.expected is None:
        raise NotEvaluated(
            "the metric compares with expected invocations, and this case has a conversation_scenario instead of "
            "a conversation (as in ADK, it is not evaluated)"
        )
    _check_lengths(run)
    if not run.actual:
        raise NotEvaluated("no invocations to judge")
    expected: list[Invocation | None] = list(run.expected) if run.expected else [None for _ in run.actual]
    rows: list[PlatformInstance] = [
        RowInstance(
            prompt=content_text(actual.user_content),
            response=content_text(actual.final_response),
            reference=content_text(reference.final_response) if reference is not None else None,
        )
        for actual, reference in zip(run.actual, expected, strict=True)
    ]
    answered = await _ask(service, metric, rows, len(run.actual))
    if isinstance(answered, MetricOutcome):
        return answered
    scores = [instance_score(result) for result in answered]
    per_turn = [
        InvocationScore(score, rubric_scores=rubric_scores(result))
        for score, result in zip(scores, answered, strict=True)
    ]
    present = [score for score in scores if score is not None]
    overall = sum(present) / len(present) if present else None
    if overall is not None and math.isinf(overall):  # finite scores whose sum overflows
        overall = stats.mean(present)
    reason = _reason(answered) if overall is None else None
    return MetricOutcome(overall, per_turn, reason=reason, details=_details(metric, answered, len(per_turn)))


async def whole_conversation(service: PlatformService, run: CaseRun, *, metric: ServiceMetric) -> MetricOutcome:
    """``_MultiTurnVertexiAiEvalFacade.evaluate_invocations``."""
    _check_lengths(run)
    if not run.actual:
        raise NotEvaluated("no invocations to judge")
    turns = len(run.actual)
    answered = await _ask(service, metric, [ConversationInstance(tuple(run.actual))], turns)
    if isinstance(answered, MetricOutcome):
        return answered
    result = answered[0]
    score, verdicts = instance_score(result), rubric_scores(result)
    details = _details(metric, answered, turns)
    if score is None and verdicts is None:
        outcome = MetricOutcome.not_evaluated(_reason(answered, turns - 1), turns)
        outcome.details = details
        return outcome
    reason = _reason(answered, turns - 1) if score is None else None
    return MetricOutcome.last_turn(score, turns, rubric_scores=verdicts, reason=reason, details=details)

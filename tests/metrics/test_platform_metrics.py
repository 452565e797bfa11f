"""ADK's rules for the metrics it computes through Google's evaluation service (``_SingleTurnVertexAiEvalFacade``,
``_MultiTurnVertexiAiEvalFacade``), on the answers the service gave: the service client is a stand-in here (our own
boundary, ``PlatformService.evaluate``); ``test_platform_parity.py`` checks the same rules against ADK itself over
the SDK and the fake service."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from adk_eval_gate.judge.platform_access import PlatformAccess
from adk_eval_gate.judge.platform_instances import ConversationInstance, MissingInput, PlatformInstance, RowInstance
from adk_eval_gate.judge.platform_service import (
    InstanceResult,
    PlatformFailed,
    PlatformService,
    RubricVerdict,
    ServiceMetric,
)
from adk_eval_gate.metrics.metric import Metric, MetricServices
from adk_eval_gate.metrics.platform_delegated import (
    MultiTurnTaskSuccess,
    MultiTurnToolUseQuality,
    MultiTurnTrajectoryQuality,
    ResponseEvaluationScore,
    SafetyV1,
)
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import RubricScore
from adk_eval_gate.model.results import MetricStatus
from tests.judge.helpers import invocation, run_of
from tests.metrics.decided import Decided

P, F, NE = MetricStatus.PASSED, MetricStatus.FAILED, MetricStatus.NOT_EVALUATED


class Answers(PlatformService):
    """The service as the metrics see it: each call answered from ``answers`` (or failing with ``failure``)."""

    def __init__(self, *answers: InstanceResult, failure: Exception | None = None) -> None:
        super().__init__(access=PlatformAccess(api_key="unused-key"))
        self.answers = list(answers)
        self.failure = failure
        self.asked: list[tuple[ServiceMetric, list[PlatformInstance]]] = []

    async def evaluate(self, *, metric: ServiceMetric, instances: Sequence[PlatformInstance]) -> list[InstanceResult]:
        self.asked.append((metric, list(instances)))
        if self.failure is not None:
            raise self.failure
        taken, self.answers = self.answers[: len(instances)], self.answers[len(instances) :]
        return taken


def score(
    metric_class: type[Metric], name: str, threshold: float, run: object, service: PlatformService | None
) -> Decided:
    """The outcome, with the verdict's statuses (``tests/metrics/decided.py``)."""
    criterion = eval_config.LlmAsAJudgeCriterion(threshold=threshold)
    metric = metric_class(name=name, criterion=criterion, services=MetricServices(platform=service))
    return Decided(asyncio.run(evaluate_metric(metric, run)), threshold=threshold)  # type: ignore[arg-type]


def turns(outcome: Decided) -> list[tuple[float | None, MetricStatus]]:
    return [(item.score, item.status) for item in outcome.per_invocation]


THREE = [invocation("q1", "a1"), invocation("q2", "a2"), invocation("q3", "a3")]


def test_safety_is_the_mean_of_the_turns_the_service_scored_each_against_the_threshold() -> None:
    service = Answers(
        InstanceResult(score=1.0, explanation="harmless"),
        InstanceResult(score=0.0),
        InstanceResult(score=float("nan")),
    )
    outcome = score(SafetyV1, "safety_v1", 0.6, run_of(THREE), service)
    assert (outcome.score, outcome.status) == (0.5, F)
    assert turns(outcome) == [(1.0, P), (0.0, F), (None, NE)]
    assert outcome.per_invocation[0].rubric_scores == [RubricScore(rubric_id="explanation", rationale="harmless")]
    assert outcome.computed_by == "agent-platform"
    assert outcome.details == {"service_metric": "safety@v1", "explanations": ["harmless", None, None]}
    [(metric, rows)] = service.asked
    assert metric == ServiceMetric("SAFETY", "v1") and rows[0] == RowInstance(prompt="q1", response="a1")


def test_a_turn_the_service_could_not_score_is_not_evaluated_and_says_why() -> None:
    error = "Error in metric result: code=13 message='judge failed'"
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(THREE[:1]), Answers(InstanceResult(score=0.9, error=error)))
    assert (outcome.score, outcome.status) == (None, NE)
    assert outcome.reason == f"the evaluation service could not score turn 1: {error}"
    assert outcome.per_invocation[0].rubric_scores == [RubricScore(rubric_id="error", rationale=error)]


def test_coherence_needs_expected_turns_and_sends_their_text_as_the_reference() -> None:
    expected = [invocation("q1", "e1"), invocation("q2", "")]
    service = Answers(InstanceResult(score=4.0), InstanceResult(score=5.0))
    outcome = score(ResponseEvaluationScore, "response_evaluation_score", 4.5, run_of(THREE[:2], expected), service)
    assert (outcome.score, outcome.status) == (4.5, P)
    assert [row.reference for row in service.asked[0][1]] == ["e1", ""]  # type: ignore[union-attr]
    scenario_only = score(ResponseEvaluationScore, "response_evaluation_score", 4, run_of(THREE[:1], None), Answers())
    assert scenario_only.status is NE and "conversation_scenario" in (scenario_only.reason or "")


def test_the_whole_conversation_is_judged_once_and_the_last_turn_carries_the_score_and_verdicts() -> None:
    verdicts = (
        RubricVerdict(rubric_id="r1", description="goal met", verdict=True, reasoning="yes"),
        RubricVerdict(rubric_id="r2", description=None, verdict=None, reasoning=None),
        RubricVerdict(rubric_id=None, description="", verdict=False, reasoning=""),
    )
    service = Answers(InstanceResult(score=0.5, explanation="half", verdicts=verdicts))
    outcome = score(MultiTurnTaskSuccess, "multi_turn_task_success_v1", 0.5, run_of(THREE), service)
    assert (outcome.score, outcome.status) == (0.5, P)
    assert turns(outcome) == [(None, NE), (None, NE), (0.5, P)]
    expected = [
        RubricScore(rubric_id="goal met", rationale="yes", score=1.0),
        RubricScore(rubric_id="r2", rationale=None, score=0.0),
        RubricScore(rubric_id="rubric_2", rationale=None, score=0.0),
        RubricScore(rubric_id="explanation", rationale="half"),
    ]
    assert outcome.rubric_scores == expected and outcome.per_invocation[-1].rubric_scores == expected
    [(metric, [conversation])] = service.asked
    assert metric == ServiceMetric("MULTI_TURN_TASK_SUCCESS")
    assert isinstance(conversation, ConversationInstance) and len(conversation.invocations) == 3


def test_an_error_without_a_score_keeps_the_verdicts_and_is_not_evaluated() -> None:
    service = Answers(InstanceResult(error="Metric results missing in API response."))
    outcome = score(MultiTurnToolUseQuality, "multi_turn_tool_use_quality_v1", 0.5, run_of(THREE[:2]), service)
    assert outcome.status is NE and turns(outcome) == [(None, NE), (None, NE)]
    assert outcome.rubric_scores == [
        RubricScore(rubric_id="error", rationale="Metric results missing in API response.")
    ]
    assert outcome.reason == "the evaluation service could not score turn 2: Metric results missing in API response."


def test_no_score_and_no_verdicts_is_not_evaluated_as_adks_empty_result() -> None:
    outcome = score(
        MultiTurnTrajectoryQuality,
        "multi_turn_trajectory_quality_v1",
        0.5,
        run_of(THREE[:1]),
        Answers(InstanceResult()),
    )
    assert (outcome.score, outcome.status, outcome.rubric_scores) == (None, NE, None)
    assert outcome.reason == "the evaluation service returned no score"


def test_a_service_that_failed_for_good_leaves_the_metric_not_evaluated_as_an_outage() -> None:
    failure = PlatformFailed("the evaluation service failed after 5 tries: HTTP 503", infrastructure=True)
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(THREE), Answers(failure=failure))
    assert outcome.status is NE and outcome.infrastructure and turns(outcome) == [(None, NE)] * 3
    assert outcome.reason == "the evaluation service failed after 5 tries: HTTP 503"


def test_a_row_the_sdk_refuses_is_not_evaluated_with_the_sdks_words() -> None:
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(THREE), Answers(failure=MissingInput("Response is required")))
    assert outcome.status is NE and not outcome.infrastructure
    assert outcome.reason == "the evaluation SDK refuses a turn (Response is required); ADK does not evaluate it either"


@pytest.mark.parametrize("metric_class", [SafetyV1, MultiTurnTaskSuccess])
def test_expected_turns_that_do_not_pair_with_the_actual_ones_are_not_evaluated_without_asking(
    metric_class: type[Metric],
) -> None:
    service = Answers()
    outcome = score(metric_class, "m", 0.5, run_of(THREE, THREE[:2]), service)
    assert outcome.status is NE and service.asked == []
    assert outcome.reason == "the agent produced 3 invocations for 2 expected ones"


def test_scores_whose_sum_overflows_still_have_a_finite_mean() -> None:
    service = Answers(InstanceResult(score=1e308), InstanceResult(score=1e308))
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(THREE[:2]), service)
    assert outcome.score == 1e308 and outcome.status is P


def test_without_the_service_the_same_metrics_say_the_gates_judge_computes_them() -> None:
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(THREE), None)
    assert outcome.computed_by == "gate-judge" and outcome.status is NE  # no judge in this run either

"""Parity with ADK 2.13 for the metrics ADK computes through Google's evaluation service: ADK's own evaluators
(``SafetyEvaluatorV1``, ``ResponseEvaluator``, ``MultiTurn*V1Evaluator``, through ADK's facade and Google's SDK)
and the gate's metrics send their requests to the same fake service, which answers both from the same script.
The requests must be the same, byte for byte once parsed, and valid against the fake's request schema (so the
schema is checked against what the SDK sends for ADK); the scores, statuses and rubric scores must be ADK's.

The one seam: ADK's facade builds ``agentplatform.Client(api_key=...)`` without ``http_options`` and the SDK reads
no base-URL variable, so the facade is given the SDK's own ``Client`` with the fake's base URL; nothing else of
ADK or of the SDK is replaced. ADK's evaluate loop also builds BigQuery and Cloud Storage clients: they get the
project, a service account's Application Default Credentials (the fake's token endpoint) and the fake as Cloud
Storage (``STORAGE_EMULATOR_HOST``), from which the published ``coherence`` definition is read.
"""

from __future__ import annotations

import math
import os
import types as pytypes
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import agentplatform
import pytest
from google.adk.evaluation import vertex_ai_eval_facade
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.evaluator import EvalStatus
from google.adk.evaluation.multi_turn_task_success_evaluator import MultiTurnTaskSuccessV1Evaluator
from google.adk.evaluation.multi_turn_tool_use_quality_evaluator import MultiTurnToolUseQualityV1Evaluator
from google.adk.evaluation.multi_turn_trajectory_quality_evaluator import MultiTurnTrajectoryQualityV1Evaluator
from google.adk.evaluation.response_evaluator import ResponseEvaluator
from google.adk.evaluation.safety_evaluator import SafetyEvaluatorV1
from google.genai import types as genai_types

from adk_eval_gate.judge.platform_access import choose
from adk_eval_gate.judge.platform_service import PlatformService
from adk_eval_gate.metrics.metric import Metric
from adk_eval_gate.metrics.platform_delegated import (
    MultiTurnTaskSuccess,
    MultiTurnToolUseQuality,
    MultiTurnTrajectoryQuality,
    ResponseEvaluationScore,
    SafetyV1,
)
from adk_eval_gate.model.evalset import AgentDetails, AppDetails, Invocation, InvocationEvent, InvocationEvents
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.agent_platform_server import API_KEY, Answer, FakeAgentPlatform, Raw, verdict
from tests.judge.helpers import invocation, run_of, text
from tests.judge.platform_helpers import ByPrompt, canonical, platform, score, service_for
from tests.metrics.adk_helpers import to_adk
from tests.metrics.decided import Decided

pytestmark = pytest.mark.slow
__all__ = ["platform"]
STATUS = {
    EvalStatus.PASSED: MetricStatus.PASSED,
    EvalStatus.FAILED: MetricStatus.FAILED,
    EvalStatus.NOT_EVALUATED: MetricStatus.NOT_EVALUATED,
}
NE = MetricStatus.NOT_EVALUATED


def point_adk_at(platform: FakeAgentPlatform, monkeypatch: pytest.MonkeyPatch) -> None:
    """ADK's facade gets the SDK's Client with the fake's base URL (the one seam), and ADK's API key."""

    class Client(agentplatform.Client):  # type: ignore[misc]
        def __init__(self, **arguments: Any) -> None:
            super().__init__(**arguments, http_options=genai_types.HttpOptions(base_url=f"{platform.url}/"))

    monkeypatch.setattr(vertex_ai_eval_facade, "agentplatform", pytypes.SimpleNamespace(Client=Client))
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)


@pytest.fixture
def adk_facade(platform: FakeAgentPlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """ADK's facade pointed at the fake, with the environment ADK's evaluate loop needs."""
    point_adk_at(platform, monkeypatch)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", platform.project)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(platform.service_account_file(tmp_path)))
    yield


def tool_turn(user: str, final: str, number: int) -> Invocation:
    """A turn with a tool call, its response and the agent's details, as the adk runner records them."""
    call = genai_types.Part(function_call=genai_types.FunctionCall(name="lookup", args={"city": user}, id=f"c{number}"))
    reply = genai_types.FunctionResponse(name="lookup", response={"temp": number}, id=f"c{number}")
    events = InvocationEvents(
        invocation_events=[
            InvocationEvent(author="weather_agent", content=genai_types.Content(role="model", parts=[call])),
            InvocationEvent(
                author="weather_agent",
                content=genai_types.Content(role="user", parts=[genai_types.Part(function_response=reply)]),
            ),
            InvocationEvent(
                author="weather_agent",
                usage_metadata=genai_types.GenerateContentResponseUsageMetadata(prompt_token_count=3),
            ),
        ]
    )
    tools = [{"function_declarations": [{"name": "lookup", "description": "Weather of a city."}]}]
    details = AppDetails(
        agent_details={
            "weather_agent": AgentDetails(
                name="weather_agent", instructions="Answer weather questions.", tool_declarations=tools
            )
        }
    )
    return invocation(user, final, invocation_id=f"turn-{number}", intermediate_data=events, app_details=details)


@dataclass(frozen=True)
class Case:
    gate: type[Metric]
    name: str
    adk: Any  # ADK's evaluator class
    threshold: float
    actual: list[Invocation]
    expected: list[Invocation] | None
    answers: dict[str, Answer | Raw]


CONVERSATION = [tool_turn("Paris", "It is 18 degrees.", 1), tool_turn("Oslo", "It is 4 degrees.", 2)]
CASES = {
    "safety-per-turn": Case(
        SafetyV1,
        "safety_v1",
        SafetyEvaluatorV1,
        0.6,
        [invocation("q1", "a1"), invocation("q2", "a2"), invocation("q3", "a3")],
        None,
        {
            "q1": Answer(score=1.0, explanation="harmless"),
            "q2": Answer(score=0.0, verdicts=[verdict("no dangerous content", False, reasoning="it explains")]),
            "q3": Answer(error={"code": 3, "message": "cannot score this"}),
        },
    ),
    "safety-with-reference-and-nan": Case(
        SafetyV1,
        "safety_v1",
        SafetyEvaluatorV1,
        0.5,
        [invocation("q1", "a1"), invocation("q2", "a2")],
        [invocation("q1", "expected one"), invocation("q2", "")],
        {"q1": Answer(score=1.0), "q2": Raw(body=b'{"metricResults": [{"score": NaN}]}')},
    ),
    "coherence": Case(
        ResponseEvaluationScore,
        "response_evaluation_score",
        ResponseEvaluator,
        4.5,
        [invocation("q1", "line one\nline two"), invocation("q2", "a2")],
        [invocation("q1", "e1"), invocation("q2", "e2")],
        {"q1": Answer(score=4.0, explanation="clear"), "q2": Answer(score=5.0)},
    ),
    "task-success-verdicts": Case(
        MultiTurnTaskSuccess,
        "multi_turn_task_success_v1",
        MultiTurnTaskSuccessV1Evaluator,
        0.5,
        CONVERSATION,
        None,
        {
            "multi_turn_task_success_v1": Answer(
                score=0.5,
                explanation="half the goals",
                verdicts=[
                    verdict("weather given for every city", True, rubric_id="r1", reasoning="both"),
                    verdict("", None, rubric_id="r2"),
                    verdict("", False),
                ],
            )
        },
    ),
    "trajectory-error-without-score": Case(
        MultiTurnTrajectoryQuality,
        "multi_turn_trajectory_quality_v1",
        MultiTurnTrajectoryQualityV1Evaluator,
        0.5,
        CONVERSATION,
        None,
        {"multi_turn_trajectory_quality_v1": Answer(score=0.9, error={"code": 13, "message": "judge failed"})},
    ),
    "tool-use-no-results": Case(
        MultiTurnToolUseQuality,
        "multi_turn_tool_use_quality_v1",
        MultiTurnToolUseQualityV1Evaluator,
        0.5,
        CONVERSATION,
        CONVERSATION,
        {"multi_turn_tool_use_quality_v1": Answer(results=[])},
    ),
    "task-success-nothing": Case(
        MultiTurnTaskSuccess,
        "multi_turn_task_success_v1",
        MultiTurnTaskSuccessV1Evaluator,
        0.5,
        [invocation("only turn", "done")],
        None,
        {"multi_turn_task_success_v1": Answer(results=[{}])},
    ),
}


def _rubrics(scores: Any) -> list[tuple[str, str | None, float | None]] | None:
    return None if scores is None else [(s.rubric_id, s.rationale, s.score) for s in scores]


def adk_view(result: Any, turns: int) -> dict[str, Any]:
    per_turn = [(r.score, STATUS[r.eval_status], _rubrics(r.rubric_scores)) for r in result.per_invocation_results]
    return {
        "score": result.overall_score,
        "status": STATUS[result.overall_eval_status],
        # ADK's EvaluationResult() (no score, no verdicts) lists no turns: each is not evaluated
        "turns": per_turn or [(None, NE, None)] * turns,
        "rubrics": _rubrics(result.overall_rubric_scores),
    }


def gate_view(outcome: Decided) -> dict[str, Any]:
    return {
        "score": outcome.score,
        "status": outcome.status,
        "turns": [(item.score, item.status, _rubrics(item.rubric_scores)) for item in outcome.per_invocation],
        "rubrics": _rubrics(outcome.rubric_scores),
    }


def adk_result(case: Case) -> Any:
    evaluator = case.adk(eval_metric=EvalMetric(metric_name=case.name, threshold=case.threshold))
    expected = to_adk(case.expected) if case.expected is not None else None
    return evaluator.evaluate_invocations(to_adk(case.actual), expected)


@pytest.mark.parametrize("key", list(CASES))
def test_the_gate_sends_adks_requests_and_gets_adks_scores_statuses_and_rubric_scores(
    key: str, platform: FakeAgentPlatform, adk_facade: None
) -> None:
    case = CASES[key]
    platform.script = ByPrompt(case.answers)
    adk = adk_result(case)
    adk_requests = platform.bodies()
    outcome = score(case.gate, case.name, case.threshold, run_of(case.actual, case.expected), service_for(platform))
    gate_requests = platform.bodies()[len(adk_requests) :]
    assert platform.schema_errors == []
    assert canonical(gate_requests) == canonical(adk_requests)
    assert gate_view(outcome) == adk_view(adk, len(case.actual))
    assert outcome.computed_by == "agent-platform"


def test_an_empty_final_response_is_refused_by_the_sdk_and_not_evaluated_in_both(
    platform: FakeAgentPlatform, adk_facade: None
) -> None:
    case = CASES["safety-per-turn"]
    actual = [invocation("q1", "a1"), invocation("q2", None)]
    platform.script = ByPrompt(case.answers)
    with pytest.raises(ValueError, match="Response is required"):  # ADK's eval service records NOT_EVALUATED
        adk_result(Case(**{**case.__dict__, "actual": actual}))
    sent_by_adk = len(platform.requests)
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(actual), service_for(platform))
    assert outcome.status is NE and "Response is required" in (outcome.reason or "")
    assert len(platform.requests) == sent_by_adk  # the gate refuses the case before asking anything


def test_a_score_too_large_for_a_float_passes_in_adk_and_is_not_evaluated_here(
    platform: FakeAgentPlatform, adk_facade: None
) -> None:
    """The documented difference: the service's 1e999 is infinity; ADK compares it with the threshold (PASSED), the
    gate refuses a score that is not a finite number."""
    case = Case(
        SafetyV1,
        "safety_v1",
        SafetyEvaluatorV1,
        0.5,
        [invocation("q1", "a1")],
        None,
        {"q1": Raw(body=b'{"metricResults": [{"score": 1e999}]}')},
    )
    platform.script = ByPrompt(case.answers)
    adk = adk_result(case)
    assert math.isinf(adk.overall_score) and adk.overall_eval_status == EvalStatus.PASSED
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(case.actual), service_for(platform))
    assert outcome.status is NE and "not a finite number" in (outcome.reason or "")


def test_the_content_roles_and_text_parts_reach_the_service_as_adk_sends_them(
    platform: FakeAgentPlatform, adk_facade: None
) -> None:
    """A final response of several parts (a thought, a call, two texts) is one text joined by newlines in a row,
    and whole Content objects (roles included) in a conversation, in ADK's and the gate's requests alike."""
    parts = [
        genai_types.Part(text="thinking", thought=True),
        genai_types.Part(function_call=genai_types.FunctionCall(name="f", args={})),
        genai_types.Part(text="first"),
        genai_types.Part(text="second"),
    ]
    turn = Invocation(user_content=text("q1", "user"), final_response=genai_types.Content(role="model", parts=parts))
    for gate_class, name, adk_class in (
        (SafetyV1, "safety_v1", SafetyEvaluatorV1),
        (MultiTurnTaskSuccess, "multi_turn_task_success_v1", MultiTurnTaskSuccessV1Evaluator),
    ):
        platform.script = ByPrompt({"q1": Answer(score=1.0), name: Answer(score=1.0)})
        before = len(platform.requests)
        adk_result(Case(gate_class, name, adk_class, 0.5, [turn], None, {}))
        adk_requests = platform.bodies()[before:]
        score(gate_class, name, 0.5, run_of([turn]), service_for(platform))
        assert canonical(platform.bodies()[before + len(adk_requests) :]) == canonical(adk_requests)
    assert platform.schema_errors == []


def test_adks_express_mode_needs_default_credentials_where_the_gates_needs_the_key_only(
    platform: FakeAgentPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADK's evaluate loop builds BigQuery and Cloud Storage clients before asking anything: without Application
    Default Credentials it raises (ADK's eval service then reports the metric not evaluated). The gate asks the
    service with the key alone."""
    point_adk_at(platform, monkeypatch)
    monkeypatch.setenv("NO_GCE_CHECK", "true")  # google-auth: no metadata server to look for credentials on
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", platform.project)
    case = Case(
        SafetyV1, "safety_v1", SafetyEvaluatorV1, 0.5, [invocation("q1", "a1")], None, {"q1": Answer(score=1.0)}
    )
    platform.script = ByPrompt(case.answers)
    with pytest.raises(Exception, match="default credentials were not found"):
        adk_result(case)
    assert platform.requests == []
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(case.actual), service_for(platform))
    assert (outcome.score, outcome.status) == (1.0, MetricStatus.PASSED)
    assert choose(dict(os.environ)).service


def test_a_project_named_only_by_the_credentials_file_is_enough_for_adk_and_not_for_the_gate(
    platform: FakeAgentPlatform, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented difference: with GOOGLE_API_KEY and a service account's credentials (whose file names the
    project) ADK computes the metrics without GOOGLE_CLOUD_PROJECT; the gate needs the variable to choose the
    service, and judges them itself without it."""
    point_adk_at(platform, monkeypatch)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(platform.service_account_file(tmp_path)))
    case = Case(
        SafetyV1, "safety_v1", SafetyEvaluatorV1, 0.5, [invocation("q1", "a1")], None, {"q1": Answer(score=1.0)}
    )
    platform.script = ByPrompt(case.answers)
    assert adk_result(case).overall_score == 1.0
    assert choose(dict(os.environ)).computed_by == "gate-judge"


def test_a_turn_whose_request_fails_leaves_the_whole_metric_not_evaluated_where_adk_averages_the_others(
    platform: FakeAgentPlatform, adk_facade: None
) -> None:
    """The documented difference: a request that fails for good (a 400, not retried by either) is, in ADK, that
    turn not evaluated with the error as a rubric, the case scored from the other turns; the gate leaves the metric
    not evaluated, as for a judge call that fails for good, so a failure never passes or fails a gate."""
    refused = Raw(400, b'{"error": {"code": 400, "message": "bad instance", "status": "INVALID_ARGUMENT"}}')
    answers: dict[str, Answer | Raw] = {"q1": Answer(score=1.0), "q2": refused}
    case = Case(
        SafetyV1, "safety_v1", SafetyEvaluatorV1, 0.5, [invocation("q1", "a1"), invocation("q2", "a2")], None, answers
    )
    platform.script = ByPrompt(answers)
    adk = adk_result(case)
    assert (adk.overall_score, adk.overall_eval_status) == (1.0, EvalStatus.PASSED)
    assert adk.per_invocation_results[1].eval_status == EvalStatus.NOT_EVALUATED
    assert adk.per_invocation_results[1].rubric_scores[0].rubric_id == "error"
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(case.actual), service_for(platform))
    assert outcome.status is NE and not outcome.infrastructure
    assert outcome.reason == "the evaluation service failed after 1 try: HTTP 400 INVALID_ARGUMENT: bad instance"


def test_a_project_without_a_location_or_key_is_refused_by_adks_facade_and_not_evaluated_here(
    platform: FakeAgentPlatform, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", platform.project)
    case = Case(SafetyV1, "safety_v1", SafetyEvaluatorV1, 0.5, [invocation("q1", "a1")], None, {})
    with pytest.raises(ValueError, match="Missing location"):  # ADK's eval service records NOT_EVALUATED
        adk_result(case)
    choice = choose(dict(os.environ))
    assert choice.service and choice.access is not None
    outcome = score(SafetyV1, "safety_v1", 0.5, run_of(case.actual), PlatformService(access=choice.access))
    assert outcome.status is NE and "GOOGLE_CLOUD_LOCATION is not set" in (outcome.reason or "")
    assert platform.requests == []

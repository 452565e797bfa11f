"""``final_response_match_v2`` and the Vertex-style metrics, judged by google-genai against the fake Gemini
server with scripted answers: majority votes, ties, unreadable answers, 429 then success, 500 forever, slow
answers, missing credentials; every score and status checked."""

from __future__ import annotations

import pytest

from adk_eval_gate.judge.service import JudgeService
from adk_eval_gate.metrics.judge_metrics import FinalResponseMatchV2
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.platform_delegated import (
    MultiTurnTaskSuccess,
    MultiTurnToolUseQuality,
    MultiTurnTrajectoryQuality,
    ResponseEvaluationScore,
    SafetyV1,
)
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import ConversationScenario, EvalCase, IntermediateData
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.gemini_server import HANG, AllAtOnce, FakeGemini, Reply
from tests.judge.helpers import (
    MarkerScript,
    gemini,
    invocation,
    judge_options,
    judge_service,
    rubric_answer,
    run_of,
    score,
    v2_answer,
)
from tests.metrics.decided import Decided

__all__ = ["gemini"]
P, N = MetricStatus.PASSED, MetricStatus.FAILED
NE = MetricStatus.NOT_EVALUATED


def v2(threshold: float = 0.5, **options: int) -> eval_config.LlmAsAJudgeCriterion:
    return eval_config.LlmAsAJudgeCriterion(threshold=threshold, judge_model_options=judge_options(**options))


def two_turns() -> tuple[list, list]:  # type: ignore[type-arg]
    actual = [invocation("What is 2+2?", "ANSWER-A four"), invocation("Capital of France?", "ANSWER-B Lyon")]
    expected = [invocation("What is 2+2?", "4"), invocation("Capital of France?", "Paris")]
    return actual, expected


def scores(outcome: object) -> list[tuple[float | None, MetricStatus]]:
    return [(item.score, item.status) for item in outcome.per_invocation]  # type: ignore[attr-defined]


def test_majority_vote_per_invocation_and_the_valid_fraction(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "ANSWER-A": [v2_answer("valid"), v2_answer("invalid"), v2_answer("valid"), "no idea", v2_answer("Valid")],
            "ANSWER-B": [v2_answer("valid"), v2_answer("invalid"), v2_answer("almost"), "```json\n{}\n```", "x"],
        }
    )
    actual, expected = two_turns()
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(0.5), run_of(actual, expected))
    # 2 of 3 readable valid ("Valid" is no label, as ADK reads labels); 1 valid vs 2 invalid
    assert scores(outcome) == [(1.0, P), (0.0, N)]
    assert (outcome.score, outcome.status) == (0.5, P)
    assert outcome.details == {
        "judge_model": "scripted-judge",
        "num_samples": 5,
        "votes": [{"yes": 2, "no": 1, "unreadable": 2}, {"yes": 1, "no": 2, "unreadable": 2}],
    }
    assert gemini.count == 10
    assert {request.model for request in gemini.requests} == {"scripted-judge"}
    first_prompt = next(p for p in gemini.prompts() if "ANSWER-A" in p)
    assert "What is 2+2?" in first_prompt and "\n4\n" in first_prompt  # user text and reference are shown


def test_a_tie_counts_as_invalid(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript({"ANSWER": [v2_answer("valid"), v2_answer("invalid")]})
    run = run_of([invocation("q", "ANSWER x")], [invocation("q", "x")])
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(0.5, num_samples=2), run)
    assert scores(outcome) == [(0.0, N)]
    assert (outcome.score, outcome.status) == (0.0, N)


def test_an_invocation_without_any_readable_answer_is_left_out(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript({"ANSWER-A": ["I think it is right"] * 3, "ANSWER-B": [v2_answer("valid")] * 3})
    actual, expected = two_turns()
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(1.0, num_samples=3), run_of(actual, expected))
    assert scores(outcome) == [(None, NE), (1.0, P)]
    assert (outcome.score, outcome.status) == (1.0, P)


def test_no_readable_answer_at_all_is_not_evaluated_never_a_pass(gemini: FakeGemini) -> None:
    gemini.script = lambda request: "The response is valid."
    actual, expected = two_turns()
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(0.0, num_samples=2), run_of(actual, expected))
    assert (outcome.score, outcome.status) == (None, NE)
    assert outcome.reason == "no verdict could be read from the judge's answers (4 answers)"
    assert scores(outcome) == [(None, NE), (None, NE)]


def test_429_then_success_scores_normally(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "ANSWER-A": [Reply.error(429, retry_after="0"), v2_answer("valid"), v2_answer("valid")],
            "ANSWER-B": [v2_answer("invalid"), Reply.error(503), v2_answer("invalid")],
        }
    )
    actual, expected = two_turns()
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(0.5, num_samples=2), run_of(actual, expected))
    assert scores(outcome) == [(1.0, P), (0.0, N)]
    assert (outcome.score, outcome.status) == (0.5, P)
    assert gemini.count == 6


def test_a_judge_failing_for_good_makes_the_metric_not_evaluated(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript({"ANSWER-A": [v2_answer("valid")] * 3, "ANSWER-B": [Reply.error(500)]}, cycle=True)
    actual, expected = two_turns()
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(0.5, num_samples=3), run_of(actual, expected))
    assert (outcome.score, outcome.status) == (None, NE)
    assert outcome.reason == ("judge scripted-judge failed after 3 tries: HTTP 500 INTERNAL: scripted 500")
    assert scores(outcome) == [(None, NE), (None, NE)]


@pytest.mark.slow
def test_slow_answers_are_waited_for_and_sampled_in_parallel(gemini: FakeGemini) -> None:
    gemini.script = AllAtOnce(4, Reply(text=v2_answer("valid"), delay=0.3))  # one after the other: 500s
    run = run_of([invocation("q", "x")], [invocation("q", "x")])
    metric = v2(1.0, num_samples=4, parallelism_limit=4)
    outcome = score(FinalResponseMatchV2, "m", metric, run, service=judge_service(timeout=30))
    assert (outcome.score, outcome.status) == (1.0, P)
    assert gemini.max_in_flight == 4
    assert gemini.count == 4  # no sample was asked twice


@pytest.mark.slow
def test_parallelism_limit_one_asks_one_sample_at_a_time(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply(text=v2_answer("valid"), delay=0.05)
    actual, expected = two_turns()
    score(FinalResponseMatchV2, "m", v2(1.0, num_samples=3, parallelism_limit=1), run_of(actual, expected))
    assert gemini.max_in_flight == 1
    assert gemini.count == 6


@pytest.mark.slow
def test_a_hanging_judge_is_not_evaluated_after_its_timeout(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply(text=v2_answer("valid"), delay=HANG)
    run = run_of([invocation("q", "x")], [invocation("q", "x")])
    outcome = score(FinalResponseMatchV2, "m", v2(1.0, num_samples=1), run, judge_service(timeout=0.3))
    assert outcome.status is NE
    assert outcome.reason is not None and "failed after 3 tries" in outcome.reason


def test_intermediate_responses_are_shown_when_asked(gemini: FakeGemini) -> None:
    gemini.script = lambda request: v2_answer("valid")
    data = IntermediateData(intermediate_responses=[("agent", [{"text": "Let me look that up."}])])  # type: ignore[list-item]
    run = run_of([invocation("q", "x", intermediate_data=data)], [invocation("q", "x")])
    criterion = eval_config.LlmAsAJudgeCriterion(
        threshold=1.0, include_intermediate_responses_in_final=True, judge_model_options=judge_options(num_samples=1)
    )
    score(FinalResponseMatchV2, "m", criterion, run)
    assert "Let me look that up.\nx" in gemini.prompts()[0]


def test_a_scenario_case_has_no_expected_invocations(gemini: FakeGemini) -> None:
    case = EvalCase(
        eval_id="s", conversation_scenario=ConversationScenario(starting_prompt="hi", conversation_plan="p")
    )
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(), run_of([invocation("hi", "x")], None, case))
    assert outcome.status is NE
    assert outcome.reason is not None and "conversation_scenario" in outcome.reason
    assert gemini.count == 0


def test_without_credentials_the_reason_names_the_variables() -> None:
    services = MetricServices(
        judge=JudgeService(backend=None, unavailable="no LLM judge credentials: set GOOGLE_API_KEY")
    )
    metric = FinalResponseMatchV2(name="final_response_match_v2", criterion=v2(), services=services)
    import asyncio

    run = run_of([invocation("q", "x")], [invocation("q", "x")])
    outcome = Decided(asyncio.run(evaluate_metric(metric, run)), threshold=metric.criterion.threshold)
    assert outcome.status is NE
    assert outcome.reason == "no LLM judge credentials: set GOOGLE_API_KEY"


# ---------------------------------------------------------------------------------------------------------
# Vertex-style metrics, judged by our own judge


def safety_answer(safe: bool) -> str:
    return f'{{"reasoning": "scripted", "is_safe": {"true" if safe else "false"}}}'


def test_safety_majority_per_invocation_and_mean(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "REPLY-A": [safety_answer(True), safety_answer(True), safety_answer(False)],
            "REPLY-B": [safety_answer(False), "hmm", safety_answer(False)],
        }
    )
    run = run_of([invocation("a", "REPLY-A sunny"), invocation("b", "REPLY-B how to ...")])  # no expected needed
    criterion = eval_config.LlmAsAJudgeCriterion(threshold=0.8, judge_model_options=judge_options(num_samples=3))
    outcome = score(SafetyV1, "safety_v1", criterion, run)
    assert scores(outcome) == [(1.0, P), (0.0, N)]
    assert (outcome.score, outcome.status) == (0.5, N)
    assert outcome.details is not None and outcome.details["judged_by"] == "adk-eval-gate judge, not Vertex AI"


def test_response_evaluation_score_on_the_1_to_5_scale(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "REPLY-A": ['{"score": 4}', '{"score": 5}', '{"score": 3}'],
            "REPLY-B": ['{"score": 2}', '{"score": 7}', "score: 2"],  # 7 is off the scale: no score
        }
    )
    actual = [invocation("a", "REPLY-A"), invocation("b", "REPLY-B")]
    expected = [invocation("a", "x"), invocation("b", "y")]
    criterion = eval_config.LlmAsAJudgeCriterion(threshold=3.5, judge_model_options=judge_options(num_samples=3))
    outcome = score(ResponseEvaluationScore, "response_evaluation_score", criterion, run_of(actual, expected))
    assert scores(outcome) == [(4.0, P), (2.0, N)]
    assert (outcome.score, outcome.status) == (3.0, N)


def test_response_evaluation_score_needs_expected_invocations(gemini: FakeGemini) -> None:
    case = EvalCase(
        eval_id="s", conversation_scenario=ConversationScenario(starting_prompt="hi", conversation_plan="p")
    )
    criterion = eval_config.LlmAsAJudgeCriterion(threshold=3)
    outcome = score(
        ResponseEvaluationScore, "response_evaluation_score", criterion, run_of([invocation("hi", "x")], None, case)
    )
    assert outcome.status is NE
    assert gemini.count == 0


@pytest.mark.parametrize(
    ("metric_class", "ids"),
    [
        (MultiTurnTaskSuccess, ["goal_achieved", "requests_resolved", "outcome_truthful", "final_answer_usable"]),
        (
            MultiTurnTrajectoryQuality,
            ["steps_advance_goal", "no_redundant_steps", "adapts_to_user", "follows_instructions"],
        ),
        (MultiTurnToolUseQuality, ["right_tools", "correct_arguments", "uses_results", "no_needless_calls"]),
    ],
)
def test_multi_turn_metrics_judge_the_whole_conversation_once(
    gemini: FakeGemini, metric_class: type, ids: list[str]
) -> None:
    properties = {p.id: p.text for p in metric_class.properties}
    assert list(properties) == ids
    yes_no = dict(zip(ids, ["yes", "yes", "no", "yes"], strict=True))
    all_yes = dict.fromkeys(ids, "yes")
    gemini.script = MarkerScript(
        {
            "TURN-3": [
                rubric_answer(yes_no, properties),
                rubric_answer(yes_no, properties),
                rubric_answer(all_yes, properties),
            ]
        }
    )
    actual = [invocation("TURN-1", "one"), invocation("TURN-2", "two"), invocation("TURN-3", "three")]
    criterion = eval_config.LlmAsAJudgeCriterion(threshold=0.7, judge_model_options=judge_options(num_samples=3))
    outcome = score(metric_class, "multi_turn", criterion, run_of(actual))
    assert scores(outcome) == [(None, NE), (None, NE), (0.75, P)]
    assert (outcome.score, outcome.status) == (0.75, P)
    assert [(r.rubric_id, r.score) for r in outcome.rubric_scores or []] == list(
        zip(ids, [1.0, 1.0, 0.0, 1.0], strict=True)
    )
    assert gemini.count == 3
    prompt = gemini.prompts()[0]
    assert "USER TURN 1: TURN-1" in prompt and "AGENT (agent) TURN 3: three" in prompt


def test_labels_are_case_sensitive_unless_read_leniently(gemini: FakeGemini) -> None:
    """ADK reads "Valid" as no label: one "invalid" decides the invocation; read leniently (--lenient-judge-labels)
    "Valid" counts and the invocation is valid 2-1."""
    answers = {"ANSWER-A": [v2_answer("Valid"), v2_answer("Valid"), v2_answer("invalid")]}
    gemini.script = MarkerScript(answers)
    actual, expected = [invocation("What is 2+2?", "ANSWER-A four")], [invocation("What is 2+2?", "4")]
    run = run_of(actual, expected)
    outcome = score(FinalResponseMatchV2, "final_response_match_v2", v2(0.5, num_samples=3), run)
    assert (outcome.score, outcome.status) == (0.0, N)
    gemini.script = MarkerScript(answers)
    lenient = score(FinalResponseMatchV2, "final_response_match_v2", v2(0.5, num_samples=3), run, lenient_labels=True)
    assert (lenient.score, lenient.status) == (1.0, P)

"""``per_turn_user_simulator_quality_v1`` against the fake Gemini server: the first turn by the starting
prompt, later turns by majority vote, the stop-signal check, and the passing-turns score."""

from __future__ import annotations

import pytest

from adk_eval_gate.metrics.user_simulator_quality import PerTurnUserSimulatorQuality
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import ConversationScenario, EvalCase, UserBehavior, UserPersona
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import MarkerScript, gemini, invocation, is_valid_answer, judge_options, run_of, score

__all__ = ["gemini"]
P, N, NE = MetricStatus.PASSED, MetricStatus.FAILED, MetricStatus.NOT_EVALUATED
STOP = "</finished>"


def scenario_case(persona: UserPersona | str | None = None) -> EvalCase:
    scenario = ConversationScenario(
        starting_prompt="Book a table for two.", conversation_plan="Book for 8 pm, then finish.", user_persona=persona
    )
    return EvalCase(eval_id="sim", conversation_scenario=scenario)


def turns() -> list:  # type: ignore[type-arg]
    return [
        invocation("  Book a table for two. ", "For when?"),
        invocation("USER-TWO at 8 pm", "Booked."),
        invocation("USER-THREE also a cake", "Sure."),
    ]


def criterion(threshold: float = 0.5, samples: int = 3) -> eval_config.LlmBackedUserSimulatorCriterion:
    return eval_config.LlmBackedUserSimulatorCriterion(
        threshold=threshold, judge_model_options=judge_options(num_samples=samples)
    )


def test_turn_scores_and_the_passing_turns_share(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "USER-TWO": [is_valid_answer("true"), is_valid_answer("false"), is_valid_answer("true")],
            "USER-THREE": [is_valid_answer("false"), "???", is_valid_answer("true")],  # tie: invalid
            STOP: [is_valid_answer("true")] * 3,
        }
    )
    case = scenario_case()
    outcome = score(
        PerTurnUserSimulatorQuality, "per_turn_user_simulator_quality_v1", criterion(), run_of(turns(), None, case)
    )
    assert [(i.score, i.status) for i in outcome.per_invocation] == [(1.0, P), (1.0, P), (0.0, N)]
    assert outcome.score == 2 / 3
    assert outcome.status is P
    assert outcome.details is not None and outcome.details["stop_signal_score"] == 1.0
    assert gemini.count == 9
    stop_prompt = next(p for p in gemini.prompts() if p.rstrip().endswith("}") and f"message ==\n{STOP}" in p)
    assert "user: USER-THREE also a cake\n\nmodel: Sure." in stop_prompt
    assert "Book for 8 pm, then finish." in stop_prompt


def test_a_failed_stop_check_replaces_the_last_turn(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "USER-TWO": [is_valid_answer("true")],
            "USER-THREE": [is_valid_answer("true")],
            STOP: [is_valid_answer("false")],
        }
    )
    outcome = score(PerTurnUserSimulatorQuality, "m", criterion(0.9, samples=1), run_of(turns(), None, scenario_case()))
    assert [(i.score, i.status) for i in outcome.per_invocation] == [(1.0, P), (1.0, P), (0.0, N)]
    assert (outcome.score, outcome.status) == (2 / 3, N)


def test_a_wrong_first_message_scores_zero(gemini: FakeGemini) -> None:
    gemini.script = lambda request: is_valid_answer("true")
    actual = [invocation("Something else", "?"), invocation("USER-TWO", "ok")]
    outcome = score(PerTurnUserSimulatorQuality, "m", criterion(0.5, samples=1), run_of(actual, None, scenario_case()))
    assert [(i.score, i.status) for i in outcome.per_invocation] == [(0.0, N), (1.0, P)]
    assert outcome.score == 0.5


def test_unreadable_turns_count_as_turns_without_points(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript({"USER-TWO": ["no json"], "USER-THREE": ["no json"], STOP: ["no json"]})
    outcome = score(PerTurnUserSimulatorQuality, "m", criterion(0.5, samples=1), run_of(turns(), None, scenario_case()))
    assert [(i.score, i.status) for i in outcome.per_invocation] == [(1.0, P), (None, NE), (None, NE)]
    assert (outcome.score, outcome.status) == (1 / 3, N)


def test_the_persona_is_shown_to_the_judge(gemini: FakeGemini) -> None:
    gemini.script = lambda request: is_valid_answer("true")
    persona = UserPersona(
        id="terse",
        description="A terse user.",
        behaviors=[
            UserBehavior(name="short", description="d", behavior_instructions=["be short"], violation_rubrics=["Long"])
        ],
    )
    score(
        PerTurnUserSimulatorQuality, "m", criterion(0.5, samples=1), run_of(turns()[:2], None, scenario_case(persona))
    )
    assert "A terse user." in gemini.prompts()[0] and "- Long" in gemini.prompts()[0]


def test_a_built_in_persona_id_is_resolved_through_adk(gemini: FakeGemini) -> None:
    from google.adk.evaluation.simulation.pre_built_personas import get_default_persona_registry

    gemini.script = lambda request: is_valid_answer("true")
    score(
        PerTurnUserSimulatorQuality, "m", criterion(0.5, samples=1), run_of(turns()[:2], None, scenario_case("NOVICE"))
    )
    description = get_default_persona_registry().get_persona("NOVICE").description
    assert description in gemini.prompts()[0]


def test_a_static_case_is_not_evaluated(gemini: FakeGemini) -> None:
    outcome = score(PerTurnUserSimulatorQuality, "m", criterion(), run_of(turns(), turns()))
    assert outcome.status is NE
    assert outcome.reason is not None and "conversation_scenario" in outcome.reason
    assert gemini.count == 0


def test_a_failing_judge_makes_it_not_evaluated(gemini: FakeGemini) -> None:
    gemini.script = lambda request: Reply.error(503, retry_after="0")
    outcome = score(PerTurnUserSimulatorQuality, "m", criterion(0.5, samples=1), run_of(turns(), None, scenario_case()))
    assert (outcome.score, outcome.status) == (None, NE)
    assert [item.status for item in outcome.per_invocation] == [NE, NE, NE]
    assert outcome.reason is not None and "HTTP 503" in outcome.reason


@pytest.mark.slow  # two scorings of a three-turn conversation against the fake Gemini
def test_a_label_adk_cannot_read_counts_only_when_labels_are_read_leniently(gemini: FakeGemini) -> None:
    """A label with nothing after it is no label to ADK's pattern: the turn ties 1-1 and is invalid; read leniently
    (--lenient-judge-labels) it is valid 2-1."""
    unterminated = 'My verdict: "is_valid": "true"'
    answers = {
        "USER-TWO": [is_valid_answer("true"), unterminated, is_valid_answer("false")],
        "USER-THREE": [is_valid_answer("true")] * 3,
        STOP: [is_valid_answer("true")] * 3,
    }
    gemini.script = MarkerScript(answers)
    run = run_of(turns(), None, scenario_case())
    outcome = score(PerTurnUserSimulatorQuality, "m", criterion(0.9), run)
    assert [i.score for i in outcome.per_invocation] == [1.0, 0.0, 1.0]
    gemini.script = MarkerScript(answers)
    lenient = score(PerTurnUserSimulatorQuality, "m", criterion(0.9), run, lenient_labels=True)
    assert [i.score for i in lenient.per_invocation] == [1.0, 1.0, 1.0]

"""The rubric-based judge metrics against the fake Gemini server: which rubrics apply (criterion, case and
invocation, with ADK's type filter), per-rubric majority votes, pooled case scores, and unreadable answers."""

from __future__ import annotations

from google.genai import types

from adk_eval_gate.metrics.rubric_metrics import (
    RubricFinalResponseQuality,
    RubricMultiTurnTrajectoryQuality,
    RubricToolUseQuality,
)
from adk_eval_gate.metrics.score import attach_rubrics
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import (
    AgentDetails,
    AppDetails,
    EvalCase,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    Rubric,
    RubricContent,
)
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import MarkerScript, gemini, invocation, judge_options, rubric_answer, run_of, score

__all__ = ["gemini"]
P, N, NE = MetricStatus.PASSED, MetricStatus.FAILED, MetricStatus.NOT_EVALUATED

TEXTS = {
    "concise": "The answer is concise.",
    "haiku": "The answer is a haiku.",
    "polite": "The answer is polite.",
    "untyped": "An untyped case rubric.",
    "tools": "A tool-use rubric.",
    "turn2": "The second answer names the city.",
}


def rubric(rubric_id: str, kind: str | None = None) -> Rubric:
    return Rubric(rubric_id=rubric_id, rubric_content=RubricContent(text_property=TEXTS[rubric_id]), type=kind)


def criterion(threshold: float, *rubrics: Rubric, samples: int = 3) -> eval_config.RubricsBasedCriterion:
    return eval_config.RubricsBasedCriterion(
        threshold=threshold, rubrics=list(rubrics), judge_model_options=judge_options(num_samples=samples)
    )


def case_with_rubrics(actual: list[Invocation], expected: list[Invocation]) -> tuple[EvalCase, list[Invocation]]:
    case = EvalCase(
        eval_id="c",
        conversation=expected,
        rubrics=[rubric("polite", "FINAL_RESPONSE_QUALITY"), rubric("untyped"), rubric("tools", "TOOL_USE_QUALITY")],
    )
    return case, attach_rubrics(case, actual)


def test_final_response_quality_votes_per_rubric_and_pools_over_invocations(gemini: FakeGemini) -> None:
    t = TEXTS
    gemini.script = MarkerScript(
        {
            "ANSWER-ONE": [
                rubric_answer({"concise": "yes", "haiku": "no", "polite": "yes"}, t),
                rubric_answer({"concise": "yes", "haiku": "no", "polite": "no"}, t),
                rubric_answer({"concise": "no", "haiku": "yes"}, t),  # no verdict on polite: 1 yes vs 1 no -> no
            ],
            "ANSWER-TWO": [
                rubric_answer({"concise": "yes", "haiku": "no", "polite": "yes"}, t),
                "I cannot follow the format.",  # no rubric verdicts from this sample
                rubric_answer({"concise": "yes", "haiku": "no", "polite": "Yes, very"}, t),
            ],
        }
    )
    expected = [invocation("first", "x"), invocation("second", "y")]
    case, actual = case_with_rubrics([invocation("first", "ANSWER-ONE"), invocation("second", "ANSWER-TWO")], expected)
    crit = criterion(0.6, rubric("concise"), rubric("haiku"))
    outcome = score(
        RubricFinalResponseQuality, "rubric_based_final_response_quality_v1", crit, run_of(actual, expected, case)
    )
    first, second = outcome.per_invocation
    assert [(r.rubric_id, r.score) for r in first.rubric_scores or []] == [
        ("concise", 1.0),
        ("haiku", 0.0),
        ("polite", 0.0),
    ]
    assert [(r.rubric_id, r.score) for r in second.rubric_scores or []] == [
        ("concise", 1.0),
        ("haiku", 0.0),
        ("polite", 1.0),
    ]
    assert (first.score, first.status) == (1 / 3, N)
    assert (second.score, second.status) == (2 / 3, P)
    assert outcome.score == 3 / 6  # pooled over the six rubric verdicts
    assert outcome.status is N
    assert [(r.rubric_id, r.score) for r in outcome.rubric_scores or []] == [
        ("concise", 1.0),
        ("haiku", 0.0),
        ("polite", 0.5),
    ]
    prompt = next(p for p in gemini.prompts() if "ANSWER-ONE" in p)
    assert "*  [id: concise] The answer is concise." in prompt
    assert "[id: polite]" in prompt
    assert "untyped" not in prompt and "[id: tools]" not in prompt  # case rubrics of other types are ignored


def test_pooled_case_score_is_not_the_mean_of_invocation_means(gemini: FakeGemini) -> None:
    t = TEXTS
    gemini.script = MarkerScript(
        {
            "ANSWER-ONE": [rubric_answer({"concise": "yes"}, t)],
            "ANSWER-TWO": [rubric_answer({"concise": "no", "turn2": "no"}, t)],
        }
    )
    expected = [
        invocation("first", "x"),
        invocation("second", "y", rubrics=[rubric("turn2", "FINAL_RESPONSE_QUALITY")]),
    ]
    case = EvalCase(eval_id="c", conversation=expected)
    actual = attach_rubrics(case, [invocation("first", "ANSWER-ONE"), invocation("second", "ANSWER-TWO")])
    crit = criterion(0.3, rubric("concise"), samples=1)
    outcome = score(RubricFinalResponseQuality, "m", crit, run_of(actual, expected, case))
    assert [item.score for item in outcome.per_invocation] == [1.0, 0.0]
    assert outcome.score == 1 / 3  # (1 + 0 + 0) / 3, not (1.0 + 0.0) / 2
    assert "[id: turn2]" not in next(p for p in gemini.prompts() if "ANSWER-ONE" in p)


def test_verdicts_are_matched_by_property_text_when_the_id_is_missing(gemini: FakeGemini) -> None:
    answer = (
        "Property: *The answer is “concise”.*\nRationale: short\nVerdict: yes\n\n"
        "Property: Something the judge made up.\nRationale: ?\nVerdict: no\n"
    )
    gemini.script = lambda request: answer
    crit = eval_config.RubricsBasedCriterion(
        threshold=1.0,
        rubrics=[Rubric(rubric_id="c1", rubric_content=RubricContent(text_property='The answer is "concise".'))],
        judge_model_options=judge_options(num_samples=1),
    )
    outcome = score(RubricFinalResponseQuality, "m", crit, run_of([invocation("q", "a")]))
    assert [(r.rubric_id, r.score) for r in outcome.per_invocation[0].rubric_scores or []] == [("c1", 1.0)]
    assert (outcome.score, outcome.status) == (1.0, P)


def test_unreadable_answers_everywhere_are_not_evaluated(gemini: FakeGemini) -> None:
    gemini.script = lambda request: "Verdict: yes"  # a verdict without its property and rationale
    outcome = score(RubricFinalResponseQuality, "m", criterion(0.0, rubric("concise")), run_of([invocation("q", "a")]))
    assert (outcome.score, outcome.status) == (None, NE)
    assert outcome.reason == "no verdict could be read from the judge's answers (3 answers)"


def test_no_rubrics_is_not_evaluated_and_says_where_to_add_them(gemini: FakeGemini) -> None:
    case, actual = case_with_rubrics([invocation("q", "a")], [invocation("q", "x")])
    outcome = score(RubricMultiTurnTrajectoryQuality, "m", criterion(0.5), run_of(actual, None, case))
    assert outcome.status is NE
    assert outcome.reason == (
        'm needs rubrics: add them to the criterion\'s "rubrics", or give case or invocation rubrics '
        '"type": "TRAJECTORY_QUALITY"'
    )
    assert gemini.count == 0  # the case's FINAL_RESPONSE_QUALITY, TOOL_USE_QUALITY and untyped rubrics do not apply


def test_a_rubric_id_defined_twice_is_not_evaluated(gemini: FakeGemini) -> None:
    case, actual = case_with_rubrics([invocation("q", "a")], [invocation("q", "x")])
    outcome = score(RubricFinalResponseQuality, "m", criterion(0.5, rubric("polite")), run_of(actual, None, case))
    assert outcome.status is NE
    assert outcome.reason is not None and "'polite'" in outcome.reason and "unique" in outcome.reason
    assert gemini.count == 0


def _tool_invocation() -> Invocation:
    events = InvocationEvents(
        invocation_events=[
            InvocationEvent(
                author="weather",
                content=types.Content(
                    role="model",
                    parts=[
                        types.Part(
                            function_call=types.FunctionCall(id="c1", name="get_weather", args={"city": "Paris"})
                        )
                    ],
                ),
            ),
            InvocationEvent(
                author="weather",
                content=types.Content(
                    role="user",
                    parts=[
                        types.Part(
                            function_response=types.FunctionResponse(id="c1", name="get_weather", response={"temp": 22})
                        )
                    ],
                ),
            ),
        ]
    )
    app = AppDetails(
        agent_details={
            "weather": AgentDetails(
                name="weather",
                instructions="Answer weather questions.",
                tool_declarations=[{"function_declarations": [{"name": "get_weather", "description": "Weather."}]}],
            )
        }
    )
    return invocation("Weather in Paris?", "TOOL-ANSWER 22 C", intermediate_data=events, app_details=app)


def test_tool_use_quality_sees_the_calls_and_declarations(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript({"Weather in Paris?": [rubric_answer({"tools": "yes"}, TEXTS)] * 3})
    crit = criterion(1.0, rubric("tools"))
    outcome = score(RubricToolUseQuality, "rubric_based_tool_use_quality_v1", crit, run_of([_tool_invocation()]))
    assert (outcome.score, outcome.status) == (1.0, P)
    prompt = gemini.prompts()[0]
    assert '"name": "get_weather"' in prompt and '"temp": 22' in prompt and '"description": "Weather."' in prompt
    assert "TOOL-ANSWER" not in prompt  # the final response is not shown to the tool-use judge


def test_final_response_quality_sees_instructions_steps_and_answer(gemini: FakeGemini) -> None:
    gemini.script = lambda request: rubric_answer({"concise": "yes"}, TEXTS)
    crit = criterion(1.0, rubric("concise"), samples=1)
    score(RubricFinalResponseQuality, "m", crit, run_of([_tool_invocation()]))
    prompt = gemini.prompts()[0]
    for shown in ("Answer weather questions.", '"city": "Paris"', '"temp": 22', "TOOL-ANSWER 22 C", "No grounding"):
        assert shown in prompt


def test_multi_turn_trajectory_judges_the_last_turn_with_the_whole_dialogue(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "TOOL-ANSWER": [rubric_answer({"concise": "yes", "haiku": "no"}, TEXTS)] * 2
            + [Reply.error(429, retry_after="0")]
            + [rubric_answer({"concise": "no", "haiku": "no"}, TEXTS)]
        }
    )
    actual = [invocation("Hello", "Hi there"), _tool_invocation()]
    crit = criterion(0.5, rubric("concise"), rubric("haiku"))
    outcome = score(RubricMultiTurnTrajectoryQuality, "m", crit, run_of(actual))
    assert [(i.score, i.status) for i in outcome.per_invocation] == [(None, NE), (0.5, P)]
    assert (outcome.score, outcome.status) == (0.5, P)
    assert gemini.count == 4  # three samples, one of them retried after a 429
    prompt = gemini.prompts()[0]
    for line in (
        "USER TURN 1: Hello",
        "AGENT (agent) TURN 1: Hi there",
        'AGENT (weather) TURN 2 (tool call): get_weather({"city": "Paris"})',
        'AGENT (weather) TURN 2 (tool output): get_weather -> {"temp": 22}',
        "Agent weather instructions:\nAnswer weather questions.",
        "- get_weather: Weather.",
        '"id": "concise"',
    ):
        assert line in prompt


def test_markdown_field_names_are_read_only_when_labels_are_read_leniently(gemini: FakeGemini) -> None:
    """ADK's parser wants ``Property: `` at a line's start: "**Property:**" leaves one property for two
    verdicts, so ADK reads no verdict at all; read leniently (--lenient-judge-labels) the rubric passes."""
    gemini.script = lambda request: (
        "**Property:** The answer is concise.\nRationale: short\nVerdict: yes\n\n"
        "Property: Something else.\nRationale: ?\nVerdict: no\n"
    )
    crit = criterion(1.0, rubric("concise"), samples=1)
    run = run_of([invocation("q", "a")])
    outcome = score(RubricFinalResponseQuality, "m", crit, run)
    assert (outcome.score, outcome.status) == (None, NE)
    lenient = score(RubricFinalResponseQuality, "m", crit, run, lenient_labels=True)
    assert (lenient.score, lenient.status) == (1.0, P)

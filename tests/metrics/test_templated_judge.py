"""Templated judge metrics (Vertex's PointwiseMetricPromptTemplate) and ``response_follows_trajectory``, judged by
google-genai against the fake Gemini server with scripted verdicts: majorities over samples, ties, unparseable
answers, scores outside the rubric, what the judge is shown, retries and the cache."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model.evalset import ConversationScenario, EvalCase
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import MarkerScript, gemini, invocation, judge_options, judge_service, run_of
from tests.metrics.decided import Decided
from tests.metrics.vertex_helpers import build, with_calls

__all__ = ["gemini"]
P, F, NE = MetricStatus.PASSED, MetricStatus.FAILED, MetricStatus.NOT_EVALUATED


def rated(score: object, explanation: str = "scripted") -> str:
    return json.dumps({"explanation": explanation, "score": score})


def _judged(name: str, criterion: dict[str, Any], run: Any, *, cache_dir: Path | None = None) -> Any:
    services = MetricServices(judge=judge_service(cache_dir=cache_dir))
    metric = build(name, criterion, services=services)

    async def go() -> Any:
        try:
            return await evaluate_metric(metric, run)
        finally:
            await services.aclose()

    return Decided(asyncio.run(go()), threshold=metric.criterion.threshold if metric.criterion else None)


def _follows_run() -> Any:
    actual = [
        with_calls("Weather in Oslo?", "ANSWER-A It is sunny in Oslo.", ("get_weather", {"city": "Oslo"})),
        with_calls("And in Rome?", "ANSWER-B It is snowing in Paris.", ("get_weather", {"city": "Rome"})),
    ]
    return run_of(actual, [invocation("Weather in Oslo?", "x"), invocation("And in Rome?", "y")])


def test_response_follows_trajectory_votes_over_samples_and_keeps_the_explanation(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "ANSWER-A": [rated(1, "uses the weather it got"), rated(0), "no idea", rated(1), rated("1")],
            "ANSWER-B": [rated(0, "talks about Paris, asked Rome"), rated(1), "```json\n{}\n```", rated(0), rated(2)],
        }
    )
    criterion = {"threshold": 0.5, "judge_model_options": judge_options(num_samples=5)}
    result = _judged("response_follows_trajectory", criterion, _follows_run())
    assert [(i.score, i.status) for i in result.per_invocation] == [(1.0, P), (0.0, F)]
    assert (result.score, result.status) == (0.5, P)
    assert result.details["explanations"] == ["uses the weather it got", "talks about Paris, asked Rome"]
    assert result.details["votes"] == [{"0": 1, "1": 3, "unreadable": 1}, {"0": 2, "1": 1, "unreadable": 2}]
    assert gemini.count == 10
    prompt = next(p for p in gemini.prompts() if "ANSWER-A" in p)
    assert "### prompt\nWeather in Oslo?" in prompt
    assert '"tool_name": "get_weather"' in prompt and '"tool_input": {\n      "city": "Oslo"' in prompt
    assert "1: Follows trajectory\n0: Does not follow trajectory" in prompt
    assert "Follows trajectory: Whether the agent's response follows logically" in prompt
    assert '"score": <one of: 0, 1>' in prompt
    assert prompt.rstrip().endswith("## AI-generated Response\nANSWER-A It is sunny in Oslo.")


FRIENDLY = {
    "threshold": 3.5,
    "criteria": {"Friendliness": "The reply is warm and polite.", "Accuracy": "The reply agrees with the reference."},
    "rating_rubric": {"5": "friendly and accurate", "3": "one of the two", "1": "neither"},
    "input_variables": ["prompt", "reference", "history"],
    "instruction": "Rate the customer-support reply. Text like {{prompt}} in a config stays text.",
    "judge_model_options": judge_options(num_samples=3, parallelism_limit=3),
}


def test_a_user_defined_template_on_a_rating_scale(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript(
        {
            "REPLY-1": [rated(5, "warm"), rated(3), rated(5, "warm")],  # samples answer in any order
            "REPLY-2": [rated(3, "correct but curt"), rated(1), rated("5/5")],  # a three-way tie: the lowest wins
        }
    )
    actual = [
        invocation("Hi, where is my order?", "REPLY-1 Hello! It ships today."),
        invocation("Thanks", "REPLY-2 ok"),
    ]
    expected = [invocation("Hi, where is my order?", "It ships today."), invocation("Thanks", "You're welcome!")]
    result = _judged("support_tone", FRIENDLY, run_of(actual, expected))
    assert [(i.score, i.status) for i in result.per_invocation] == [(5.0, P), (1.0, F)]
    assert (result.score, result.status) == (3.0, F)
    assert result.details["explanations"] == ["warm", "scripted"]  # the tie's winner (1) with its explanation
    first, second = sorted(gemini.prompts(), key=lambda p: "REPLY-2" in p)[::3]
    assert first.startswith("# Instruction\nRate the customer-support reply. Text like {{prompt}} in a config")
    assert "Friendliness: The reply is warm and polite.\nAccuracy: The reply agrees with the reference." in first
    assert "### reference\nIt ships today." in first and "### history\n(this is the first turn)" in first
    assert "### history\nUSER TURN 1: Hi, where is my order?" in second
    assert '"score": <one of: 1, 3, 5>' in first


def test_unparseable_answers_and_scores_outside_the_rubric_leave_no_score(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript({"REPLY": ["I would say quite good", rated(4), rated("great")]})
    criterion = {**FRIENDLY, "input_variables": ["prompt"]}
    result = _judged("support_tone", criterion, run_of([invocation("q", "REPLY x")], [invocation("q", "y")]))
    assert (result.score, result.status) == (None, NE)
    assert result.reason == "no verdict could be read from the judge's answers (3 answers)"
    assert result.details["votes"] == [{"unreadable": 3}]


def test_reference_variables_need_expected_invocations(gemini: FakeGemini) -> None:
    case = EvalCase(
        eval_id="s", conversation_scenario=ConversationScenario(starting_prompt="hi", conversation_plan="p")
    )
    result = _judged("support_tone", FRIENDLY, run_of([invocation("hi", "hello")], None, case))
    assert result.status is NE and "conversation_scenario" in (result.reason or "")
    assert gemini.count == 0


def test_the_judge_retries_and_caches_like_every_judge_metric(gemini: FakeGemini, tmp_path: Path) -> None:
    gemini.enqueue(Reply.error(429, retry_after="0"))
    gemini.script = MarkerScript({"ANSWER": [rated(1, "fine")]}, cycle=True)
    criterion = {"threshold": 1.0, "judge_model_options": judge_options(num_samples=2)}
    run = run_of([with_calls("q", "ANSWER ok", ("t", {}))], [invocation("q", "ok")])
    first = _judged("response_follows_trajectory", criterion, run, cache_dir=tmp_path)
    assert (first.score, first.status) == (1.0, P)
    assert gemini.count == 3  # the 429, then two samples
    again = _judged("response_follows_trajectory", criterion, run, cache_dir=tmp_path)
    assert (again.score, again.details["explanations"], gemini.count) == (1.0, ["fine"], 3)


def test_the_vote_is_the_most_common_score_and_ties_go_low() -> None:
    from adk_eval_gate.metrics.templated import vote

    assert vote([1.0, 1.0, 0.0]) == 1.0
    assert vote([1.0, 0.0]) == 0.0
    assert vote([5.0, 3.0, None, 5.0, 3.0]) == 3.0
    assert vote([None, None]) is None

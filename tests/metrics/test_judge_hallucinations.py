"""``hallucinations_v1`` against the fake Gemini server: segment, then validate each sentence; scores per
text, invocation and case; intermediate texts; failures."""

from __future__ import annotations

import asyncio

from google.genai import types

from adk_eval_gate.metrics.hallucinations import HallucinationsV1
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import InvocationEvent, InvocationEvents
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import HallucinationScript, gemini, invocation, judge_options, judge_service, run_of, score

__all__ = ["gemini"]
P, N, NE = MetricStatus.PASSED, MetricStatus.FAILED, MetricStatus.NOT_EVALUATED


def criterion(threshold: float = 0.5, intermediate: bool = False) -> eval_config.HallucinationsCriterion:
    return eval_config.HallucinationsCriterion(
        threshold=threshold, evaluate_intermediate_nl_responses=intermediate, judge_model_options=judge_options()
    )


def events_with_text() -> InvocationEvents:
    return InvocationEvents(
        invocation_events=[
            InvocationEvent(
                author="agent", content=types.Content(role="model", parts=[types.Part(text="Checking now.")])
            ),
            InvocationEvent(
                author="agent",
                content=types.Content(
                    role="model",
                    parts=[types.Part(function_call=types.FunctionCall(name="get_weather", args={"c": 1}))],
                ),
            ),
            InvocationEvent(
                author="agent",
                content=types.Content(
                    role="user",
                    parts=[
                        types.Part(function_response=types.FunctionResponse(name="get_weather", response={"t": 22}))
                    ],
                ),
            ),
        ]
    )


SEGMENTS = {
    "Paris is sunny. It is 22 C.": ["Paris is sunny.", "It is 22 C."],
    "Tokyo is on fire. Have a nice day!": ["Tokyo is on fire.", "Have a nice day!"],
    "Checking now.": ["Checking now."],
}
LABELS = {
    "Paris is sunny.": "supported",
    "It is 22 C.": "unsupported",
    "Tokyo is on fire.": "contradictory",
    "Have a nice day!": "not_applicable",
    "Checking now.": "not_applicable",
}


def test_sentence_labels_per_text_invocation_and_case(gemini: FakeGemini) -> None:
    script = HallucinationScript(SEGMENTS, LABELS)
    gemini.script = script
    actual = [
        invocation("Weather in Paris?", "Paris is sunny. It is 22 C."),
        invocation("And Tokyo?", "Tokyo is on fire. Have a nice day!"),
        invocation("Silent turn", None),
    ]
    outcome = score(HallucinationsV1, "hallucinations_v1", criterion(0.5), run_of(actual))
    assert [(i.score, i.status) for i in outcome.per_invocation] == [(0.5, P), (0.5, P), (None, NE)]
    assert (outcome.score, outcome.status) == (0.5, P)
    assert (script.segmenter_calls, script.validator_calls) == (2, 2)  # one call per step, num_samples unused
    validator = next(p for p in gemini.prompts() if "Weather in Paris?" in p and "supporting_excerpt" in p)
    assert "<sentence>Paris is sunny.</sentence>\n<sentence>It is 22 C.</sentence>" in validator
    assert "User prompt:\nWeather in Paris?" in validator


def test_intermediate_texts_are_checked_with_the_context_before_them(gemini: FakeGemini) -> None:
    script = HallucinationScript(SEGMENTS, LABELS)
    gemini.script = script
    actual = [invocation("Weather in Paris?", "Paris is sunny. It is 22 C.", intermediate_data=events_with_text())]
    outcome = score(HallucinationsV1, "hallucinations_v1", criterion(0.8, intermediate=True), run_of(actual))
    assert [(i.score, i.status) for i in outcome.per_invocation] == [(0.75, N)]  # (1.0 + 0.5) / 2 texts
    assert (outcome.score, outcome.status) == (0.75, N)
    final_validator = next(p for p in gemini.prompts() if "<sentence>Paris is sunny.</sentence>" in p)
    assert "Checking now." in final_validator and '"name": "get_weather"' in final_validator
    assert "tool_outputs:" in final_validator


def test_without_intermediate_texts_only_the_final_response_is_checked(gemini: FakeGemini) -> None:
    script = HallucinationScript(SEGMENTS, LABELS)
    gemini.script = script
    actual = [invocation("Weather in Paris?", "Paris is sunny. It is 22 C.", intermediate_data=events_with_text())]
    outcome = score(HallucinationsV1, "hallucinations_v1", criterion(0.5), run_of(actual))
    assert (outcome.score, outcome.status) == (0.5, P)
    assert script.segmenter_calls == 1


def test_no_sentences_or_no_labels_leave_the_text_without_a_score(gemini: FakeGemini) -> None:
    gemini.enqueue("I would rather not split it.")  # segmenter answer without <sentence> tags
    actual = [invocation("q", "Some text.")]
    outcome = score(HallucinationsV1, "hallucinations_v1", criterion(), run_of(actual))
    assert (outcome.score, outcome.status) == (None, NE)
    assert outcome.reason == "no sentence verdict could be read from the judge's answers"
    assert gemini.count == 1


def test_a_case_without_any_response_is_not_evaluated(gemini: FakeGemini) -> None:
    outcome = score(HallucinationsV1, "hallucinations_v1", criterion(), run_of([invocation("q", None)]))
    assert outcome.status is NE
    assert outcome.reason == "no invocation had a response to check"
    assert gemini.count == 0


def test_a_failing_judge_makes_it_not_evaluated(gemini: FakeGemini) -> None:
    gemini.enqueue("<sentence>Some text.</sentence>")
    gemini.script = lambda request: Reply.error(500)
    outcome = score(HallucinationsV1, "hallucinations_v1", criterion(), run_of([invocation("q", "Some text.")]))
    assert (outcome.score, outcome.status) == (None, NE)
    assert outcome.reason is not None and "failed after 3 tries: HTTP 500" in outcome.reason


def test_a_label_adk_does_not_know_is_dropped_unless_labels_are_read_leniently(gemini: FakeGemini) -> None:
    """ "Not applicable" (a space for the underscore): ADK drops the sentence, so the text scores 1/2; read
    leniently (--lenient-judge-labels) it is supported and the text scores 2/3."""
    texts = {"A. B. C.": ["A.", "B.", "C."]}
    gemini.script = HallucinationScript(texts, {"A.": "supported", "B.": "unsupported", "C.": "Not applicable"})
    run = run_of([invocation("q", "A. B. C.")])
    assert score(HallucinationsV1, "hallucinations_v1", criterion(0.6), run).score == 0.5
    services = MetricServices(judge=judge_service(), lenient_labels=True)
    lenient = HallucinationsV1(name="hallucinations_v1", criterion=criterion(0.6), services=services)

    async def go() -> float | None:
        try:
            return (await evaluate_metric(lenient, run)).score
        finally:
            await services.aclose()

    assert asyncio.run(go()) == 2 / 3

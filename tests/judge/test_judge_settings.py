"""Like-for-like for judges: results.json records how each judge model was reached (its provider), and a judge whose
provider changed between the base branch and head makes that metric's scores incomparable, as a changed model does."""

from __future__ import annotations

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.compare.likeforlike import judge_provider
from adk_eval_gate.model.results import JudgeSetting, ResultsDocument
from tests.report.builders import baseline_info, case, document, metric


def judged_by(model: str, provider: str | None, score: float) -> ResultsDocument:
    built = document([case("a", [metric("judged", score, kind="judge"), metric("exact", score)])])
    setting = JudgeSetting(model=model, sampling="5 samples", provider=provider)
    return built.model_copy(update={"run": built.run.model_copy(update={"judges": {"judged": setting}})})


def test_a_judge_provider_change_is_one_line_and_its_drops_are_not_regressions() -> None:
    base, head = judged_by("my-judge", "gemini", 0.9), judged_by("my-judge", "MyJudgeLlm", 0.6)
    comparison = compare(head, base, baseline=baseline_info())
    assert [d.message for d in comparison.differences] == [
        "judge provider changed for judged: gemini -> MyJudgeLlm, judge scores are not comparable"
    ]
    assert {c.metric: c.comparable for c in comparison.changes} == {"judged": False, "exact": True}


def test_a_baseline_without_providers_is_not_a_difference() -> None:
    base, head = judged_by("gpt-4o-mini", None, 0.9), judged_by("gpt-4o-mini", "OpenAILlm", 0.9)
    assert compare(head, base, baseline=baseline_info()).differences == []


def test_gemini_models_are_recorded_as_gemini() -> None:
    assert judge_provider("gemini-2.5-flash") == "gemini"

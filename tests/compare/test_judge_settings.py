"""Like-for-like for judges: results.json records how each judge model was reached (its provider) and, for ADK's
service-backed metrics, whether Google's evaluation service or the gate's judge computed them; a judge whose
provider or implementation changed between the base branch and head makes that metric's scores incomparable, as a
changed model does."""

from __future__ import annotations

import pytest

from adk_eval_gate.aggregate.run_info import SERVICE_MODEL, judge_provider, judge_settings
from adk_eval_gate.compare.changes import compare
from adk_eval_gate.compare.likeforlike import comparable
from adk_eval_gate.metrics.registry import ConfiguredMetric, configured_metrics
from adk_eval_gate.model.eval_config import EvalConfig
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


# ADK's service-backed metrics: Google's evaluation service on one side and the gate's judge on the other are never
# compared.


def computed(computed_by: str | None, score: float) -> ResultsDocument:
    built = document([case("a", [metric("safety_v1", score, kind="judge"), metric("exact", score)])])
    setting = JudgeSetting(model="gemini-2.5-flash", sampling="5 samples", provider="gemini", computed_by=computed_by)
    if computed_by == "agent-platform":
        setting = JudgeSetting(
            model=SERVICE_MODEL, sampling="the service's", provider=computed_by, computed_by=computed_by
        )
    return built.model_copy(update={"run": built.run.model_copy(update={"judges": {"safety_v1": setting}})})


@pytest.mark.parametrize("base_by", ["gate-judge", None], ids=["gate-judge", "before-it-was-recorded"])
def test_a_baseline_judged_by_the_gate_is_not_comparable_with_the_service_and_its_drops_are_not_regressions(
    base_by: str | None,
) -> None:
    base, head = computed(base_by, 0.9), computed("agent-platform", 0.5)
    comparison = compare(head, base, baseline=baseline_info())
    assert [(d.what, d.base, d.head, d.message) for d in comparison.differences] == [
        (
            "computed by",
            "gate-judge",
            "agent-platform",
            "safety_v1 was computed by the gate's own judge on the base branch and by Google's evaluation service "
            "here: its scores are not comparable",
        )
    ]
    assert {c.metric: c.comparable for c in comparison.changes} == {"safety_v1": False, "exact": True}
    assert comparison.regressions == 1  # only exact's drop counts
    assert comparable(comparison.differences, file="f.evalset.json", metric="safety_v1") is False


def test_the_same_implementation_on_both_sides_is_comparable() -> None:
    for computed_by in ("agent-platform", "gate-judge"):
        assert (
            compare(computed(computed_by, 0.5), computed(computed_by, 0.9), baseline=baseline_info()).differences == []
        )
    back = compare(computed("gate-judge", 0.5), computed("agent-platform", 0.9), baseline=baseline_info())
    assert [d.what for d in back.differences] == ["computed by"]


def _configured(names: list[str]) -> list[ConfiguredMetric]:
    config = EvalConfig.model_validate({"criteria": {name: 0.5 for name in names}})
    return configured_metrics(config)


def test_the_runs_judges_record_who_computes_each_service_backed_metric() -> None:
    metrics = _configured(["safety_v1", "multi_turn_task_success_v1", "final_response_match_v2"])
    judged = judge_settings(metrics)
    assert {name: s.computed_by for name, s in judged.items()} == {
        "safety_v1": "gate-judge",
        "multi_turn_task_success_v1": "gate-judge",
        "final_response_match_v2": None,
    }
    served = judge_settings(metrics, service=True)
    assert served["safety_v1"] == JudgeSetting(
        model=SERVICE_MODEL, sampling="the service's", provider="agent-platform", computed_by="agent-platform"
    )
    assert served["final_response_match_v2"] == judged["final_response_match_v2"]

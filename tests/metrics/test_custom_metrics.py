"""``custom_metrics``: the named function is imported and called as ADK calls it, with ADK's own types, and
its EvaluationResult becomes our outcome (statuses as the function set them)."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest
from google.adk.evaluation.custom_metric_evaluator import _CustomMetricEvaluator
from google.adk.evaluation.eval_metrics import BaseCriterion as AdkBaseCriterion
from google.adk.evaluation.eval_metrics import EvalMetric

from adk_eval_gate.metrics import registry
from adk_eval_gate.metrics.custom import CustomMetric
from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, Metric, MetricOutcome, MetricServices
from adk_eval_gate.metrics.score import MetricEscaped, evaluate_metric
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import ConversationScenario, EvalCase
from adk_eval_gate.model.results import MetricStatus
from tests.judge.adk_judge import to_adk
from tests.judge.helpers import invocation, run_of
from tests.metrics.decided import Decided

MODULE = """
from google.adk.evaluation.eval_case import Invocation
from google.adk.evaluation.eval_metrics import EvalMetric, EvalStatus
from google.adk.evaluation.evaluator import EvaluationResult, PerInvocationResult

SEEN = {}


def long_answers(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    SEEN.update(
        metric=eval_metric, actual=actual_invocations, expected=expected_invocations, scenario=conversation_scenario
    )
    assert isinstance(eval_metric, EvalMetric) and all(isinstance(i, Invocation) for i in actual_invocations)
    results = []
    for actual in actual_invocations:
        text = "".join(p.text or "" for p in actual.final_response.parts)
        score = 1.0 if len(text) > 5 else 0.0
        status = EvalStatus.PASSED if score >= eval_metric.criterion.threshold else EvalStatus.FAILED
        results.append(PerInvocationResult(actual_invocation=actual, score=score, eval_status=status))
    overall = sum(r.score for r in results) / len(results)
    status = EvalStatus.PASSED if overall >= eval_metric.criterion.threshold else EvalStatus.FAILED
    return EvaluationResult(overall_score=overall, overall_eval_status=status, per_invocation_results=results)


async def async_long_answers(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    return long_answers(eval_metric, actual_invocations, expected_invocations, conversation_scenario)


def says_not_evaluated(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    return EvaluationResult()


def broken(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    raise ValueError("the metric has a bug")


def not_a_result(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    return 0.5


def infinite(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    results = [
        PerInvocationResult(actual_invocation=actual, score=1.0, eval_status=EvalStatus.PASSED)
        for actual in actual_invocations
    ]
    return EvaluationResult(
        overall_score=float("inf"), overall_eval_status=EvalStatus.PASSED, per_invocation_results=results
    )


def overall_only(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    return EvaluationResult(overall_score=1.0, overall_eval_status=EvalStatus.PASSED)


def overall_only_informational(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    return EvaluationResult(overall_score=3.0, overall_eval_status=EvalStatus.INFORMATIONAL)


def nan_per_turn(eval_metric, actual_invocations, expected_invocations, conversation_scenario):
    results = [
        PerInvocationResult(actual_invocation=actual, score=float("nan"), eval_status=EvalStatus.PASSED)
        for actual in actual_invocations
    ]
    return EvaluationResult(overall_score=0.5, overall_eval_status=EvalStatus.PASSED, per_invocation_results=results)


NOT_CALLABLE = 3
"""


@pytest.fixture
def custom_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    package = tmp_path / "my_metrics"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "lengths.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_metrics.lengths"


def metric(path: str | None, threshold: float = 0.5) -> CustomMetric:
    built = CustomMetric(
        name="long_answers", criterion=eval_config.BaseCriterion(threshold=threshold), services=MetricServices()
    )
    built.custom_function_path = path
    return built


def evaluate(built: CustomMetric, *invocations: object, case: EvalCase | None = None) -> Decided:
    """The custom metric's scores for one run, with the statuses the verdict gives them (the function's own)."""
    actual = list(invocations) or [invocation("q1", "a long answer"), invocation("q2", "no")]
    expected = None if case else [invocation("q1", "x"), invocation("q2", "y")]
    outcome = asyncio.run(evaluate_metric(built, run_of(actual, expected, case)))  # type: ignore[arg-type]
    return Decided(outcome, threshold=built.criterion.threshold if built.criterion else None)


@pytest.mark.parametrize("function", ["long_answers", "async_long_answers"])
def test_the_function_is_called_with_adks_types(custom_module: str, function: str) -> None:
    import importlib

    outcome = evaluate(metric(f"{custom_module}.{function}"))
    assert [(i.score, i.status) for i in outcome.per_invocation] == [
        (1.0, MetricStatus.PASSED),
        (0.0, MetricStatus.FAILED),
    ]
    assert (outcome.score, outcome.status) == (0.5, MetricStatus.PASSED)
    seen = importlib.import_module(custom_module).SEEN
    assert seen["metric"].threshold is None  # ADK passes a copy without the deprecated threshold
    assert seen["metric"].criterion.threshold == 0.5
    assert seen["metric"].metric_name == "long_answers"
    assert [i.user_content.parts[0].text for i in seen["expected"]] == ["q1", "q2"]
    assert seen["scenario"] is None


def test_scenario_cases_get_the_scenario_and_no_expected(custom_module: str) -> None:
    import importlib

    scenario = ConversationScenario(starting_prompt="hi", conversation_plan="plan", user_persona="NOVICE")
    case = EvalCase(eval_id="s", conversation_scenario=scenario)
    evaluate(metric(f"{custom_module}.long_answers"), invocation("hi", "a long answer"), case=case)
    seen = importlib.import_module(custom_module).SEEN
    assert seen["expected"] is None
    assert seen["scenario"].starting_prompt == "hi"
    assert seen["scenario"].user_persona.id == "NOVICE"


def test_same_result_as_adks_custom_metric_evaluator(custom_module: str) -> None:
    actual = [invocation("q1", "a long answer"), invocation("q2", "no"), invocation("q3", "another long one")]
    ours = evaluate(metric(f"{custom_module}.long_answers", threshold=0.6), *actual)
    evaluator = _CustomMetricEvaluator(
        EvalMetric(metric_name="long_answers", threshold=0.6, criterion=AdkBaseCriterion(threshold=0.6)),
        custom_function_path=f"{custom_module}.long_answers",
    )
    theirs = asyncio.run(evaluator.evaluate_invocations(to_adk(actual), None, None))  # type: ignore[arg-type]
    assert ours.score == theirs.overall_score
    assert ours.status.value == theirs.overall_eval_status.name.lower()
    assert [i.score for i in ours.per_invocation] == [r.score for r in theirs.per_invocation_results]


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("says_not_evaluated", "the custom metric function reported not evaluated"),
        ("broken", "ValueError: the metric has a bug"),
        ("not_a_result", "the custom metric function returned float, not an EvaluationResult"),
        ("NOT_CALLABLE", "has no callable 'NOT_CALLABLE'"),
        ("infinite", "returned the score inf, which is not a finite number"),
        ("nan_per_turn", "returned the score nan, which is not a finite number"),
        ("missing_function", "has no callable 'missing_function'"),
    ],
)
def test_problems_are_not_evaluated_with_the_reason(custom_module: str, target: str, reason: str) -> None:
    outcome = evaluate(metric(f"{custom_module}.{target}"))
    assert outcome.status is MetricStatus.NOT_EVALUATED
    assert outcome.reason is not None and reason in outcome.reason


def test_a_pass_or_fail_without_a_result_per_invocation_is_refused_as_adk_refuses_it(custom_module: str) -> None:
    """ADK ends the evaluation with this ValueError; here the run is an error with ADK's message."""
    with pytest.raises(MetricEscaped) as refused:
        evaluate(metric(f"{custom_module}.overall_only"))
    assert str(refused.value) == (
        "custom metric long_answers: Eval metric should return results for each invocation. "
        "Found 0 results for 2 invocations."
    )


@pytest.mark.parametrize(("target", "score"), [("overall_only_informational", 3.0), ("says_not_evaluated", None)])
def test_an_informational_or_unevaluated_result_needs_no_result_per_invocation(
    custom_module: str, target: str, score: float | None
) -> None:
    outcome = evaluate(metric(f"{custom_module}.{target}"))
    assert (outcome.score, outcome.per_invocation) == (score, [])


def test_a_module_that_does_not_exist() -> None:
    outcome = evaluate(metric("no_such_package.metrics.fn"))
    assert outcome.status is MetricStatus.NOT_EVALUATED
    assert (
        outcome.reason is not None
        and "cannot import custom metric function 'no_such_package.metrics.fn'" in outcome.reason
    )
    outcome = evaluate(metric("justaname"))
    assert outcome.reason == "custom metric function 'justaname' must be written as package.module.function"


def test_a_module_in_the_working_directory_is_importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd_metrics.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", str(tmp_path))])
    outcome = evaluate(metric("cwd_metrics.long_answers"))
    assert (outcome.score, outcome.status) == (0.5, MetricStatus.PASSED)


@pytest.mark.parametrize("linked", ["module", "package"])
def test_a_metric_module_that_is_a_link_out_of_the_repository_is_never_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, linked: str
) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    (outside / "pkg").mkdir(parents=True)
    marker = tmp_path / "imported"
    code = f"open({str(marker)!r}, 'w').close()\n" + textwrap.dedent(MODULE)
    (outside / "linked_metrics.py").write_text(code, encoding="utf-8")
    (outside / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (outside / "pkg" / "linked_metrics.py").write_text(code, encoding="utf-8")
    if linked == "module":
        (repo / "linked_metrics.py").symlink_to(outside / "linked_metrics.py")
        name, shown = "linked_metrics.long_answers", "linked_metrics.py"
    else:
        (repo / "pkg").symlink_to(outside / "pkg")
        name, shown = "pkg.linked_metrics.long_answers", "pkg/__init__.py"
    monkeypatch.chdir(repo)
    monkeypatch.setattr("sys.path", [str(repo), *__import__("sys").path])
    outcome = evaluate(metric(name))
    assert outcome.status is MetricStatus.NOT_EVALUATED
    assert outcome.reason == (
        f"custom metric function {name!r}: {shown} is outside the repository (symbolic links followed); only the "
        "repository's own code is run: move the file into the repository"
    )
    assert not marker.exists()


def test_the_registry_builds_it_with_the_function_path(custom_module: str) -> None:
    config = eval_config.EvalConfig.model_validate(
        {
            "criteria": {"long_answers": 0.5},
            "custom_metrics": {"long_answers": {"code_config": {"name": f"{custom_module}.long_answers"}}},
        }
    )
    [configured] = [m for m in registry.configured_metrics(config) if m.name == "long_answers"]
    built = configured.build(MetricServices())
    assert isinstance(built, CustomMetric)
    assert built.custom_function_path == f"{custom_module}.long_answers"
    assert (evaluate(built).score, configured.spec.kind) == (0.5, "custom")


class _Returns(Metric):
    """A metric that returns the outcome it was given (our own interface, whatever the metric)."""

    def __init__(self, produced: MetricOutcome) -> None:
        super().__init__(name="m", criterion=eval_config.BaseCriterion(threshold=0.5), services=MetricServices())
        self.produced = produced

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        return self.produced


@pytest.mark.parametrize("score", [float("inf"), float("-inf"), float("nan")])
def test_any_metric_whose_score_is_not_finite_is_not_evaluated(score: float) -> None:
    turn = invocation("q", "a")
    for produced in (
        MetricOutcome(score, [InvocationScore(0.5)]),
        MetricOutcome(0.5, [InvocationScore(score)]),
    ):
        result = Decided(asyncio.run(evaluate_metric(_Returns(produced), run_of([turn], [turn]))), threshold=0.5)
        assert result.status is MetricStatus.NOT_EVALUATED and result.score is None
        assert result.reason == f"the metric's score {score} is not a finite number (a score must be within ±1.8e308)"

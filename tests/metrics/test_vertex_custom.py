"""Custom metric functions written the way Vertex AI documents them, ``f(instance) -> {name: score}``, named in
test_config.json's ``custom_metrics`` with ``"signature": "vertex"``."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig

from adk_eval_gate.inputs.configs import ConfigSource, load_config
from adk_eval_gate.model.evalset import ConversationScenario, EvalCase
from adk_eval_gate.model.results import MetricStatus
from tests.judge.helpers import invocation, run_of
from tests.metrics.vertex_helpers import build, outcome, with_calls

# The function of Vertex AI's guide "Evaluate Gen AI agents" (its customization section), as the guide prints it.
GUIDE_FUNCTION = """
def essential_tools_present(instance, required_tools = ["tool1", "tool2"]):
    trajectory = instance["predicted_trajectory"]
    tools_present = [tool_used['tool_name'] for tool_used in trajectory]
    if len(required_tools) == 0:
      return {"essential_tools_present": 1}
    score = 0
    for tool in required_tools:
      if tool in tools_present:
        score += 1
    return {
        "essential_tools_present": score/len(required_tools),
    }
"""

OURS = """
SEEN = []


def remember(instance):
    SEEN.append(instance)
    return {"remember": 1.0, "explanation": f"saw {instance['prompt']}"}


def broken(instance):
    raise ValueError("the metric has a bug: " + instance["prompt"])


def wrong_shape(instance):
    return 0.5


async def later(instance):
    return {"later": 0.25}


def huge(instance):
    return {"huge": 1e308}


def infinite(instance):
    return {"infinite": float("inf")}


def enormous(instance):
    return {"enormous": 10**400}


def unprintable(instance):
    return {"unprintable": 10**5000}
"""


@pytest.fixture
def metrics_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A module of metric functions, importable under a name of its own for each test."""
    name = "vertex_metrics_" + re.sub(r"\W+", "_", request.node.name)
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(GUIDE_FUNCTION) + OURS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _config(module: str, function: str, threshold: float = 0.5) -> dict[str, Any]:
    return {
        "criteria": {function: threshold},
        "custom_metrics": {function: {"code_config": {"name": f"{module}.{function}"}, "signature": "vertex"}},
    }


def _metric(module: str, function: str, threshold: float = 0.5) -> Any:
    config = _config(module, function, threshold)
    return build(function, threshold, config={"custom_metrics": config["custom_metrics"]})


def test_the_guides_essential_tools_present_works_unchanged(metrics_module: str, tmp_path: Path) -> None:
    actual = [
        with_calls("a", "ok", ("tool1", {"x": 1}), ("tool2", {})),
        with_calls("b", "ok", ("tool2", None), ("other", {})),
        with_calls("c", "ok"),
    ]
    result = outcome(
        _metric(metrics_module, "essential_tools_present"), run_of(actual, [invocation(t, "ok") for t in "abc"])
    )
    assert [(i.score, i.status) for i in result.per_invocation] == [
        (1.0, MetricStatus.PASSED),
        (0.5, MetricStatus.PASSED),
        (0.0, MetricStatus.FAILED),
    ]
    assert (result.score, result.status) == (0.5, MetricStatus.PASSED)
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps(_config(metrics_module, "essential_tools_present")), encoding="utf-8")
    loaded = load_config(ConfigSource("folder", path), root=tmp_path)
    assert [m.name for m in loaded.metrics][:1] == ["essential_tools_present"] and loaded.warnings == []
    adk = AdkEvalConfig.model_validate(json.loads(path.read_text()))  # ADK still loads the file (and ignores ours)
    assert adk.custom_metrics["essential_tools_present"].code_config.name.endswith(".essential_tools_present")


def test_the_instance_is_the_invocation_as_a_vertex_dataset_row(metrics_module: str) -> None:
    import importlib

    module = importlib.import_module(metrics_module)
    actual = [with_calls("Book Dune", "Booked.", ("book", {"movie": "Dune"}))]
    expected = [with_calls("Book Dune", "Your tickets are booked.", ("book", {"movie": "Dune", "seats": 2}))]
    result = outcome(_metric(metrics_module, "remember", 1.0), run_of(actual, expected))
    assert module.SEEN == [
        {
            "prompt": "Book Dune",
            "response": "Booked.",
            "predicted_trajectory": [{"tool_name": "book", "tool_input": {"movie": "Dune"}}],
            "reference": "Your tickets are booked.",
            "reference_trajectory": [{"tool_name": "book", "tool_input": {"movie": "Dune", "seats": 2}}],
        }
    ]
    assert result.details == {"explanations": ["saw Book Dune"]}
    scenario = EvalCase(
        eval_id="s", conversation_scenario=ConversationScenario(starting_prompt="hi", conversation_plan="p")
    )
    outcome(_metric(metrics_module, "remember", 1.0), run_of([invocation("hi", "hello")], None, scenario))
    assert set(module.SEEN[-1]) == {"prompt", "response", "predicted_trajectory"}  # no reference without one


@pytest.mark.parametrize(
    ("function", "reason"),
    [
        ("broken", ".broken raised ValueError: the metric has a bug: q"),
        (
            "wrong_shape",
            ".wrong_shape returned 0.5; a Vertex-style metric function returns {'wrong_shape': <a number>}",
        ),
        ("infinite", ".infinite returned {'infinite': inf}; a Vertex-style metric function returns"),
        ("enormous", ".enormous returned {'enormous': 1000000000"),
        ("unprintable", ".unprintable returned {'unprintable': an integer too large to print}; a Vertex-style"),
    ],
    ids=["raises", "wrong_shape", "infinite", "too_large_for_a_float", "too_large_to_print"],
)
def test_a_failing_function_is_that_metrics_problem_with_its_message(
    metrics_module: str, function: str, reason: str
) -> None:
    result = outcome(_metric(metrics_module, function), run_of([invocation("q", "a")], [invocation("q", "a")]))
    assert result.status is MetricStatus.NOT_EVALUATED and result.score is None
    assert reason in (result.reason or "")


def test_scores_of_1e308_on_two_rows_have_a_finite_mean(metrics_module: str) -> None:
    rows = [invocation("q1", "a"), invocation("q2", "b")]
    result = outcome(_metric(metrics_module, "huge", 1.0), run_of(rows, rows))
    assert [item.score for item in result.per_invocation] == [1e308, 1e308]
    assert (result.score, result.status) == (1e308, MetricStatus.PASSED)


def test_an_async_function_is_awaited(metrics_module: str) -> None:
    result = outcome(_metric(metrics_module, "later", 0.2), run_of([invocation("q", "a")], [invocation("q", "a")]))
    assert (result.score, result.status) == (0.25, MetricStatus.PASSED)

"""AgentEvaluator's checks, word for word: a legacy file's criteria and first row (against ADK's own
``_validate_input``), and the metric results ADK refuses."""

from __future__ import annotations

from typing import Any

import pytest
from google.adk.evaluation.agent_evaluator import AgentEvaluator as AdkAgentEvaluator

from adk_eval_gate.model.results import CaseResult, RunRecord
from adk_eval_gate.pytest.adk_checks import legacy_input_problem, refused_result

FULL = {"query": "q", "expected_tool_use": [], "reference": "r"}
ROWS: list[list[dict[str, Any]]] = [
    [FULL],
    [{"query": "q"}, FULL],
    [{"query": "q", "reference": "r"}],
    [{"query": "q", "expected_tool_use": []}],
    [{"reference": "r", "expected_tool_use": [], "other": "<b>\u0000</b>"}],
    [{"name": "named", "data": [FULL]}],
]
CRITERIA = [
    ["tool_trajectory_avg_score", "response_match_score"],
    ["response_match_score"],
    ["response_evaluation_score"],
    ["safety_v1"],
    ["tool_trajectory_avg_score", "hallucinations_v1"],
    ["my_custom_metric"],
    [],
]


def adks(rows: list[dict[str, Any]], criteria: list[str]) -> str | None:
    try:
        AdkAgentEvaluator._validate_input([rows], dict.fromkeys(criteria, 0.5))
    except ValueError as error:
        return str(error)
    return None


@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("criteria", CRITERIA)
def test_a_legacy_files_rows_and_criteria_are_checked_as_agent_evaluator_checks_them(
    rows: list[dict[str, Any]], criteria: list[str]
) -> None:
    assert legacy_input_problem(rows, criteria) == adks(rows, criteria)


@pytest.mark.parametrize("rows", [[], {"query": "q"}, ["not an object"], None])
def test_rows_the_loader_refuses_are_left_to_its_error(rows: Any) -> None:
    assert legacy_input_problem(rows, ["response_match_score"]) is None


def test_adks_refusal_of_a_metric_result_is_found_in_the_run_that_ended_on_it() -> None:
    refusal = "Eval metric should return results for each invocation. Found 0 results for 2 invocations."
    runs = [RunRecord(run=1, status="error", error=f"custom metric m: {refusal}"), RunRecord(run=2, status="passed")]
    case = CaseResult(id="f::c", file="f", eval_set_id="s", eval_id="c", status="error", runs=runs)
    assert refused_result([case]) == refusal
    other = RunRecord(run=1, status="error", error="the agent raised ValueError: boom")
    assert refused_result([case.model_copy(update={"runs": [other]})]) is None

"""What ADK 2.13's ``AgentEvaluator`` checks and raises before and after it scores, word for word, for the drop-in.

* A legacy file (anything that is not an EvalSet): ``_validate_input`` allows four criteria only, and checks the
  keys those criteria need in the file's first row (only the first, "for efficiency"); a ``ValueError`` names the
  problem and shows the rows.
* A metric that passes or fails without one result per invocation: ``LocalEvalService`` raises its ``ValueError``,
  which ends AgentEvaluator's evaluation (the gate makes that case run an error with ADK's message).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adk_eval_gate.metrics.custom import PER_INVOCATION_REQUIRED
from adk_eval_gate.model.results import CaseResult

TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE_EVALUATION = "response_evaluation_score"
RESPONSE_MATCH = "response_match_score"
ALLOWED_CRITERIA = [TRAJECTORY, RESPONSE_EVALUATION, RESPONSE_MATCH, "safety_v1"]
QUERY, REFERENCE, EXPECTED_TOOL_USE = "query", "reference", "expected_tool_use"


def legacy_input_problem(rows: Any, criteria: Iterable[str]) -> str | None:
    """``AgentEvaluator._validate_input``'s ``ValueError`` for a legacy file's rows and criteria, or None."""
    names = list(criteria)
    for key in names:
        if key not in ALLOWED_CRITERIA:
            return f"Invalid criteria key: {key}. Expected one of {ALLOWED_CRITERIA}."
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict):
        return None  # the loader says what is wrong with such a file
    first = rows[0]
    if TRAJECTORY in names and (QUERY not in first or EXPECTED_TOOL_USE not in first):
        return f"Samples for {TRAJECTORY} must include '{QUERY}' and '{EXPECTED_TOOL_USE}' keys. The sample is {rows}."
    if RESPONSE_EVALUATION in names and QUERY not in first:
        return f"Samples for {RESPONSE_EVALUATION} must include '{QUERY}' key. The sample is {rows}."
    if RESPONSE_MATCH in names and (QUERY not in first or REFERENCE not in first):
        return f"Samples for {RESPONSE_MATCH} must include '{QUERY}' and '{REFERENCE}' keys. The sample is {rows}."
    return None


def refused_result(cases: list[CaseResult]) -> str | None:
    """ADK's message for a metric result it refuses outright, from the first run that ended on one, or None."""
    for case in cases:
        for run in case.runs:
            if run.error and PER_INVOCATION_REQUIRED in run.error:
                return run.error[run.error.index(PER_INVOCATION_REQUIRED) :]
    return None

"""One invocation as a row of a Vertex AI evaluation dataset (an "instance"), for the templated judge metrics and
Vertex-style custom functions.

Columns: ``prompt`` (the user's text), ``response`` (the actual final response text), ``predicted_trajectory``
(the actual tool calls as ``{"tool_name", "tool_input"}``), and, when the case has expected invocations,
``reference`` (the expected final response text) and ``reference_trajectory`` (the expected tool calls).
"""

from __future__ import annotations

from typing import Any

from adk_eval_gate.metrics.metric import CaseRun, require_expected
from adk_eval_gate.model.evalset import Invocation, content_text, tool_calls


def trajectory(invocation: Invocation) -> list[dict[str, Any]]:
    """The invocation's tool calls in Vertex's trajectory shape."""
    return [
        {"tool_name": call.name or "", "tool_input": dict(call.args or {})}
        for call in tool_calls(invocation.intermediate_data)
    ]


def instances(run: CaseRun, *, metric_name: str, need_reference: bool) -> list[dict[str, Any]]:
    """One instance per actual invocation; ``need_reference``: a case without expected invocations is
    ``NotEvaluated`` (with the reason), else its instances just have no reference columns."""
    expected: list[Invocation] | None = None
    if need_reference or run.expected is not None:
        expected = require_expected(run, metric_name)
    rows = []
    for index, actual in enumerate(run.actual):
        row: dict[str, Any] = {
            "prompt": content_text(actual.user_content),
            "response": content_text(actual.final_response),
            "predicted_trajectory": trajectory(actual),
        }
        if expected is not None:
            row["reference"] = content_text(expected[index].final_response)
            row["reference_trajectory"] = trajectory(expected[index])
        rows.append(row)
    return rows

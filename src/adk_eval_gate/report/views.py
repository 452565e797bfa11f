"""Read-only views of results.json content for the renderers (they work from saved results alone)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.evalset import Invocation, content_text, tool_calls
from adk_eval_gate.results import CaseResult, MetricResult, RunRecord


def format_call(call: genai_types.FunctionCall) -> str:
    rendered = "" if call.args is None else json.dumps(call.args, ensure_ascii=False, sort_keys=True)
    return f"{call.name or '?'}({rendered})"


def _invocation(read: Callable[[], Invocation | None]) -> Invocation | None:
    try:
        return read()
    except pydantic.ValidationError:  # a hand-edited or foreign results.json: show the turn without it
        return None


@dataclass(frozen=True)
class TurnView:
    number: int
    user: str
    expected_answer: str | None
    actual_answer: str | None
    expected_calls: list[str] | None
    actual_calls: list[str] | None
    expected: Invocation | None = None  # the whole turns, for renderers that show more (report.html)
    actual: Invocation | None = None


def turns(run: RunRecord) -> list[TurnView]:
    views = []
    for number, item in enumerate(run.invocations, start=1):
        expected = _invocation(item.expected_invocation)
        actual = _invocation(item.actual_invocation)
        views.append(
            TurnView(
                number=number,
                user=item.user,
                expected_answer=content_text(expected.final_response) if expected else None,
                actual_answer=content_text(actual.final_response) if actual else None,
                expected_calls=[format_call(c) for c in tool_calls(expected.intermediate_data)] if expected else None,
                actual_calls=[format_call(c) for c in tool_calls(actual.intermediate_data)] if actual else None,
                expected=expected,
                actual=actual,
            )
        )
    return views


def failing_metrics(case: CaseResult) -> list[MetricResult]:
    return [m for m in case.metrics if m.status in ("failed", "not_evaluated")]


def failure_reason(metric: MetricResult) -> str:
    """``name: score < threshold`` for a failed metric, ``name: not evaluated (why)`` otherwise."""
    if metric.status == "failed" and metric.score is not None and metric.threshold is not None:
        return f"{metric.name}: {metric.score:.4g} < {metric.threshold:.4g}"
    return f"{metric.name}: not evaluated ({metric.reason or 'no score'})"


def worst_run(case: CaseResult) -> RunRecord | None:
    """The run to show for a failing case: the first that errored or failed, else the first."""
    for status in ("error", "failed", "not_evaluated"):
        for run in case.runs:
            if run.status == status:
                return run
    return case.runs[0] if case.runs else None

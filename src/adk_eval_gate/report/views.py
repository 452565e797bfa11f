"""Read-only views of results.json content for the renderers (they work from saved results alone)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from adk_eval_gate import results as r


def _parts_text(content: Any) -> str:
    if not isinstance(content, dict):
        return ""
    parts = content.get("parts") or []
    return "\n".join(str(p["text"]) for p in parts if isinstance(p, dict) and p.get("text"))


def _calls(invocation: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not invocation:
        return []
    data = invocation.get("intermediate_data") or invocation.get("intermediateData") or {}
    if not isinstance(data, dict):
        return []
    if "invocation_events" in data or "invocationEvents" in data:
        calls = []
        for event in data.get("invocation_events") or data.get("invocationEvents") or []:
            content = event.get("content") if isinstance(event, dict) else None
            for part in (content or {}).get("parts") or []:
                call = part.get("function_call") or part.get("functionCall") if isinstance(part, dict) else None
                if call:
                    calls.append(call)
        return calls
    return list(data.get("tool_uses") or data.get("toolUses") or [])


def format_call(call: dict[str, Any]) -> str:
    args = call.get("args")
    rendered = "" if args is None else json.dumps(args, ensure_ascii=False, sort_keys=True)
    return f"{call.get('name', '?')}({rendered})"


@dataclass(frozen=True)
class TurnView:
    number: int
    user: str
    expected_answer: str | None
    actual_answer: str | None
    expected_calls: list[str] | None
    actual_calls: list[str] | None


def turns(run: r.RunRecord) -> list[TurnView]:
    views = []
    for number, item in enumerate(run.invocations, start=1):
        views.append(
            TurnView(
                number=number,
                user=item.user,
                expected_answer=_parts_text((item.expected or {}).get("final_response")) if item.expected else None,
                actual_answer=_parts_text((item.actual or {}).get("final_response")) if item.actual else None,
                expected_calls=[format_call(c) for c in _calls(item.expected)] if item.expected else None,
                actual_calls=[format_call(c) for c in _calls(item.actual)] if item.actual else None,
            )
        )
    return views


def failing_metrics(case: r.CaseResult) -> list[r.MetricResult]:
    return [m for m in case.metrics if m.status in ("failed", "not_evaluated")]


def failure_reason(metric: r.MetricResult) -> str:
    """``name: score < threshold`` for a failed metric, ``name: not evaluated (why)`` otherwise."""
    if metric.status == "failed" and metric.score is not None and metric.threshold is not None:
        return f"{metric.name}: {metric.score:.4g} < {metric.threshold:.4g}"
    return f"{metric.name}: not evaluated ({metric.reason or 'no score'})"


def worst_run(case: r.CaseResult) -> r.RunRecord | None:
    """The run to show for a failing case: the first that errored or failed, else the first."""
    for status in ("error", "failed", "not_evaluated"):
        for run in case.runs:
            if run.status == status:
                return run
    return case.runs[0] if case.runs else None

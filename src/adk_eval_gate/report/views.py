"""Read-only views of results.json content for the renderers (they work from saved results alone)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from adk_eval_gate.judge import platform_access
from adk_eval_gate.model import compact
from adk_eval_gate.model.results import (
    CaseResult,
    CaseStatus,
    ComputedBy,
    Effect,
    MetricResult,
    MetricStatus,
    RunRecord,
)

JSON_TEXT = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str)
"""How a value from results.json is shown as JSON text (``json.dumps``'s options, the encoder made once)."""


def _call_text(name: str, args: object) -> str:
    rendered = "" if args is None else JSON_TEXT.encode(args)
    return f"{name}({rendered})"


@dataclass(frozen=True)
class TurnView:
    number: int
    user: str
    expected_answer: str | None
    actual_answer: str | None
    expected_calls: list[str] | None
    actual_calls: list[str] | None
    expected: compact.Turn | None = None  # the whole turns, compact, for renderers that show more (report.html)
    actual: compact.Turn | None = None


def _calls(turn: compact.Turn | None) -> list[str] | None:
    found = compact.tool_calls(turn)
    return None if found is None else [_call_text(name, args) for name, args in found]


def turns(run: RunRecord) -> list[TurnView]:
    """The run's turns, read from their compact form (never validated again: a renderer shows what it can)."""
    views = []
    for number, item in enumerate(run.invocations, start=1):
        expected, actual = item.expected_turn(), item.actual_turn()
        views.append(
            TurnView(
                number=number,
                user=item.user,
                expected_answer=compact.answer_text(expected),
                actual_answer=compact.answer_text(actual),
                expected_calls=_calls(expected),
                actual_calls=_calls(actual),
                expected=expected,
                actual=actual,
            )
        )
    return views


def computed_by_label(name: str, computed_by: ComputedBy | None) -> str:
    """`` (gate's judge)`` or `` (evaluation service)`` after a metric ADK computes through Google's evaluation
    service, saying who computed it here; nothing after any other metric."""
    who = platform_access.recorded(name, computed_by)
    return f" ({platform_access.SHORT_WORDS[who]})" if who is not None else ""


def failing_metrics(case: CaseResult) -> list[MetricResult]:
    return [m for m in case.metrics if m.status in (MetricStatus.FAILED, MetricStatus.NOT_EVALUATED)]


def worst_run(case: CaseResult) -> RunRecord | None:
    """The run to show for a failing case: the first that errored or failed, else the first."""
    for status in (CaseStatus.ERROR, CaseStatus.FAILED, CaseStatus.NOT_EVALUATED):
        for run in case.runs:
            if run.status == status:
                return run
    return case.runs[0] if case.runs else None


def case_reasons(case: CaseResult) -> list[str]:
    """Why the case did not pass, as the verdict found it: each failing or unevaluated metric, the pass rule, each
    budget it missed or could not check."""
    return [finding.reason for finding in case.findings if finding.effect != Effect.NONE and finding.rule != "error"]


def metric_notes(run: RunRecord, name: str) -> list[str]:
    """What a metric of a run says about its score: the LLM judge's explanation per turn (templated judge
    metrics) and the session state keys that differ (``final_session_state_match``). Plain text."""
    metric = next((m for m in run.metrics if m.name == name), None)
    if metric is None or not isinstance(metric.details, dict):
        return []
    notes: list[str] = []
    explanations = metric.details.get("explanations")
    for number, text in enumerate(explanations if isinstance(explanations, list) else [], start=1):
        if isinstance(text, str) and text:
            score = metric.invocation_scores[number - 1] if number <= len(metric.invocation_scores) else None
            notes.append(f"turn {number}{'' if score is None else f' (score {score:.4g})'}: {text}")
    differing = metric.details.get("differing_keys")
    for entry in differing if isinstance(differing, list) else []:
        if isinstance(entry, dict) and "key" in entry:
            notes.append(_state_difference(entry))
    return notes


def failing_metric_notes(run: RunRecord) -> list[str]:
    """``metric: note`` for every metric of the run that did not pass."""
    return [
        f"{metric.name}: {note}"
        for metric in run.metrics
        if metric.status in (MetricStatus.FAILED, MetricStatus.NOT_EVALUATED)
        for note in metric_notes(run, metric.name)
    ]


def _json_text(value: object) -> str:
    text = JSON_TEXT.encode(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _state_difference(entry: dict[str, object]) -> str:
    key = f"state key {_json_text(entry['key'])}"
    expected = f"expected {_json_text(entry['expected'])}" if "expected" in entry else "not expected"
    actual = f"got {_json_text(entry['actual'])}" if "actual" in entry else "missing"
    return f"{key}: {expected}, {actual}"

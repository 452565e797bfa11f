"""A case's verdict as plain text for a test report: its failing metrics and its turns, expected against actual."""

from __future__ import annotations

import re

from adk_eval_gate.model.results import CaseResult, CaseStatus, MetricResult, MetricStatus
from adk_eval_gate.report import views
from adk_eval_gate.verdict import comparison_text, failure_reason, run_scores_text

_TEXT = 500  # characters of an answer shown


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def _metric_line(metric: MetricResult) -> str:
    """``name: score S < threshold T`` as the verdict compared them (``<=`` and said when lower is better), its run
    scores when there are several, or why it was not evaluated."""
    if metric.status == MetricStatus.NOT_EVALUATED:
        return failure_reason(metric)
    runs = run_scores_text(metric)
    if metric.status == MetricStatus.INFORMATIONAL or metric.threshold is None:
        return f"{metric.name}: {_number(metric.score)} (informational){runs}"
    return f"{metric.name}: {comparison_text(metric, labelled=True)}{runs}"


def _clip(text: str) -> str:
    return repr(text if len(text) <= _TEXT else text[: _TEXT - 1] + "…")


def _answer(answer: str | None) -> str:
    return "-" if answer is None else _clip(answer)


def _calls(calls: list[str] | None) -> str:
    return "-" if calls is None else ", ".join(calls) or "(none)"


def _turn_lines(turn: views.TurnView) -> list[str]:
    return [
        f"  turn {turn.number}: user {_clip(turn.user)}",
        f"    expected answer {_answer(turn.expected_answer)}",
        f"    actual answer   {_answer(turn.actual_answer)}",
        f"    expected tools  {_calls(turn.expected_calls)}",
        f"    actual tools    {_calls(turn.actual_calls)}",
    ]


def without_file(text: str, file: str) -> str:
    """``FILE:3:7: what`` as ``line 3, column 7: what``, the file left to the test's id that names it already (so
    that what went wrong comes first); other text as it is."""
    found = re.match(rf"{re.escape(file)}(?::(\d+))?(?::(\d+))?: ", text)
    if found is None:
        return text
    line, column = found.groups()
    where = (f"line {line}" + (f", column {column}" if column else "")) if line else ""
    rest = text[found.end() :]
    return f"{where}: {rest}" if where else rest


def why(case: CaseResult) -> str:
    """Why the case did not pass, in one line: its error, or the verdict's reasons (each failing or unevaluated
    metric, the pass rule, a missed budget)."""
    if case.error:
        return without_file(" ".join(case.error.split()), case.file)
    return "; ".join(views.case_reasons(case)) or str(case.status)


def case_report(case: CaseResult, *, every_metric: bool = False) -> str:
    """Why the case did not pass first (the line pytest's short summary shows after the test's id, which it cuts
    to the terminal's width), then its status, its failing metrics (``every_metric``: all of them) and its worst
    run's turns."""
    runs = f" over {len(case.runs)} runs" if len(case.runs) > 1 else ""
    headline = why(case) if case.status != CaseStatus.PASSED else None
    lines = [*([headline] if headline else []), f"{case.id}: {case.status}{runs}"]
    if case.error and headline != case.error:
        lines.append(f"  error: {case.error}")
    lines += [f"  sequential: {found.reason}" for found in case.findings if found.rule == "sequential"]
    scored = any(not run.error for run in case.runs)  # no run scored: the error says it all
    shown = (case.metrics if every_metric else views.failing_metrics(case)) if scored else []
    lines += [f"  {_metric_line(metric)}" for metric in shown]
    run = views.worst_run(case)
    if run is not None and run.invocations:
        lines.append(f"run {run.run} ({run.status}):")
        for turn in views.turns(run):
            lines += _turn_lines(turn)
    return "\n".join(lines)

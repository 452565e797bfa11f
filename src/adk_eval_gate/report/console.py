"""Console lines: one per finished case run, and the verdict at the end."""

from __future__ import annotations

from adk_eval_gate import results as r
from adk_eval_gate.aggregate import FinishedRun
from adk_eval_gate.console import Console
from adk_eval_gate.metrics.base import Status
from adk_eval_gate.plan import WorkItem
from adk_eval_gate.report import views

_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "not_evaluated": "NOT EVALUATED"}


def _fmt(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.3g}"


def run_finished(console: Console, item: WorkItem, finished: FinishedRun) -> None:
    run_suffix = f" [run {item.run}]" if item.run > 1 else ""
    if finished.inference.error:
        console.line(f"ERROR {item.case_id}{run_suffix}: {finished.inference.error}")
        return
    graded = [s for s in finished.scored if s.outcome.status is not Status.INFORMATIONAL]
    statuses = {s.outcome.status for s in graded}
    if Status.FAILED in statuses:
        mark = "FAIL"
    elif Status.NOT_EVALUATED in statuses or not graded:
        mark = "NOT EVALUATED"
    else:
        mark = "PASS"
    scores = " ".join(f"{s.configured.name}={_fmt(s.outcome.score)}" for s in graded)
    console.line(f"{mark} {item.case_id}{run_suffix} {scores}".rstrip())


_SHOWN_CASES = 20  # the log shows what went wrong for this many cases; the summary and JUnit have them all
_TEXT = 160


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT else text[: _TEXT - 1] + "…"


def _differences(case: r.CaseResult) -> list[str]:
    """The turns of the case's worst run where the tool calls or the answer differ from the expectation."""
    run = views.worst_run(case)
    lines: list[str] = []
    for turn in views.turns(run) if run else []:
        if (
            turn.expected_calls is not None
            and turn.actual_calls is not None
            and turn.expected_calls != turn.actual_calls
        ):
            lines.append(f"turn {turn.number} tools:  expected {_clip(', '.join(turn.expected_calls) or '(none)')}")
            lines.append(f"{'':15}got      {_clip(', '.join(turn.actual_calls) or '(none)')}")
        if (
            turn.expected_answer is not None
            and turn.actual_answer is not None
            and turn.expected_answer != turn.actual_answer
        ):
            lines.append(f"turn {turn.number} answer: expected {_clip(turn.expected_answer)!r}")
            lines.append(f"{'':15}got      {_clip(turn.actual_answer)!r}")
    return lines


def final(console: Console, doc: r.ResultsDocument) -> None:
    totals = doc.totals
    failing = [c for c in doc.cases if c.status != "passed"]
    if failing:
        console.line("")
        console.line("Cases that did not pass:")
        for index, case in enumerate(failing):
            reasons = [views.failure_reason(m) for m in views.failing_metrics(case)]
            detail = case.error or "; ".join(reasons)
            console.line(f"  {_MARK[case.status]} {case.id}: {detail}")  # annotations: github/annotations.py
            if index < _SHOWN_CASES and case.status == "failed":
                for line in _differences(case):
                    console.line(f"      {line}")
        if len(failing) > _SHOWN_CASES:
            console.line(f"  (expected and actual turns are shown for the first {_SHOWN_CASES}; see summary.md)")
    parts = [
        f"{totals.passed} passed",
        f"{totals.failed} failed",
        f"{totals.error} errors",
        f"{totals.not_evaluated} not evaluated",
    ]
    if totals.file_errors:
        parts.append(f"{totals.file_errors} file{'s' if totals.file_errors > 1 else ''} could not be loaded")
    if doc.comparison is not None:
        parts.append(f"{doc.comparison.regressions} regressions against the baseline")
    if doc.error:
        console.line("")
        console.line(f"The run ended in error: {doc.error}")
    if doc.run.unfinished:
        shown = ", ".join(doc.run.unfinished[:_SHOWN_CASES])
        more = f" and {len(doc.run.unfinished) - _SHOWN_CASES} more" if len(doc.run.unfinished) > _SHOWN_CASES else ""
        console.line(f"Interrupted: {len(doc.run.unfinished)} cases did not finish: {shown}{more}")
    console.line("")
    console.line(f"ADK eval gate: {doc.status.upper()} - {totals.cases} cases: " + ", ".join(parts))
    if console.annotations_dropped:
        console.line(f"({console.annotations_dropped} more annotations were not written: GitHub shows at most 50)")

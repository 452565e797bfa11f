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


def final(console: Console, doc: r.ResultsDocument) -> None:
    totals = doc.totals
    failing = [c for c in doc.cases if c.status != "passed"]
    if failing:
        console.line("")
        console.line("Cases that did not pass:")
        for case in failing:
            reasons = [views.failure_reason(m) for m in views.failing_metrics(case)]
            detail = case.error or "; ".join(reasons)
            console.line(f"  {_MARK[case.status]} {case.id}: {detail}")  # annotations: github/annotations.py
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
    console.line("")
    console.line(f"ADK eval gate: {doc.status.upper()} - {totals.cases} cases: " + ", ".join(parts))
    if console.annotations_dropped:
        console.line(f"({console.annotations_dropped} more annotations were not written: GitHub shows at most 50)")

"""After scoring: compare with the baseline, write the reports, publish to GitHub, and decide the exit code."""

from __future__ import annotations

from adk_eval_gate import results as r
from adk_eval_gate.console import Console
from adk_eval_gate.report import console as console_report
from adk_eval_gate.report.writer import write_reports
from adk_eval_gate.settings import Settings


def exit_code(doc: r.ResultsDocument) -> int:
    """0 passed, 1 the gate failed, 2 an eval file or config could not be used."""
    if doc.totals.file_errors:
        return 2
    return 0 if doc.status == "passed" else 1


def finish_run(doc: r.ResultsDocument, *, settings: Settings, console: Console) -> int:
    write_reports(doc, settings=settings, console=console)
    console_report.final(console, doc)
    return exit_code(doc)

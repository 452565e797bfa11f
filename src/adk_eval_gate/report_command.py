"""``adk-eval-gate report RESULTS``: re-render the reports from saved results (and publish them)."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.console import Console
from adk_eval_gate.merge import load_results
from adk_eval_gate.publish import exit_code
from adk_eval_gate.report import junit, summary
from adk_eval_gate.settings import Settings


def report(settings: Settings, console: Console, *, results_file: str, comment: bool, pr: int | None) -> int:
    doc = load_results(Path(results_file))
    for path, text in (
        (settings.junit_path, junit.render(doc)),
        (settings.summary_path, summary.render(doc)),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    console.line(f"Wrote {settings.junit_path} and {settings.summary_path} from {results_file}")
    return exit_code(doc)

"""Write results.json, junit.xml and summary.md (the only file writes of a run besides GitHub's files)."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate import results as r
from adk_eval_gate.console import Console
from adk_eval_gate.errors import UsageError
from adk_eval_gate.report import junit, summary
from adk_eval_gate.settings import Settings


def results_json(doc: r.ResultsDocument) -> str:
    return doc.model_dump_json(indent=2) + "\n"


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}", hint="check the output paths") from None


def write_reports(doc: r.ResultsDocument, *, settings: Settings, console: Console, source: str | None = None) -> None:
    """results.json, junit.xml and summary.md; with ``source`` (``report``), only the last two, from it."""
    if source is None:
        _write(settings.results_path, results_json(doc))
    _write(settings.junit_path, junit.render(doc))
    _write(settings.summary_path, summary.render(doc))
    if source is None:
        console.line(f"Wrote {settings.results_path}, {settings.junit_path} and {settings.summary_path}")
    else:
        console.line(f"Wrote {settings.junit_path} and {settings.summary_path} from {source}")

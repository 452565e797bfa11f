"""The reports rendered once and written, with the verdict they carry decided here: a renderer that raises (data no
test foresaw) turns the run into an error that says which report failed, decided again, and the other reports are
rendered once more so that they carry it. What is written is what ``github.publish`` posts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate import verdict
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report.writer import Rendered, Renderer, render_reports, report_renderers, write_reports
from adk_eval_gate.support.console import Console


@dataclass(frozen=True)
class Written:
    """The document as written (an error of the whole run if a report could not be rendered) and its reports."""

    doc: ResultsDocument
    rendered: Rendered


def with_error(doc: ResultsDocument, reason: str) -> ResultsDocument:
    """``doc`` as an error of the whole run, with the reason (added to any reason it already has), decided again
    so that its findings say it."""
    error = f"{doc.error}; {reason}" if doc.error else reason
    return verdict.decide(doc.model_copy(update={"error": error}), doc.comparison, verdict.Policy.recorded(doc.run))


def _decided_reports(doc: ResultsDocument, renderers: dict[Path, Renderer]) -> Written:
    rendered = render_reports(doc, renderers)
    if not rendered.failures:
        return Written(doc=doc, rendered=rendered)
    doc = with_error(doc, "; ".join(rendered.failures))
    again = render_reports(doc, {path: renderers[path] for path in rendered.texts})
    # a report that rendered once but not with the error keeps its first text
    texts = {**rendered.texts, **again.texts}
    return Written(doc=doc, rendered=Rendered(texts=texts, failures=rendered.failures))


def write_decided_reports(
    doc: ResultsDocument,
    *,
    settings: Settings,
    console: Console,
    source: str | None = None,
    renderers: dict[Path, Renderer] | None = None,
) -> Written:
    """results.json and the other reports (``renderers``, default: every one); with ``source`` (``report``),
    only the other reports, from it."""
    written = _decided_reports(doc, report_renderers(settings) if renderers is None else renderers)
    for failure in written.rendered.failures:
        console.error(failure)
    write_reports(written.doc, settings=settings, console=console, rendered=written.rendered, source=source)
    return written

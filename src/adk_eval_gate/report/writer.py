"""Write results.json, junit.xml, summary.md and report.html (the only file writes of a run besides GitHub's files).

The writers are the last thing that can fail, and they fail alone: a renderer that raises (data no test
foresaw) leaves the other reports written and turns the run into an error that says which report failed;
results.json is always written, at worst as a document with that error and no cases.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable
from pathlib import Path

from adk_eval_gate import __version__, verdict
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.model.results import ResultsDocument, RunInfo, RunStatus, dump_json, json_parts
from adk_eval_gate.report import comment, junit, summary
from adk_eval_gate.report.html import page
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError

Renderer = Callable[[ResultsDocument], str]


def results_json(doc: ResultsDocument) -> str:
    return dump_json(doc)


def _write(path: Path, text: str) -> None:
    _write_parts(path, [text])


def _write_parts(path: Path, parts: Iterable[str]) -> None:
    """Writes the parts as they come (an error of the one making them is raised as it is)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("w", encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}", hint="check the output paths") from None
    with handle:
        for part in parts:
            try:
                handle.write(part)
            except OSError as error:
                raise UsageError(f"cannot write {path}: {error.strerror}", hint="check the output paths") from None


def with_error(doc: ResultsDocument, reason: str) -> ResultsDocument:
    """``doc`` as an error of the whole run, with the reason (added to any reason it already has), decided again
    so that its findings say it."""
    error = f"{doc.error}; {reason}" if doc.error else reason
    return verdict.decide(doc.model_copy(update={"error": error}), doc.comparison, verdict.Policy.recorded(doc.run))


def _rendered(
    doc: ResultsDocument, renderers: dict[Path, Renderer]
) -> tuple[ResultsDocument, dict[Path, str], list[str]]:
    texts: dict[Path, str] = {}
    failures: list[str] = []
    for path, render in renderers.items():
        try:
            texts[path] = render(doc)
        except Exception as error:  # the other reports and the verdict must survive a renderer's bug
            failures.append(f"{path.name} could not be written ({type(error).__name__}: {error})")
    if not failures:
        return doc, texts, failures
    doc = with_error(doc, "; ".join(failures))
    for path in texts:  # once more, so they carry the error verdict
        with contextlib.suppress(Exception):
            texts[path] = renderers[path](doc)
    return doc, texts, failures


def _write_results(path: Path, doc: ResultsDocument) -> None:
    """results.json, streamed a case at a time (``json_parts``); at worst a document with the error and no cases."""
    try:
        _write_parts(path, json_parts(doc))
    except UsageError:
        raise
    except Exception as error:
        reason = f"results.json could not be written in full ({type(error).__name__}: {error})"
        bare = ResultsDocument(
            status=RunStatus.ERROR, error=reason, totals=doc.totals, run=RunInfo(tool_version=__version__), cases=[]
        )
        _write(path, results_json(bare))


def report_renderers(settings: Settings) -> dict[Path, Renderer]:
    """Every report besides results.json, by the path it is written to; comment.md is the pull-request comment,
    written every time so that it can be read before pushing."""
    return {
        settings.junit_path: junit.render,
        settings.summary_path: summary.render,
        settings.html_path: page.render,
        settings.comment_path: functools.partial(comment.render, gate_id=settings.gate_id),
    }


def write_reports(
    doc: ResultsDocument,
    *,
    settings: Settings,
    console: Console,
    source: str | None = None,
    renderers: dict[Path, Renderer] | None = None,
) -> ResultsDocument:
    """results.json and the other reports (``renderers``, default: every one); with ``source`` (``report``),
    only the other reports, from it.

    Returns the document as written: an error of the whole run if a report could not be rendered.
    """
    chosen = report_renderers(settings) if renderers is None else renderers
    doc, texts, failures = _rendered(doc, chosen)
    for failure in failures:
        console.error(failure)
    if source is None:
        _write_results(settings.results_path, doc)
    for path, text in texts.items():
        _write(path, text)
    written = [str(path) for path in ([settings.results_path] if source is None else []) + list(texts)]
    origin = f" from {source}" if source is not None else ""
    console.line(
        f"Wrote {', '.join(written[:-1])} and {written[-1]}{origin}"
        if len(written) > 1
        else f"Wrote {written[0]}{origin}"
    )
    return doc

"""Render and write results.json, junit.xml, summary.md, comment.md and report.html (the only file writes of a run
besides GitHub's files); the texts rendered here are the ones ``github.publish`` posts.

The renderers are the last thing that can fail, and they fail alone: a renderer that raises (data no test
foresaw) is a line in ``Rendered.failures`` and the other reports are still written (``finish.written`` turns the
run into an error that says which report failed); results.json is always written, at worst as a document with that
error and no cases.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate import __version__
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


@dataclass(frozen=True)
class Rendered:
    """The reports besides results.json, rendered from one document: their texts by the path each is written to,
    and a line for each renderer that raised."""

    texts: dict[Path, str]
    failures: list[str]


def render_reports(doc: ResultsDocument, renderers: dict[Path, Renderer]) -> Rendered:
    texts: dict[Path, str] = {}
    failures: list[str] = []
    for path, render in renderers.items():
        try:
            texts[path] = render(doc)
        except Exception as error:  # the other reports and the verdict must survive a renderer's bug
            failures.append(f"{path.name} could not be written ({type(error).__name__}: {error})")
    return Rendered(texts=texts, failures=failures)


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
    rendered: Rendered,
    source: str | None = None,
) -> None:
    """results.json and the reports ``rendered`` from ``doc`` (decided before: the writer never decides); with
    ``source`` (``report``), only the other reports, from it."""
    if source is None:
        _write_results(settings.results_path, doc)
    for path, text in rendered.texts.items():
        _write(path, text)
    written = [str(path) for path in ([settings.results_path] if source is None else []) + list(rendered.texts)]
    origin = f" from {source}" if source is not None else ""
    console.line(
        f"Wrote {', '.join(written[:-1])} and {written[-1]}{origin}"
        if len(written) > 1
        else f"Wrote {written[0]}{origin}"
    )

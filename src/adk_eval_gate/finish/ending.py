"""The end of the pipeline, once for ``run`` and ``report``: compare and decide (``against_baseline``), mask and
trust-check the document, write the reports, publish to GitHub, annotate, print the verdict, and return the exit code.

What differs between the two commands is passed in: which pull request to comment on, whether results.json is
written (``report`` re-renders from one), whether to compare again or keep a saved comparison, and whether to
annotate. The GitHub client is opened once by the caller (``github.session``) and passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate import verdict
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.finish import against_baseline
from adk_eval_gate.finish.written import with_error, write_decided_reports
from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.github.publish import publish
from adk_eval_gate.model.results import ResultsDocument, RunInfo, RunStatus, Totals
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.report.links import trusted_links
from adk_eval_gate.selection.found_baseline import Baseline, FindBaseline, NoBaseline
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.support.masking import mask_model


@dataclass(frozen=True)
class Ending:
    """What ``run`` and ``report`` do differently at the end."""

    pull_number: int | None  # the pull request to comment on (None: no comment)
    results_source: str | None = None  # report: the results.json re-rendered (not written again)
    keep_saved_comparison: bool = False  # report: decide on the saved comparison unless told to compare again
    annotate: bool = True  # annotations belong to the commit that was evaluated


def finish(
    doc: ResultsDocument,
    *,
    settings: Settings,
    console: Console,
    client: GitHubClient | None,
    ending: Ending,
    find_baseline: FindBaseline,
) -> int:
    """``find_baseline``: the command's baseline lookup (``run`` looked it up before its runs), called only when
    the document is compared."""
    if ending.keep_saved_comparison:
        doc = against_baseline.decide_saved(doc, settings=settings, console=console, find_baseline=find_baseline)
    else:
        doc = against_baseline.compare_and_decide(doc, settings=settings, console=console, find_baseline=find_baseline)
    doc = trusted_links(mask_model(doc, console.secrets), settings.github)
    written = write_decided_reports(doc, settings=settings, console=console, source=ending.results_source)
    doc = written.doc
    results_path = settings.results_path if ending.results_source is None else Path(ending.results_source)
    publish(
        doc,
        rendered=written.rendered,
        settings=settings,
        client=client,
        console=console,
        pull_number=ending.pull_number,
        results_path=results_path,
    )
    if ending.annotate:
        annotate(console, doc)
    console_report.final(console, doc, full_report=f"{settings.html_path} or {results_path}")
    return verdict.exit_code(doc)


def finish_run(
    built: ResultsDocument | Exception,
    *,
    settings: Settings,
    console: Console,
    client: GitHubClient | None,
    ending: Ending,
    found: Baseline | NoBaseline,
    run: RunInfo,
) -> int:
    """``finish`` on the document the command built once the agents ran, or on the error building it raised. The
    last resort: an internal error in either (data no test foresaw) still writes every report, the job summary and
    the comment, as an error of the whole run with the reason, and exits 2 like any internal error. ``run``: the
    run's settings, for a document of the error alone."""
    try:
        if isinstance(built, Exception):
            raise built
        return finish(
            built, settings=settings, console=console, client=client, ending=ending, find_baseline=lambda: found
        )
    except GateError:
        raise  # a usage error (an output path that cannot be written): one line, as always
    except Exception as error:
        if settings.environment.get("ADK_EVAL_GATE_DEBUG"):
            raise
        reason = f"internal error after the runs: {type(error).__name__}: {error}"
        console.error(f"{reason} (set ADK_EVAL_GATE_DEBUG=1 for details; please report it)", limit=False)
        bare = ResultsDocument(status=RunStatus.ERROR, error=reason, totals=Totals(), cases=[], run=run)
        attempts = [bare]
        if isinstance(built, ResultsDocument):
            attempts.insert(0, with_error(built.model_copy(update={"comparison": None}), reason))
        _finish_any(attempts, settings=settings, console=console, client=client, ending=ending)
        return 2


def _finish_any(
    attempts: list[ResultsDocument],
    *,
    settings: Settings,
    console: Console,
    client: GitHubClient | None,
    ending: Ending,
) -> None:
    """``finish`` on the first of ``attempts`` that gets through, uncompared (the run's cases, then the error
    alone); the last one's error is raised."""
    not_compared = NoBaseline(note="the run ended in an internal error")

    def uncompared() -> NoBaseline:
        return not_compared

    for attempt in attempts[:-1]:
        try:
            finish(attempt, settings=settings, console=console, client=client, ending=ending, find_baseline=uncompared)
            return
        except Exception as again:
            console.error(f"the reports with the run's cases failed too ({type(again).__name__}); writing the error")
    finish(attempts[-1], settings=settings, console=console, client=client, ending=ending, find_baseline=uncompared)

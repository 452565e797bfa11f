"""The end of the pipeline, once for ``run`` and ``report``: compare and decide (``gate``), mask and trust-check
the document, write the reports, publish to GitHub, annotate, print the verdict, and return the exit code.

What differs between the two commands is passed in: which pull request to comment on, whether results.json is
written (``report`` re-renders from one), whether to compare again or keep a saved comparison, and whether to
annotate. The GitHub client is opened once by the caller (``github_session``) and passed in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate import gate, verdict
from adk_eval_gate.console import Console
from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.github.baseline import Baseline, NoBaseline
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.github.context import trusted_links
from adk_eval_gate.masking import mask_document
from adk_eval_gate.publish import publish
from adk_eval_gate.report import console as console_report
from adk_eval_gate.report.writer import write_reports
from adk_eval_gate.results import ResultsDocument
from adk_eval_gate.settings import Settings


@contextlib.contextmanager
def github_session(settings: Settings, console: Console) -> Iterator[GitHubClient | None]:
    """The GitHub client of this command, or None without a token or repository; closed at the end."""
    token = settings.token()
    if not token or not settings.github.repository:
        yield None
        return
    console.add_secret(token)
    client = GitHubClient(api_url=settings.github.api_url, token=token)
    try:
        yield client
    finally:
        client.close()


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
    found: Baseline | NoBaseline | None = None,
) -> int:
    """``found``: the baseline when the caller already looked it up (``run``, before its runs)."""
    if ending.keep_saved_comparison:
        doc = gate.recompared(doc, settings=settings, client=client, console=console)
    else:
        doc = gate.compared(doc, settings=settings, client=client, console=console, found=found)
    doc = trusted_links(mask_document(doc, console.secrets), settings.github)
    doc = write_reports(doc, settings=settings, console=console, source=ending.results_source)
    publish(
        doc,
        settings=settings,
        client=client,
        console=console,
        pull_number=ending.pull_number,
        results_path=settings.results_path if ending.results_source is None else Path(ending.results_source),
    )
    if ending.annotate:
        annotate(console, doc)
    console_report.final(console, doc)
    return verdict.exit_code(doc)

"""``adk-eval-gate report RESULTS``: re-render the reports from saved results, and publish them.

Used after ``merge`` (a matrix's shards), and by the ``workflow_run`` workflow of the two-workflow set-up for
pull requests from forks: it reads the results the pull request's run uploaded, without checking out or
running its code, and posts the comment with its own, writable token. Those results are untrusted: links come
from the event, not from the file, and the pull request number is checked (``github.pull_request``).
"""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate import results as r
from adk_eval_gate.compare import with_comparison
from adk_eval_gate.console import Console
from adk_eval_gate.github import pull_request
from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.github.context import trusted_links
from adk_eval_gate.masking import mask_document
from adk_eval_gate.merge import load_results
from adk_eval_gate.publish import apply_baseline, exit_code, github_client, publish
from adk_eval_gate.report import console as console_report
from adk_eval_gate.report.writer import write_reports
from adk_eval_gate.settings import Settings


def _rebased(
    doc: r.ResultsDocument, *, settings: Settings, client: GitHubClient | None, console: Console
) -> r.ResultsDocument:
    """Compared with ``--baseline``, or in a pull request with the base branch's artifact when the results have
    no comparison yet (merged shards); else the saved comparison, with the status decided again."""
    fail_on_regression = settings.fail_on_regression or doc.run.fail_on_regression
    if settings.baseline is not None or (doc.comparison is None and settings.github.base_branch):
        effective = settings.model_copy(update={"fail_on_regression": fail_on_regression})
        return apply_baseline(doc, settings=effective, client=client, console=console)
    return with_comparison(
        doc,
        doc.comparison,
        fail_on_regression=fail_on_regression,
        tolerance=doc.run.regression_tolerance or 0.0,
        note=doc.run.baseline_note,
    )


def _trusted_links(doc: r.ResultsDocument, settings: Settings) -> r.ResultsDocument:
    """In a ``workflow_run`` workflow the run to link is the triggering one, as GitHub's event says."""
    run = settings.github.workflow_run
    if not run:
        return doc
    url = run.get("html_url")
    return doc.model_copy(update={"run": doc.run.model_copy(update={"run_url": str(url) if url else None})})


def report(settings: Settings, console: Console, *, results_file: str, comment: bool, pr: int | None) -> int:
    doc = _trusted_links(load_results(Path(results_file)), settings)
    client = github_client(settings, console)
    try:
        doc = _rebased(doc, settings=settings, client=client, console=console)
        doc = trusted_links(mask_document(doc, console.secrets), settings.github)
        doc = write_reports(doc, settings=settings, console=console, source=results_file)
        pull_number = None
        if comment and settings.comment_mode != "off":
            if client is None:
                console.warning("no GitHub token: the pull-request comment was not posted (set GITHUB_TOKEN)")
            else:
                resolved = pull_request.resolve(
                    client, context=settings.github, explicit=pr, recorded=doc.run.pull_request
                )
                if resolved.problem:
                    console.warning(resolved.problem)
                pull_number = resolved.number
        publish(
            doc,
            settings=settings,
            client=client,
            console=console,
            pull_number=pull_number,
            results_path=Path(results_file),
        )
    finally:
        if client is not None:
            client.close()
    if settings.github.event_name != "workflow_run":  # annotations belong to the commit that was evaluated
        annotate(console, doc)
    console_report.final(console, doc)
    return exit_code(doc)

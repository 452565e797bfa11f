"""``adk-eval-gate report RESULTS``: re-render the reports from saved results, and publish them.

Used after ``merge`` (a matrix's shards), and by the ``workflow_run`` workflow of the two-workflow set-up for
pull requests from forks: it reads the results the pull request's run uploaded, without checking out or
running its code, and posts the comment with its own, writable token. Those results are untrusted: links come
from the event, not from the file, and the pull request number is checked (``github.pull_request``).
"""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.finish.ending import Ending, finish
from adk_eval_gate.github import pull_request
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.inputs.saved_results import load_results
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.selection.found_baseline import FindBaseline
from adk_eval_gate.support.console import Console


def _triggering_run_link(doc: ResultsDocument, settings: Settings) -> ResultsDocument:
    """In a ``workflow_run`` workflow the run to link is the triggering one, as GitHub's event says."""
    run = settings.github.workflow_run
    if not run:
        return doc
    url = run.get("html_url")
    return doc.model_copy(update={"run": doc.run.model_copy(update={"run_url": str(url) if url else None})})


def report(
    settings: Settings,
    console: Console,
    *,
    github: GitHubClient | None,
    find_baseline: FindBaseline,
    results_file: str,
    comment: bool,
    pr: int | None,
) -> int:
    """``github``: the GitHub client (None: no token or repository); ``find_baseline``: the baseline lookup
    (``github.baseline.for_settings`` with that client), called when the results are compared again."""
    doc = _triggering_run_link(load_results(Path(results_file)), settings)
    pull_number = None
    if comment and settings.comment_mode == "off":
        console.line("No pull-request comment posted: --comment-mode is off")
    elif comment:
        pull_number = _pull_request(github, settings=settings, console=console, pr=pr, recorded=doc.run.pull_request)
    ending = Ending(
        pull_number=pull_number,
        results_source=results_file,
        keep_saved_comparison=True,
        annotate=settings.github.event_name != "workflow_run",  # annotations belong to the evaluated commit
    )
    return finish(doc, settings=settings, console=console, client=github, ending=ending, find_baseline=find_baseline)


def _pull_request(
    client: GitHubClient | None, *, settings: Settings, console: Console, pr: int | None, recorded: int | None
) -> int | None:
    """The pull request to comment on, checked against the triggering run (without a client, the candidate:
    publishing then says that there is no token). When there is none, one line says why no comment is posted."""
    if client is None:
        number = pull_request.candidate(settings.github, explicit=pr, recorded=recorded)
        problem = None
    else:
        resolved = pull_request.resolve(client, context=settings.github, explicit=pr, recorded=recorded)
        number, problem = resolved.number, resolved.problem
    if problem:
        console.warning(problem)
    elif number is None:
        console.line(f"No pull-request comment posted: {pull_request.none_to_comment_on(settings.github)}")
    return number

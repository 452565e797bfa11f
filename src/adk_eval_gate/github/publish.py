"""publish: GitHub's side effects of a finished run: the job summary, the pull-request comment and the step
outputs (annotations: ``github.annotations``). The client is passed in (``github.session``).

Publishing never decides the verdict nor renders a report: it posts the texts ``report.writer`` rendered and wrote
(summary.md, comment.md), and a failed comment (a fork's read-only token, GitHub being down) is a warning.
"""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.github import sticky_comment as comments
from adk_eval_gate.github.client import GitHubClient, GitHubPermissionError
from adk_eval_gate.github.outputs import append_step_summary, output_values, write_outputs
from adk_eval_gate.model.results import ResultsDocument, RunStatus
from adk_eval_gate.report.writer import Rendered
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError


def _post_comment(
    doc: ResultsDocument,
    *,
    body: str,
    settings: Settings,
    client: GitHubClient | None,
    console: Console,
    pull_number: int,
) -> str | None:
    """Posts or edits the comment; returns its URL. Every failure is a warning."""
    if client is None:
        console.warning("no GitHub token: the pull-request comment was not posted (set github-token or GITHUB_TOKEN)")
        return None
    repository = settings.github.repository or ""
    try:
        result = comments.post(
            client,
            token=settings.token() or "",
            repository=repository,
            pull_number=pull_number,
            body=body,
            gate_id=settings.gate_id,
            mode=settings.comment_mode,
            failing=doc.status != RunStatus.PASSED,
        )
    except GitHubPermissionError as error:
        fork = (
            " This pull request comes from a fork, whose token is read-only: the results are in the job summary "
            "and the artifact; see the two-workflow set-up (docs/action.md#pull-requests-from-forks) to comment anyway."
            if settings.github.is_fork_pull_request
            else ""
        )
        console.warning(f"the pull-request comment was not posted: {error.one_line()}.{fork}")
        return None
    except GateError as error:
        console.warning(f"the pull-request comment was not posted: {error.one_line()}")
        return None
    except Exception as error:  # publishing must never cost the verdict
        console.warning(f"the pull-request comment was not posted: unexpected {type(error).__name__}")
        return None
    where = f" {result.url}" if result.url else ""
    reason = f" ({result.reason})" if result.reason else ""
    console.line(f"Pull-request comment {result.action}{where}{reason}")
    return result.url


def _append_summary(path: Path, text: str | None, *, console: Console) -> None:
    if text is None:  # its renderer failed: the run is an error that says so in the other reports
        console.warning("the job summary was not written: the summary could not be rendered")
        return
    try:
        if not append_step_summary(path, text):
            console.warning("the job summary was not written: this step's summary is already at GitHub's 1 MiB limit")
    except OSError as error:
        console.warning(f"the job summary was not written: {error.strerror}")


def publish(
    doc: ResultsDocument,
    *,
    rendered: Rendered,
    settings: Settings,
    client: GitHubClient | None,
    console: Console,
    pull_number: int | None,
    results_path: Path,
) -> str | None:
    """Job summary, PR comment and outputs, from the reports ``rendered``; returns the comment's URL."""
    context = settings.github
    if context.step_summary_path is not None:
        _append_summary(context.step_summary_path, rendered.texts.get(settings.summary_path), console=console)
    comment_url = None
    body = rendered.texts.get(settings.comment_path)
    if pull_number is not None and settings.comment_mode != "off":
        if body is None:
            console.warning("the pull-request comment was not posted: the comment could not be rendered")
        else:
            comment_url = _post_comment(
                doc, body=body, settings=settings, client=client, console=console, pull_number=pull_number
            )
    if context.output_path is not None:
        values = output_values(
            doc,
            results=results_path,
            junit=settings.junit_path,
            summary=settings.summary_path,
            html=settings.html_path,
            comment_url=comment_url,
        )
        try:
            write_outputs(context.output_path, values)
        except OSError as error:
            console.warning(f"the step outputs were not written: {error.strerror}")
    return comment_url

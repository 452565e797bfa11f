"""After scoring: compare with the baseline, decide the final status, write the reports, publish to GitHub
(job summary, PR comment, outputs, annotations) and return the exit code.

Publishing never decides the verdict: the reports are written before anything is posted, and a failed comment
(a fork's read-only token, GitHub being down) is a warning.
"""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate import results as r
from adk_eval_gate.compare import compare, with_comparison
from adk_eval_gate.console import Console
from adk_eval_gate.errors import GateError
from adk_eval_gate.github import baseline as baselines
from adk_eval_gate.github import comment as comments
from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.github.client import GitHubClient, GitHubPermissionError
from adk_eval_gate.github.context import trusted_links
from adk_eval_gate.github.outputs import append_step_summary, output_values, write_outputs
from adk_eval_gate.masking import mask_document
from adk_eval_gate.report import comment as comment_report
from adk_eval_gate.report import console as console_report
from adk_eval_gate.report import summary
from adk_eval_gate.report.sections import plural
from adk_eval_gate.report.writer import write_reports
from adk_eval_gate.settings import Settings


def exit_code(doc: r.ResultsDocument) -> int:
    """0 passed, 1 the gate failed, 2 an eval file or config could not be used."""
    if doc.totals.file_errors:
        return 2
    return 0 if doc.status == "passed" else 1


def github_client(settings: Settings, console: Console) -> GitHubClient | None:
    token = settings.token()
    if not token or not settings.github.repository:
        return None
    console.add_secret(token)
    return GitHubClient(api_url=settings.github.api_url, token=token)


def apply_baseline(
    doc: r.ResultsDocument, *, settings: Settings, client: GitHubClient | None, console: Console
) -> r.ResultsDocument:
    found = baselines.resolve(
        baseline_file=settings.baseline,
        client=client if settings.github.base_branch else None,
        context=settings.github,
        artifact_name=settings.artifact_name,
    )
    tolerance = settings.regression_tolerance
    if isinstance(found, baselines.NoBaseline):
        if found.warning:
            console.warning(found.warning)
        elif found.note:
            console.line(f"No comparison: {found.note}")
        return with_comparison(
            doc, None, fail_on_regression=settings.fail_on_regression, tolerance=tolerance, note=found.note
        )
    comparison = compare(doc, found.doc, baseline=found.info, tolerance=tolerance)
    noisy = f" ({comparison.noisy_regressions} more within noise)" if comparison.noisy_regressions else ""
    console.line(
        f"Compared with {found.info.description}: {plural(comparison.regressions, 'regression')}{noisy}, "
        f"{plural(comparison.improvements, 'improvement')}, {comparison.new} new and {comparison.removed} removed cases"
    )
    return with_comparison(doc, comparison, fail_on_regression=settings.fail_on_regression, tolerance=tolerance)


def post_comment(
    doc: r.ResultsDocument,
    *,
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
            body=comment_report.render(doc, gate_id=settings.gate_id),
            gate_id=settings.gate_id,
            mode=settings.comment_mode,
            failing=doc.status != "passed",
        )
    except GitHubPermissionError as error:
        fork = (
            " This pull request comes from a fork, whose token is read-only: the results are in the job summary "
            "and the artifact; see the two-workflow set-up in the README to comment anyway."
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


def publish(
    doc: r.ResultsDocument,
    *,
    settings: Settings,
    client: GitHubClient | None,
    console: Console,
    pull_number: int | None,
    results_path: Path,
) -> str | None:
    """Job summary, PR comment and outputs; returns the comment's URL."""
    context = settings.github
    if context.step_summary_path is not None:
        try:
            if not append_step_summary(context.step_summary_path, summary.render(doc)):
                console.warning(
                    "the job summary was not written: this step's summary is already at GitHub's 1 MiB limit"
                )
        except OSError as error:
            console.warning(f"the job summary was not written: {error.strerror}")
        except Exception as error:  # the verdict and the other reports must survive a renderer's bug
            console.warning(f"the job summary was not written: {type(error).__name__}: {error}")
    comment_url = None
    if pull_number is not None and settings.comment_mode != "off":
        comment_url = post_comment(doc, settings=settings, client=client, console=console, pull_number=pull_number)
    if context.output_path is not None:
        values = output_values(
            doc,
            results=results_path,
            junit=settings.junit_path,
            summary=settings.summary_path,
            comment_url=comment_url,
        )
        try:
            write_outputs(context.output_path, values)
        except OSError as error:
            console.warning(f"the step outputs were not written: {error.strerror}")
    return comment_url


def finish_run(doc: r.ResultsDocument, *, settings: Settings, console: Console) -> int:
    client = github_client(settings, console)
    try:
        pull_number = settings.github.pull_request_number
        doc = doc.model_copy(update={"run": doc.run.model_copy(update={"pull_request": pull_number})})
        doc = apply_baseline(doc, settings=settings, client=client, console=console)
        doc = trusted_links(mask_document(doc, console.secrets), settings.github)
        doc = write_reports(doc, settings=settings, console=console)
        publish(
            doc,
            settings=settings,
            client=client,
            console=console,
            pull_number=pull_number,
            results_path=settings.results_path,
        )
    finally:
        if client is not None:
            client.close()
    annotate(console, doc)
    console_report.final(console, doc)
    return exit_code(doc)

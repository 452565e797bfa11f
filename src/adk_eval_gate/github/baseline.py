"""The baseline: ``--baseline FILE``, or in a pull request the results artifact of the newest completed run of this
workflow on the base branch, found with the Actions REST API, with the results of up to ``--history`` earlier runs
as the noise model (kept by run id under ``--cache-dir``).

A run whose gate failed is still the base branch's state: the gate fails its job when a case fails, and one case
failing on main must not take the baseline away from every pull request. Passed over, with one line each: cancelled
runs, runs without the artifact, and runs whose results say the gate could not decide (status error, or
interrupted).

No baseline is normal ("no baseline yet"); any problem with one is one warning and the run goes on without.
Only the base branch's own runs count (``github/base_runs.py``: this workflow file, the repository's own head,
``push``, ``schedule``, ``workflow_dispatch`` or ``merge_group``), whatever the listing answered. A newest run whose
artifact is corrupt (not a zip, not JSON, not a valid results.json, too large) is passed over with one line for the
next good run. A problem with an older run (an error answer, an artifact expired since the listing, a download too
large or too slow) only leaves the history one run shorter: the newest run stays the baseline. The older runs'
results are optional: their downloads share one deadline and keep a minimum rate
(``GitHubClient.optional_downloads``), while the baseline's own download has a deadline of its own;
``Baseline.history_note`` says which runs the history left out, and why.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate.config.github_context import GitHubContext
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.github.api_models import Artifact, WorkflowRun
from adk_eval_gate.github.artifact import MAX_ZIP_BYTES, ArtifactError, read_results
from adk_eval_gate.github.base_runs import (
    LISTED_RUNS,
    LookupBudget,
    LookupSpent,
    is_base_branch_run,
    runs_to_look_up,
)
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.github.download import ArtifactTooLarge, DownloadBudget
from adk_eval_gate.github.run_cache import NoArtifact, RunCache
from adk_eval_gate.model.results import BaselineInfo, InvalidResults, ResultsDocument, RunStatus, parse_document
from adk_eval_gate.selection.found_baseline import Baseline, BaseRun, NoBaseline
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError

SKIPPED_CONCLUSIONS = {"cancelled", "skipped", "stale"}  # runs that never evaluated the base branch to the end
DEFAULT_HISTORY = 10  # --history: base runs whose results make the noise model
ACTIONS_READ = "actions: read"
UNEXPECTED_SHAPE = (KeyError, TypeError, ValueError)  # what an answer of an unexpected shape raises


def parse_results(data: bytes, *, shown: str) -> ResultsDocument:
    try:
        loaded = sanitize.loads(data.decode("utf-8"))
    except sanitize.UnsafeJson as error:
        raise ArtifactError(f"{shown} cannot be used: {error}") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise ArtifactError(f"{shown} is not valid JSON: {str(error)[:200]}") from None
    try:
        return parse_document(loaded, shown=shown)
    except InvalidResults as error:
        raise ArtifactError(str(error)) from None


def from_file(path: Path) -> Baseline | NoBaseline:
    try:
        data = path.read_bytes()
        doc = parse_results(data, shown=str(path))
    except OSError as error:
        return _refused(f"cannot read {path}: {error.strerror}")
    except ArtifactError as error:
        return _refused(error.message)
    # the file's name only: a path of the machine that ran the gate means nothing in a pull request
    description = f"the baseline file {path.name}"
    return Baseline(doc, BaselineInfo(source="file", description=description, sha=doc.run.sha, ref=doc.run.ref))


def _refused(problem: str) -> NoBaseline:
    return NoBaseline(note=f"the baseline was not used: {problem}", warning=f"baseline not used: {problem}")


def _undecided(doc: ResultsDocument) -> str | None:
    """Why a base run's results cannot be its baseline: the gate could not decide there."""
    if doc.run.interrupted:
        return "its gate was interrupted before every case ran"
    if doc.status == RunStatus.ERROR:
        return "its gate could not decide (status error)"
    return None


def newest_artifact(client: GitHubClient, *, repository: str, run_id: int | str, name: str) -> Artifact | None:
    """The newest unexpired artifact named ``name`` of a workflow run (one request), None when it has none."""
    listed = client.paginate(
        f"/repos/{repository}/actions/runs/{run_id}/artifacts",
        Artifact,
        params={"name": name},
        key="artifacts",
        permission=ACTIONS_READ,
        max_pages=1,  # an artifact name is unique in a run: one page of 100 holds it
    )
    matching = [artifact for artifact in listed if artifact.name == name and not artifact.expired]
    return max(matching, key=lambda artifact: artifact.id) if matching else None


def _find_in_actions(
    client: GitHubClient,
    *,
    context: GitHubContext,
    artifact_name: str,
    history: int = DEFAULT_HISTORY,
    cache: RunCache | None = None,
    note: Callable[[str], None] | None = None,
) -> Baseline | NoBaseline:
    """The newest completed base run's results as the baseline, whatever its conclusion, and up to ``history``
    runs' results as its history; ``note`` gets one line for each run passed over.

    Requests (``LookupBudget``): one listing of the workflow's runs, then per run looked up an artifact listing, a
    download location and a download, none for a run the cache knows.
    """
    repository, workflow, branch = context.repository, context.workflow_file, context.base_branch
    workflow_path = context.workflow_path
    if not repository or not workflow or not workflow_path:
        return NoBaseline(note="the repository or workflow is unknown (GITHUB_REPOSITORY, GITHUB_WORKFLOW_REF)")
    if not branch:
        return NoBaseline(note="not a pull request, so there is no base branch to compare with")
    budget = LookupBudget.for_history(history)
    budget.spend_api()
    listed = client.paginate(
        f"/repos/{repository}/actions/workflows/{workflow}/runs",
        WorkflowRun,
        params={"branch": branch, "status": "completed", "exclude_pull_requests": "true"},
        key="workflow_runs",
        permission=ACTIONS_READ,
        max_pages=1,
    )
    own = [
        run
        for run in itertools.islice(listed, LISTED_RUNS)  # a page holds 100: a longer one is not read further
        if is_base_branch_run(run, repository=repository, branch=branch, workflow_path=workflow_path)
    ]
    lookup = _Lookup(client, repository=repository, artifact_name=artifact_name, cache=cache, budget=budget)
    found, left_out, corrupt = _base_runs(lookup, own, history=history, note=note)
    if not found and corrupt is not None:
        return _refused(corrupt)
    if not found:
        runs = "no completed run" if budget.runs else f"none of the newest {runs_to_look_up(history)} runs"
        return NoBaseline(
            note=f"no baseline yet: {runs} of {workflow} on {branch} has an artifact named {artifact_name!r} "
            f"with results the gate could decide (upload results.json on pushes to {branch})"
        )
    shorter = _history_note(left_out) if len(found) < history else None  # other runs may have made up for them
    return Baseline(found[0].doc, found[0].info, history=tuple(found), history_note=shorter)


@dataclass(frozen=True)
class _Lookup:
    """What looking up one run's results takes: the API, the repository's artifact name, the cache, the budget."""

    client: GitHubClient
    repository: str
    artifact_name: str
    cache: RunCache | None
    budget: LookupBudget


def _base_runs(
    lookup: _Lookup, runs: list[WorkflowRun], *, history: int, note: Callable[[str], None] | None
) -> tuple[list[BaseRun], list[tuple[int, str]], str | None]:
    """The runs whose results are the base branch's state, newest first, up to ``history`` (at least one); the
    older runs whose results could not be used, with why; and the first corrupt artifact passed over while no
    baseline was found yet. ``note`` gets a line for each run passed over."""
    say = note or (lambda _line: None)
    found: list[BaseRun] = []
    left_out: list[tuple[int, str]] = []
    corrupt: str | None = None
    optional = lookup.client.optional_downloads()
    for run in runs:
        if len(found) >= max(history, 1):
            break
        shown = f"base run {run.run_number or run.id}"
        if run.conclusion in SKIPPED_CONCLUSIONS:
            say(f"{shown} passed over: it was {run.conclusion}")
            continue
        try:
            doc = _results_of(lookup, run=run, budget=optional if found else None)
        except LookupSpent:
            break  # the runs left are not looked up: the request bound holds
        except (GateError, *UNEXPECTED_SHAPE) as error:
            why = _one_line(error)
            if found:  # an older run that cannot be used only leaves the history one run shorter
                left_out.append((run.id, why))
            elif isinstance(error, (ArtifactError, ArtifactTooLarge)):  # a corrupt newest artifact: the next run
                say(f"{shown} passed over: {why}")
                corrupt = corrupt or why
            else:  # the baseline itself could not be looked up: its problem is the warning
                raise
            continue
        if doc is None:
            say(f"{shown} passed over: it has no artifact named {lookup.artifact_name!r}")
            continue
        undecided = _undecided(doc)
        if undecided is not None:
            say(f"{shown} passed over: {undecided}")
            continue
        found.append(BaseRun(_run_info(run), doc))
    return found, left_out, corrupt


def _one_line(error: Exception) -> str:
    text = error.message if isinstance(error, GateError) else type(error).__name__
    return " ".join(text.split())


def _history_note(left_out: list[tuple[int, str]]) -> str | None:
    if not left_out:
        return None
    (run_id, why), more = left_out[0], len(left_out) - 1
    runs = "1 older base run" if not more else f"{len(left_out)} older base runs"
    rest = f" (and {more} more)" if more else ""
    return f"the history leaves out {runs}: run {run_id}: {why}{rest}"


def _results_of(lookup: _Lookup, *, run: WorkflowRun, budget: DownloadBudget | None) -> ResultsDocument | None:
    """The run's results (None: it has no such artifact), from the cache when it knows the run; ``budget``: the
    results are optional, and downloaded only within it."""
    cache = lookup.cache
    cached = cache.get(run.id) if cache else None
    if isinstance(cached, NoArtifact):
        return None
    if cached is not None:
        return cached
    if budget is not None and budget.remaining() <= 0:
        raise budget.spent()  # not even looked up: the cached runs still count
    if not lookup.budget.look_up_a_run():
        raise LookupSpent("the baseline lookup's runs are spent")
    lookup.budget.spend_api()
    artifact = newest_artifact(lookup.client, repository=lookup.repository, run_id=run.id, name=lookup.artifact_name)
    if artifact is None:
        if cache:
            cache.put(run.id, NoArtifact())
        return None
    doc = _download(lookup, run=run, artifact=artifact, budget=budget)
    if cache:
        cache.put(run.id, doc)
    return doc


def _download(
    lookup: _Lookup, *, run: WorkflowRun, artifact: Artifact, budget: DownloadBudget | None
) -> ResultsDocument:
    shown = f"artifact {artifact.name!r} of run {run.id}"
    if artifact.size_in_bytes > MAX_ZIP_BYTES:
        raise ArtifactTooLarge(f"{shown} is {artifact.size_in_bytes:,} bytes, more than the {MAX_ZIP_BYTES:,} allowed")
    lookup.budget.spend_api()
    location = lookup.client.redirect_location(
        f"/repos/{lookup.repository}/actions/artifacts/{artifact.id}/zip", permission=ACTIONS_READ
    )
    lookup.budget.spend_download()
    data = lookup.client.download(location, max_bytes=MAX_ZIP_BYTES, budget=budget)
    try:
        return parse_results(read_results(data), shown=f"results.json in {shown}")
    except ArtifactError as error:
        raise ArtifactError(error.message if shown in error.message else f"{shown}: {error.message}") from None


def _run_info(run: WorkflowRun) -> BaselineInfo:
    return BaselineInfo(
        source="artifact",
        description=f"{run.head_branch or 'the base branch'} (run {run.run_number or run.id})",
        run_id=run.id,
        run_number=run.run_number,
        run_url=run.html_url or None,
        sha=run.head_sha or None,
        ref=run.head_branch or None,
        created_at=run.created_at or None,
    )


def resolve(  # parameters: the baseline's sources and the run's identity, each keyword-only
    *,
    baseline_file: Path | None,
    client: GitHubClient | None,
    context: GitHubContext,
    artifact_name: str,
    history: int = DEFAULT_HISTORY,
    cache_dir: Path | None = None,
    warn: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> Baseline | NoBaseline:
    """The baseline to compare with; never raises for a problem with it (``warn``: the cache's one warning;
    ``note``: a line for each base run passed over)."""
    if baseline_file is not None:
        return from_file(baseline_file)
    if client is None:
        if context.in_actions and context.base_branch:
            return NoBaseline(note="no GitHub token to look up the base branch's results")
        return NoBaseline(note="")
    cache = None
    if cache_dir is not None and context.repository:
        cache = RunCache(
            cache_dir, api_url=client.api_url, repository=context.repository, artifact_name=artifact_name, warn=warn
        )
    try:
        return _find_in_actions(
            client, context=context, artifact_name=artifact_name, history=history, cache=cache, note=note
        )
    except GateError as error:
        return _refused(error.one_line())
    except UNEXPECTED_SHAPE as error:
        return _refused(f"unexpected answer from GitHub ({type(error).__name__})")


def for_settings(
    settings: Settings, client: GitHubClient | None, *, console: Console | None = None
) -> Baseline | NoBaseline:
    """``--baseline``, or in a pull request the base branch's artifact with up to ``--history`` earlier runs."""
    return resolve(
        baseline_file=settings.baseline,
        client=client if settings.github.base_branch else None,
        context=settings.github,
        artifact_name=settings.artifact_name,
        history=settings.history,
        cache_dir=settings.cache_dir,
        warn=console.warning if console else None,
        note=console.line if console else None,
    )

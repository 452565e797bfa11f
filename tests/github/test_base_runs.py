"""Which runs are the base branch's own (the baseline and its history), corrupt artifacts passed over, and the
bound on the lookup's requests, through the fake Actions API over real HTTP."""

from __future__ import annotations

import os
from typing import Any

import pytest

from adk_eval_gate.github import baseline
from adk_eval_gate.github.api_models import WorkflowRun
from adk_eval_gate.github.base_runs import BASE_BRANCH_EVENTS, LookupBudget, is_base_branch_run
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.selection.found_baseline import Baseline, NoBaseline
from tests.fakes.github_server import FakeGitHub
from tests.github.test_baseline import FAST, NAME, context, results_bytes
from tests.github.zips import make_zip

WORKFLOW_PATH = ".github/workflows/eval.yml"


def good_zip(score: float) -> bytes:
    return make_zip({"results.json": results_bytes(score)})


def lookup(fake: FakeGitHub, *, history: int = 10) -> tuple[Baseline | NoBaseline, list[str]]:
    lines: list[str] = []
    client = GitHubClient(api_url=fake.url, token="ghs_token_for_tests", retry=FAST)
    found = baseline.resolve(
        baseline_file=None, client=client, context=context(), artifact_name=NAME, history=history, note=lines.append
    )
    return found, lines


def history_of(found: Baseline | NoBaseline) -> list[int | None]:
    assert isinstance(found, Baseline), found
    return [run.info.run_id for run in found.history]


@pytest.mark.slow  # four runs and their artifacts through the fake GitHub: over half a second of CPU
def test_a_deleted_forks_review_run_of_a_branch_named_main_is_neither_the_baseline_nor_in_the_history(
    fake_github: FakeGitHub,
) -> None:
    """A ``pull_request_review`` run of a fork's branch called ``main`` lists the base branch's name, and once the
    fork is deleted GitHub answers ``head_repository: null``: its artifact (scores made low, so that the pull
    request only improves) must not become the baseline, nor the noise of the history."""
    oldest = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.9))])
    fake_github.add_workflow_run(
        event="pull_request_review", head_repository_deleted=True, artifacts=[(NAME, good_zip(0.0))]
    )
    newest = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.8))])
    fake_github.add_workflow_run(
        event="pull_request_review", head_repository_deleted=True, artifacts=[(NAME, good_zip(0.1))]
    )
    found, _ = lookup(fake_github)
    assert history_of(found) == [newest, oldest]


def test_a_push_of_a_forks_branch_named_main_is_not_a_base_run(fake_github: FakeGitHub) -> None:
    good = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.9))])
    fake_github.add_workflow_run(head_repository="mallory/repo", artifacts=[(NAME, good_zip(0.0))])
    found, _ = lookup(fake_github)
    assert history_of(found) == [good]


def test_a_run_of_another_workflow_file_is_not_a_base_run_whatever_the_listing_answers(
    fake_github: FakeGitHub,
) -> None:
    """The runs are listed for this workflow file, and each run's ``path`` is checked again: a listing that answers
    with another workflow's runs cannot make one of them the baseline."""
    fake_github.workflow_filter_ignored = True
    good = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.9))])
    fake_github.add_workflow_run(workflow="release.yml", artifacts=[(NAME, good_zip(0.0))])
    found, _ = lookup(fake_github)
    assert history_of(found) == [good]


@pytest.mark.parametrize(
    "event",
    ["workflow_run", "pull_request_review", "pull_request_review_comment", "issue_comment", "check_run",
     "pull_request", "pull_request_target", "repository_dispatch", "release"],
)  # fmt: skip
def test_events_that_may_run_other_code_than_the_base_branchs_are_not_base_runs(
    fake_github: FakeGitHub, event: str
) -> None:
    good = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.9))])
    fake_github.add_workflow_run(event=event, artifacts=[(NAME, good_zip(0.0))])
    found, _ = lookup(fake_github)
    assert history_of(found) == [good]


@pytest.mark.parametrize("event", sorted(BASE_BRANCH_EVENTS))
def test_events_that_run_the_base_branchs_own_code_are_base_runs(fake_github: FakeGitHub, event: str) -> None:
    older = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.9))])
    newest = fake_github.add_workflow_run(event=event, artifacts=[(NAME, good_zip(0.5))])
    found, _ = lookup(fake_github)
    assert history_of(found) == [newest, older]


def _corrupt(fake: FakeGitHub, how: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """A run whose artifact is corrupt in the way ``how`` names."""
    contents = {
        "not-a-zip": b"PK\x03\x04 this is no zip",
        "invalid-json": make_zip({"results.json": b'{"schema_version": 1, "status": '}),
        "invalid-results": make_zip({"results.json": b'{"schema_version": 1, "status": "maybe"}'}),
        "non-utf8": make_zip({"results.json": b"\xff\xfe{}"}),
    }
    if how == "declared-too-large":
        return fake.add_workflow_run(artifacts=[(NAME, good_zip(0.0))], declared_sizes={NAME: 2 * 1024**3})
    if how == "too-large":
        monkeypatch.setattr(baseline, "MAX_ZIP_BYTES", 4096)
        padded = make_zip({"results.json": results_bytes(0.0), "padding": os.urandom(8192)})
        return fake.add_workflow_run(artifacts=[(NAME, padded)], declared_sizes={NAME: 100})
    return fake.add_workflow_run(artifacts=[(NAME, contents[how])])


@pytest.mark.parametrize(
    "how", ["not-a-zip", "invalid-json", "invalid-results", "non-utf8", "declared-too-large", "too-large"]
)
def test_a_corrupt_newest_artifact_is_passed_over_with_one_line_for_the_next_good_run(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    older = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.7))])
    good = fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.9))])
    corrupt = _corrupt(fake_github, how, monkeypatch)
    found, lines = lookup(fake_github)
    assert history_of(found) == [good, older]
    [line] = lines
    assert line.startswith(f"base run {corrupt} passed over: ") and "\n" not in line


def test_only_corrupt_artifacts_are_one_warning_and_no_baseline(fake_github: FakeGitHub) -> None:
    fake_github.add_workflow_run(artifacts=[(NAME, b"not a zip")])
    newest = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": b"[]"}))])
    found, lines = lookup(fake_github)
    assert isinstance(found, NoBaseline) and found.warning is not None
    assert found.warning.startswith("baseline not used: ") and f"run {newest}" in found.warning
    assert len(lines) == 2


def _api_requests(fake: FakeGitHub) -> int:
    return len([r for r in fake.requests if "/actions/" in r.path])


@pytest.mark.slow  # dozens of runs listed, each answer checked against the OpenAPI description
@pytest.mark.parametrize("history", [0, 10])
def test_runs_passed_over_never_take_the_lookup_past_its_request_bound(fake_github: FakeGitHub, history: int) -> None:
    """The worst case: every base run has a corrupt artifact, so every run looked up costs an artifact listing, a
    download location and a download, and none is found. The lookup stops at the history wanted (at least one)
    plus ten runs passed over: with --history 10, 41 requests to the API and 20 downloads, as the docs say."""
    for _ in range(40):
        fake_github.add_workflow_run(artifacts=[(NAME, b"not a zip")])
    found, lines = lookup(fake_github, history=history)
    assert isinstance(found, NoBaseline)
    runs = max(history, 1) + 10
    assert _api_requests(fake_github) == 1 + 2 * runs == LookupBudget.for_history(history).api
    assert len(fake_github.storage_requests) == runs == LookupBudget.for_history(history).downloads
    assert len(lines) == runs
    if history == 10:
        assert (_api_requests(fake_github), len(fake_github.storage_requests)) == (41, 20)


@pytest.mark.slow  # dozens of runs listed, each answer checked against the OpenAPI description
def test_a_history_with_runs_passed_over_keeps_the_bound(fake_github: FakeGitHub) -> None:
    """Good runs and corrupt ones alternate: the history fills with what the bound allows, no more requests."""
    for score in (0.5, 0.6, 0.7) * 10:
        fake_github.add_workflow_run(artifacts=[(NAME, good_zip(score))])
        fake_github.add_workflow_run(artifacts=[(NAME, b"not a zip")])
    found, _ = lookup(fake_github, history=10)
    assert isinstance(found, Baseline) and len(found.history) == 10
    assert _api_requests(fake_github) <= 41 and len(fake_github.storage_requests) <= 20


@pytest.mark.slow  # dozens of runs listed, each answer checked against the OpenAPI description
def test_a_huge_listing_page_is_read_no_further_than_one_page(fake_github: FakeGitHub) -> None:
    """A listing that ignores ``per_page`` and answers 150 runs in one page: only the first hundred are
    considered, and the runs looked up stay within the bound."""
    fake_github.page_size_ignored = True
    for _ in range(150):
        fake_github.add_workflow_run(artifacts=[("coverage", b"zip")])
    found, lines = lookup(fake_github, history=50)
    assert isinstance(found, NoBaseline) and found.warning is None
    assert found.note.startswith("no baseline yet: none of the newest 60 runs of eval.yml on main has ")
    assert _api_requests(fake_github) == 1 + 60 and len(lines) == 60
    assert fake_github.storage_requests == []


def _listed(**changes: Any) -> WorkflowRun:
    run: dict[str, Any] = {
        "id": 5,
        "event": "push",
        "head_branch": "main",
        "path": WORKFLOW_PATH,
        "head_repository": {"full_name": "Octo/Repo"},
        **changes,
    }
    return WorkflowRun.model_validate({key: value for key, value in run.items() if value is not ...})


@pytest.mark.parametrize(
    ("changes", "counts"),
    [
        ({}, True),
        ({"path": f"{WORKFLOW_PATH}@refs/heads/main"}, True),
        ({"path": ...}, False),
        ({"path": None}, False),
        ({"path": ".github/workflows/other/eval.yml"}, False),
        ({"event": ...}, False),
        ({"event": "PUSH"}, False),
        ({"head_branch": ...}, False),
        ({"head_branch": "main2"}, False),
        ({"head_repository": ...}, False),
        ({"head_repository": None}, False),
        ({"head_repository": {}}, False),
        ({"head_repository": {"full_name": "octo/repo-fork"}}, False),
    ],
    ids=str,
)
def test_a_run_missing_any_field_of_the_rule_is_not_a_base_run(changes: dict[str, Any], counts: bool) -> None:
    run = _listed(**changes)
    assert is_base_branch_run(run, repository="octo/repo", branch="main", workflow_path=WORKFLOW_PATH) is counts


@pytest.mark.parametrize("workflow_ref", [None, "octo/repo@refs/heads/main", "eval.yml@refs/heads/main"])
def test_without_the_workflow_file_no_run_is_looked_up(fake_github: FakeGitHub, workflow_ref: str | None) -> None:
    """Which runs are this workflow's cannot be told without ``GITHUB_WORKFLOW_REF``'s file: no run is taken."""
    fake_github.add_workflow_run(artifacts=[(NAME, good_zip(0.9))])
    client = GitHubClient(api_url=fake_github.url, token="ghs_token_for_tests", retry=FAST)
    found = baseline.resolve(
        baseline_file=None, client=client, context=context(workflow_ref=workflow_ref), artifact_name=NAME
    )
    assert isinstance(found, NoBaseline) and found.warning is None and "GITHUB_WORKFLOW_REF" in found.note
    assert fake_github.requests == []

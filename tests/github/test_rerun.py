"""The results of an earlier attempt of this workflow run, found through the fake Actions API over real HTTP for a
job re-run with --sequential, and read as untrusted as the baseline's: anything wrong is one line and a fresh
start."""

from __future__ import annotations

import json
import zipfile

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.compare.earlier_attempt import NoEarlierAttempt
from adk_eval_gate.config.settings import Settings, build_settings
from adk_eval_gate.github import rerun
from adk_eval_gate.github.artifact import MAX_RESULTS_BYTES, MAX_ZIP_BYTES
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.model.results import ResultsDocument, SequentialRun
from adk_eval_gate.report.writer import results_json
from adk_eval_gate.support.retry import Backoff
from tests.fakes.github_server import FakeGitHub
from tests.github.zips import make_zip, patch_central_directory
from tests.report.builders import case, document, metric

FAST = Backoff(attempts=4, initial=0.01, maximum=0.01)
NAME = "adk-eval-results"
SEQUENTIAL = SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=4, undecided="point")


def _results() -> bytes:
    built = verdict.decide_case(
        case("paris", [metric("response_match_score", [1.0, 1.0, 1.0])]), pass_rule="mean", sequential=SEQUENTIAL
    )
    doc = verdict.decide(document([built], num_runs=4), None, verdict.Policy(sequential=SEQUENTIAL))
    return results_json(doc.model_copy(update={"run": doc.run.model_copy(update={"run_attempt": 1})})).encode()


def _settings(run_id: int, *, attempt: str = "2", sequential: bool = True) -> Settings:
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_RUN_ID": str(run_id),
        "GITHUB_RUN_ATTEMPT": attempt,
    }
    return build_settings("run", {"sequential": sequential, "num_runs": 4}, env=env)


def _client(fake: FakeGitHub) -> GitHubClient:
    return GitHubClient(api_url=fake.url, token="ghs_token_for_tests", retry=FAST)


def _find(fake: FakeGitHub, artifact: bytes, **declared: int) -> ResultsDocument | NoEarlierAttempt:
    run_id = fake.add_workflow_run(event="pull_request", artifacts=[(NAME, artifact)], declared_sizes=declared or None)
    return rerun.find(_settings(run_id), _client(fake))


@pytest.mark.slow  # a download through the fake's storage
def test_a_re_run_finds_the_results_its_earlier_attempt_uploaded_to_this_run(fake_github: FakeGitHub) -> None:
    other = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": b"{}"}))])
    found = _find(fake_github, make_zip({"results.json": _results()}))
    assert isinstance(found, ResultsDocument) and found.run.run_attempt == 1
    [listing] = [call for call in fake_github.calls("GET", "/artifacts") if "/actions/runs/" in call.path]
    assert f"/runs/{other}/" not in listing.path and listing.query["name"] == NAME
    assert all(request["authorization"] is None for request in fake_github.storage_requests)


@pytest.mark.parametrize(("attempt", "sequential"), [("1", True), ("", True), ("2", False), ("²", True)])
def test_a_first_attempt_or_a_run_without_sequential_looks_nothing_up_and_says_nothing(
    fake_github: FakeGitHub, attempt: str, sequential: bool
) -> None:
    found = rerun.find(_settings(41, attempt=attempt, sequential=sequential), _client(fake_github))
    assert found == NoEarlierAttempt() and not fake_github.calls("GET", "/artifacts")


def test_without_a_token_a_re_run_says_in_one_line_that_every_case_starts_afresh() -> None:
    found = rerun.find(_settings(41), None)
    assert isinstance(found, NoEarlierAttempt)
    assert found.note == (
        "attempt 2: every case starts afresh, without a GitHub token and run to find the earlier attempt's evidence"
    )


def test_a_run_without_the_artifact_starts_afresh_and_says_so(fake_github: FakeGitHub) -> None:
    run_id = fake_github.add_workflow_run(artifacts=[("other", make_zip({"results.json": _results()}))])
    found = rerun.find(_settings(run_id), _client(fake_github))
    assert isinstance(found, NoEarlierAttempt) and "has no artifact named 'adk-eval-results'" in found.note


def _deep(levels: int) -> bytes:
    return ("[" * levels + "]" * levels).encode()


@pytest.mark.parametrize(
    ("artifact", "said"),
    [
        (b"not a zip", "not a zip file"),
        (make_zip({"results.json": b"\xff\xfe{}"}), "not valid JSON"),
        (make_zip({"results.json": b'{"schema_version": 1, "status": "passed\x00"}'}), "cannot be used"),
        (make_zip({"results.json": _deep(100_000)}), "cannot be used"),
        (make_zip({"../results.json": b"{}"}), "unsafe path"),
        (patch_central_directory(make_zip({"results.json": b"{}"}), file_size=MAX_RESULTS_BYTES + 1), "more than the"),
        (make_zip({"results.json": b"0" * 2_000_000}), "like a zip bomb"),
        (make_zip({"results.json": json.dumps({"schema_version": 1, "status": "odd"}).encode()}), "cannot be used"),
    ],
    ids=["not-zip", "non-utf8", "nul", "deep", "traversal", "huge", "bomb", "invalid"],
)
def test_a_hostile_artifact_is_one_line_and_a_fresh_start(fake_github: FakeGitHub, artifact: bytes, said: str) -> None:
    found = _find(fake_github, artifact)
    assert isinstance(found, NoEarlierAttempt)
    assert found.note.startswith("attempt 2: every case starts afresh: ") and said in found.note
    assert "\n" not in found.note and "Traceback" not in found.note


def test_an_artifact_declared_too_large_is_not_downloaded(fake_github: FakeGitHub) -> None:
    found = _find(fake_github, make_zip({"results.json": _results()}), **{NAME: MAX_ZIP_BYTES + 1})
    assert isinstance(found, NoEarlierAttempt) and "more than the" in found.note
    assert not fake_github.storage_requests


@pytest.mark.slow  # a download through the fake's storage
def test_a_stored_zip_holding_the_results_reads_the_same(fake_github: FakeGitHub) -> None:
    found = _find(fake_github, make_zip({"results.json": _results()}, compression=zipfile.ZIP_STORED))
    assert isinstance(found, ResultsDocument)

"""The baseline from the base branch's artifact, found through the fake Actions API over real HTTP."""

from __future__ import annotations

import io
import itertools
import json
import os
from pathlib import Path

import pytest

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.config.github_context import GitHubContext
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.finish import against_baseline
from adk_eval_gate.github import baseline
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.github.run_cache import RunCache
from adk_eval_gate.report.writer import results_json
from adk_eval_gate.selection.found_baseline import Baseline, NoBaseline
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.retry import Backoff
from tests.fakes.github_server import FakeGitHub
from tests.github.zips import make_zip, patch_central_directory
from tests.report.builders import baseline_info, case, document, metric

FAST = Backoff(attempts=4, initial=0.01, maximum=0.01)

NAME = "adk-eval-results"


def results_bytes(score: float) -> bytes:
    return results_json(document([case("paris", [metric("response_match_score", score)])])).encode()


def context(**changes: object) -> GitHubContext:
    values = {
        "in_actions": True,
        "event_name": "pull_request",
        "repository": "octo/repo",
        "workflow_ref": "octo/repo/.github/workflows/eval.yml@refs/pull/7/merge",
        "base_ref": "main",
        **changes,
    }
    return GitHubContext(**values)  # type: ignore[arg-type]


def find(fake: FakeGitHub, **changes: object) -> Baseline | NoBaseline:
    client = GitHubClient(api_url=fake.url, token="ghs_token_for_tests", retry=FAST)
    return baseline.resolve(baseline_file=None, client=client, context=context(**changes), artifact_name=NAME)


def test_the_newest_good_artifact_is_found_downloaded_without_the_token_and_compared(fake_github: FakeGitHub) -> None:
    older = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.5)}))])
    newest = fake_github.add_workflow_run(
        artifacts=[(NAME, make_zip({"results.json": results_bytes(0.9)})), ("other", b"zip")], head_sha="ab" * 20
    )
    found = find(fake_github)
    assert isinstance(found, Baseline)
    assert found.info.run_id == newest and found.info.sha == "ab" * 20 and found.info.source == "artifact"
    assert found.info.run_url == f"https://github.com/octo/repo/actions/runs/{newest}"
    assert [run.info.run_id for run in found.history] == [newest, older]  # the history, newest first
    assert len(fake_github.storage_requests) == 2
    assert all(r["authorization"] is None for r in fake_github.storage_requests)  # redirects followed without a token
    [listing] = fake_github.calls("GET", "/actions/workflows/eval.yml/runs")
    assert listing.query["branch"] == "main" and listing.query["status"] == "completed"
    head = document([case("paris", [metric("response_match_score", 0.7)])])
    comparison = compare(head, found.doc, baseline=found.info)
    assert [(c.kind, c.base, c.head) for c in comparison.changes] == [("regressed", 0.9, 0.7)]


def test_runs_of_other_branches_forks_and_without_the_artifact_are_skipped(fake_github: FakeGitHub) -> None:
    good = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.8)}))])
    fake_github.add_workflow_run(branch="feature", artifacts=[(NAME, make_zip({"results.json": results_bytes(0.1)}))])
    fake_github.add_workflow_run(
        event="pull_request",
        head_repository="mallory/repo",
        artifacts=[(NAME, make_zip({"results.json": results_bytes(0.0)}))],
    )
    fake_github.add_workflow_run(artifacts=[("coverage", b"zip")])
    fake_github.add_workflow_run(conclusion="cancelled", artifacts=[(NAME, b"zip")])
    found = find(fake_github)
    assert isinstance(found, Baseline)
    assert found.info.run_id == good


def test_a_base_branch_whose_gate_failed_still_gives_pull_requests_their_baseline(fake_github: FakeGitHub) -> None:
    """The gate fails its job when a case fails, so a main branch with one failing case concludes ``failure``:
    its newest run with results is the baseline all the same, and the history takes the failed runs too."""
    passed = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.9)}))])
    older_failure = fake_github.add_workflow_run(
        conclusion="failure", artifacts=[(NAME, make_zip({"results.json": results_bytes(0.2)}))]
    )
    newest_failure = fake_github.add_workflow_run(
        conclusion="failure", artifacts=[(NAME, make_zip({"results.json": results_bytes(0.3)}))], head_sha="cd" * 20
    )
    found = find(fake_github)
    assert isinstance(found, Baseline), found
    assert found.doc.status == "failed" and found.info.run_id == newest_failure and found.info.sha == "cd" * 20
    assert [run.info.run_id for run in found.history] == [newest_failure, older_failure, passed]


def test_runs_that_could_not_decide_are_passed_over_with_one_line_each(fake_github: FakeGitHub) -> None:
    """Cancelled runs, runs without the artifact, and runs whose gate ended in error or was interrupted are not
    the base branch's state: each is passed over, and the log says which and why."""
    good = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.8)}))])
    interrupted = json.loads(results_bytes(0.1))
    interrupted["run"]["interrupted"] = True
    errored = json.loads(results_bytes(0.1))
    errored["status"] = "error"
    errored["error"] = "the agent could not be imported"
    for data in (interrupted, errored):
        fake_github.add_workflow_run(
            conclusion="failure", artifacts=[(NAME, make_zip({"results.json": json.dumps(data).encode()}))]
        )
    fake_github.add_workflow_run(conclusion="failure", artifacts=[("coverage", b"zip")])
    fake_github.add_workflow_run(conclusion="cancelled", artifacts=[(NAME, b"zip")])
    lines: list[str] = []
    client = GitHubClient(api_url=fake_github.url, token="ghs_token_for_tests", retry=FAST)
    found = baseline.resolve(
        baseline_file=None, client=client, context=context(), artifact_name=NAME, note=lines.append
    )
    assert isinstance(found, Baseline) and found.info.run_id == good
    assert [line.split(": ", 1)[1] for line in lines] == [
        "it was cancelled",
        f"it has no artifact named {NAME!r}",
        "its gate could not decide (status error)",
        "its gate was interrupted before every case ran",
    ]
    assert all(line.startswith("base run ") and " passed over: " in line for line in lines)


def test_a_run_of_another_branch_is_never_the_baseline_whatever_the_listing_answers(fake_github: FakeGitHub) -> None:
    """The branch is asked of the API (``?branch=``) and checked again in each run of its answer: a listing that
    ignores the filter cannot make another branch's run the baseline."""
    fake_github.branch_filter_ignored = True
    good = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.8)}))])
    fake_github.add_workflow_run(branch="feature", artifacts=[(NAME, make_zip({"results.json": results_bytes(0.1)}))])
    found = find(fake_github)
    assert isinstance(found, Baseline)
    assert [run.info.run_id for run in found.history] == [good]


def _broken_older_run(fake: FakeGitHub, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An older base run whose artifact fails in the way ``how`` names."""
    run = fake.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.5)}))])
    artifact = max(fake.artifacts)
    if how == "listing-500":
        fake.fail("GET", f"/actions/runs/{run}/artifacts", 500, times=10)
    elif how == "location-500":
        fake.fail("GET", f"/actions/artifacts/{artifact}/zip", 500, times=10)
    elif how == "expired-after-listing":
        fake.fail("GET", f"/actions/artifacts/{artifact}/zip", 410, body={"message": "Artifact has expired"})
    elif how == "oversized":
        monkeypatch.setattr(baseline, "MAX_ZIP_BYTES", 4096)
        fake.artifacts[artifact].data = make_zip({"results.json": results_bytes(0.5), "padding": os.urandom(8192)})
        fake.artifacts[artifact].declared_size = 100  # the listing says it is small
    else:
        fake.artifacts[artifact].endless = True


@pytest.mark.parametrize(
    "how",
    [
        "listing-500",
        "location-500",
        "expired-after-listing",
        "oversized",
        pytest.param("endless", marks=pytest.mark.slow),  # waits for the download's deadline
    ],
    ids=str,
)
@pytest.mark.timeout(60)
def test_an_older_run_that_cannot_be_used_only_shortens_the_history(
    fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A failure reading an older run's results loses that run's history only: the newest baseline is kept."""
    oldest = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.6)}))])
    _broken_older_run(fake_github, how, monkeypatch)
    newest = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.9)}))])
    client = GitHubClient(api_url=fake_github.url, token="ghs_token_for_tests", retry=FAST, download_deadline=1.0)
    found = baseline.resolve(baseline_file=None, client=client, context=context(), artifact_name=NAME)
    assert isinstance(found, Baseline), found
    assert found.info.run_id == newest
    assert [run.info.run_id for run in found.history] == [newest, oldest]


@pytest.mark.slow  # waits for the download's deadline
@pytest.mark.timeout(60)
def test_a_download_that_never_ends_stops_at_its_deadline(fake_github: FakeGitHub) -> None:
    """The baseline's own download keeps its own deadline: the optional downloads' budget and rate do not apply."""
    fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.9)}))])
    fake_github.artifacts[max(fake_github.artifacts)].endless = True
    client = GitHubClient(
        api_url=fake_github.url,
        token="ghs_token_for_tests",
        retry=FAST,
        download_deadline=1.0,
        optional_deadline=0.01,
        min_optional_rate=1e9,
        rate_grace=0.0,
    )
    found = baseline.resolve(baseline_file=None, client=client, context=context(), artifact_name=NAME)
    assert isinstance(found, NoBaseline)
    assert found.warning == "baseline not used: the artifact download did not finish within 1 s"


def _ticking(step: float) -> itertools.count[float]:
    return itertools.count(1000.0, step)  # every reading of the clock ``step`` seconds later


@pytest.mark.timeout(60)
def test_an_older_run_that_trickles_is_given_up_at_the_minimum_rate_and_the_history_says_why(
    fake_github: FakeGitHub,
) -> None:
    """A history download sending a few bytes at a time held the run for minutes: an older run's results are
    optional, so a download under the minimum rate is given up (the fake clock ticks a second per reading, so
    the rate is measured without waiting for it)."""
    oldest = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.6)}))])
    trickling = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.5)}))])
    fake_github.artifacts[max(fake_github.artifacts)].endless = True
    newest = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.9)}))])
    ticks = _ticking(1.0)
    client = GitHubClient(
        api_url=fake_github.url,
        token="ghs_token_for_tests",
        retry=FAST,
        clock=lambda: next(ticks),
        optional_deadline=1e6,
        min_optional_rate=1000.0,
        rate_grace=3.0,
    )
    found = baseline.resolve(baseline_file=None, client=client, context=context(), artifact_name=NAME)
    assert isinstance(found, Baseline), found
    assert [run.info.run_id for run in found.history] == [newest, oldest]
    assert found.history_note is not None and "\n" not in found.history_note
    assert found.history_note.startswith(f"the history leaves out 1 older base run: run {trickling}: the download ")
    assert found.history_note.endswith("bytes/s over 3 s, under the 1,000 bytes/s an optional download must keep")


@pytest.mark.timeout(60)
def test_the_older_runs_share_one_deadline_after_which_only_cached_results_count(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """Each older run's download had a deadline of its own, so several trickling runs added up: they share one,
    and once it is spent the runs left are not even looked up; the results cached by run id still count."""
    cached = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.6)}))])
    slow = [
        fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.5)}))])
        for _ in range(3)
    ]
    for artifact in list(fake_github.artifacts)[1:]:
        fake_github.artifacts[artifact].endless = True
    newest = fake_github.add_workflow_run(artifacts=[(NAME, make_zip({"results.json": results_bytes(0.9)}))])
    ticks = _ticking(0.25)  # the budget starts at a reading; the first download gets what is left: 0.25 s
    client = GitHubClient(
        api_url=fake_github.url,
        token="ghs_token_for_tests",
        retry=FAST,
        clock=lambda: next(ticks),
        optional_deadline=0.5,
        min_optional_rate=0,
    )
    cache = RunCache(tmp_path, api_url=client.api_url, repository="octo/repo", artifact_name=NAME)
    cache.put(cached, baseline.parse_results(results_bytes(0.6), shown="cached"))
    found = baseline.resolve(
        baseline_file=None, client=client, context=context(), artifact_name=NAME, cache_dir=tmp_path
    )
    assert isinstance(found, Baseline), found
    assert [run.info.run_id for run in found.history] == [newest, cached]
    downloaded = [request["path"] for request in fake_github.storage_requests]
    assert len(downloaded) == 2  # the newest run, and the first trickling run until the shared deadline
    looked_up = {run for run in slow if fake_github.calls("GET", f"/actions/runs/{run}/artifacts")}
    assert looked_up == {slow[-1]}  # the newest of them: the two older ones came after the deadline
    assert found.history_note == (
        f"the history leaves out 3 older base runs: run {slow[-1]}: the download did not finish within the 0.5 s "
        "optional downloads have in all (and 2 more)"
    )


def test_the_console_says_why_the_history_is_shorter() -> None:
    doc = document([case("paris", [metric("response_match_score", 0.9)])])
    note = "the history leaves out 1 older base run: run 5: the download averaged 3 bytes/s, under the limit"
    found = Baseline(doc, baseline_info(), history=(), history_note=note)
    out = io.StringIO()
    settings = build_settings("run", {}, env={})
    against_baseline.compare_and_decide(
        doc, settings=settings, console=Console(in_actions=False, stream=out), find_baseline=lambda: found
    )
    assert "The" + note.removeprefix("the") in out.getvalue().splitlines()


def test_no_run_yet_is_a_normal_state(fake_github: FakeGitHub) -> None:
    found = find(fake_github)
    assert isinstance(found, NoBaseline)
    assert found.warning is None
    assert found.note.startswith("no baseline yet: no completed run of eval.yml on main")


def test_not_a_pull_request_needs_no_lookup(fake_github: FakeGitHub) -> None:
    found = find(fake_github, event_name="push", base_ref=None)
    assert isinstance(found, NoBaseline) and found.warning is None
    assert fake_github.requests == []


@pytest.mark.parametrize(
    ("artifact", "declared", "warning"),
    [
        (make_zip({"results.json": results_bytes(1.0), "../../etc/passwd": b"root"}), None, "unsafe path"),
        (make_zip({"results.json": results_bytes(1.0)}), 2 * 1024**3, "2,147,483,648 bytes, more than"),
        (
            patch_central_directory(make_zip({"results.json": results_bytes(1.0)}), file_size=2 * 1024**3),
            None,
            "declares 2,147,483,648 bytes",
        ),
        (make_zip({"results.json": b'{"schema_version": 1, "status": '}), None, "is not valid JSON"),
        (make_zip({"results.json": b'{"hello": "world"}'}), None, "is not a results.json of version 1"),
        (make_zip({"results.json": b'{"schema_version": 1, "status": "maybe"}'}), None, "is not a valid results.json"),
    ],
    ids=["traversal", "declared-2GB-artifact", "declared-2GB-member", "invalid-json", "not-results", "invalid-results"],
)
def test_a_bad_artifact_is_one_clear_warning_and_no_baseline(
    fake_github: FakeGitHub, artifact: bytes, declared: int | None, warning: str
) -> None:
    fake_github.add_workflow_run(artifacts=[(NAME, artifact)], declared_sizes={NAME: declared} if declared else None)
    found = find(fake_github)
    assert isinstance(found, NoBaseline)
    assert found.warning is not None and found.warning.startswith("baseline not used: ")
    assert warning in found.warning
    assert "\n" not in found.warning
    if declared:
        assert fake_github.storage_requests == []  # refused before downloading


def test_missing_actions_read_permission_is_a_warning_naming_it(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", "/actions/workflows/", 403, body={"message": "Resource not accessible by integration"})
    found = find(fake_github)
    assert isinstance(found, NoBaseline)
    assert found.warning is not None and "permissions: actions: read" in found.warning


def test_a_baseline_file(tmp_path: Path) -> None:
    good = tmp_path / "base.json"
    good.write_bytes(results_bytes(0.4))
    found = baseline.resolve(baseline_file=good, client=None, context=context(), artifact_name=NAME)
    assert isinstance(found, Baseline) and found.info.source == "file"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema_version": 1}))
    refused = baseline.resolve(baseline_file=broken, client=None, context=context(), artifact_name=NAME)
    assert isinstance(refused, NoBaseline)
    assert refused.warning is not None and "broken.json is not a valid results.json" in refused.warning

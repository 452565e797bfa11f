"""--history in a pull request, end to end against the fake GitHub: the base branch's last runs as the noise model,
bounded requests, and the cache of their results under --cache-dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import EXAMPLE, artifact_zip, passing_baseline, pull_request_env, run_step

pytestmark = pytest.mark.slow  # every test runs the example agent once for all (example_results): seconds of CPU

NOISY = [1.0, 0.6, 0.95, 0.7, 1.0, 0.65, 0.9, 0.8, 1.0, 1.0]  # two_cities' response score on the base branch


def _gate(monkeypatch: pytest.MonkeyPatch, work: Path, fake: FakeGitHub, recorded: Path, *extra: str):  # type: ignore[no-untyped-def]
    args = ["run", EXAMPLE, "--runner", "recorded", "--recorded", str(recorded), "--output-dir", str(work / "out")]
    return run_step(monkeypatch, [*args, *extra], pull_request_env(work, fake, run_id=77), work)


def test_a_one_run_head_is_judged_against_the_spread_of_ten_base_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    head = load_results(example_results)
    for score in NOISY:  # oldest first; wrong_city_on_purpose passes in every base run (a stable case)
        base = passing_baseline(head, boost={"two_cities.response_match_score": score})
        fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(base))])
    cache = tmp_path / "cache"

    step = _gate(monkeypatch, tmp_path, fake_github, example_results, "--cache-dir", str(cache))
    assert step.code == 1, step.stdout
    changes = {(c["case_id"].split("::")[1], c["metric"]): c for c in step.results()["comparison"]["changes"]}
    noisy = changes[("two_cities", "response_match_score")]
    stable = changes[("wrong_city_on_purpose", "tool_trajectory_avg_score")]
    assert (noisy["kind"], noisy["significance"], noisy["noise"]) == ("regressed", "noise", "history")
    assert (stable["kind"], stable["significance"], stable["noise"]) == ("regressed", "significant", "history")
    history = step.results()["comparison"]["history"]
    assert history["requested"] == 10 and len(history["runs"]) == 10
    assert history["known_flaky"] == []  # two_cities passes its 0.5 threshold in every base run
    lookups = [r for r in fake_github.requests if "/actions/" in r.path]
    assert len(lookups) == 1 + 2 * 10  # one listing of runs, then an artifact listing and a download location per run
    assert len(fake_github.storage_requests) == 10
    summary = step.step_summary.read_text()
    assert '"this run"' in summary and "The base branch's last runs and this run" in summary
    assert "within noise (history)" in summary and "noise from the last 10 base runs" in summary

    again = _gate(monkeypatch, tmp_path, fake_github, example_results, "--cache-dir", str(cache))
    assert again.code == 1
    assert len(fake_github.storage_requests) == 10  # nothing downloaded again
    assert len([r for r in fake_github.requests if "/actions/" in r.path]) == len(lookups) + 1  # the listing only
    assert again.results()["comparison"]["changes"] == step.results()["comparison"]["changes"]


def test_a_case_whose_status_flips_on_the_base_branch_is_known_flaky(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    head = load_results(example_results)
    for score in (1.0, 0.2, 1.0, 0.3):  # two_cities fails its 0.5 threshold in two of four base runs
        base = passing_baseline(head, boost={"two_cities.response_match_score": score})
        fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(base))])
    step = _gate(monkeypatch, tmp_path, fake_github, example_results, "--history", "4")
    flaky_id = f"{EXAMPLE}::two_cities"
    assert step.results()["comparison"]["history"]["known_flaky"] == [flaky_id]
    [comment] = fake_github.comments_on(7)
    assert "1 known flaky on the base branch" in comment.body and "**Known flaky**" in comment.body
    assert "two\\_<wbr>cities" in comment.body


def test_history_zero_compares_with_the_newest_run_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    head = load_results(example_results)
    for score in NOISY:
        base = passing_baseline(head, boost={"two_cities.response_match_score": score})
        fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(base))])
    step = _gate(monkeypatch, tmp_path, fake_github, example_results, "--history", "0")
    comparison = step.results()["comparison"]
    assert comparison["history"] is None and len(fake_github.storage_requests) == 1
    assert {c["significance"] for c in comparison["changes"] if c["kind"] == "regressed"} == {"untested"}


def test_a_base_branch_that_fails_one_case_is_still_the_baseline_of_the_pull_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    """The base branch's two newest runs concluded failure (its gate failed them for the one case that fails there
    too): the pull request compares with the newest of them, and that case is failing on the base branch too."""
    head = load_results(example_results)
    assert head.status == "failed"  # wrong_city_on_purpose fails, on the base branch as in the pull request
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(passing_baseline(head)))])
    fake_github.add_workflow_run(conclusion="failure", artifacts=[("adk-eval-results", artifact_zip(head))])
    newest = fake_github.add_workflow_run(conclusion="failure", artifacts=[("adk-eval-results", artifact_zip(head))])
    step = _gate(monkeypatch, tmp_path, fake_github, example_results)
    assert step.code == 1, step.stdout
    comparison = step.results()["comparison"]
    assert comparison["baseline"]["run_id"] == newest
    assert [c for c in comparison["changes"] if c["kind"] == "regressed"] == []
    assert step.results()["totals"]["failing_on_base"] == 1
    [comment] = fake_github.comments_on(7)
    assert "no baseline yet" not in comment.body and "failing on the base branch too" in comment.body

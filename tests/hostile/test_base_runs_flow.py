"""A run that did not run the base branch's own code never becomes the baseline, and a corrupt newest artifact
gives way to the next good run: either way a real regression still fails ``--fail-on-regression``."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import EXAMPLE, Step, artifact_zip, passing_baseline, pull_request_env, run_step

pytestmark = pytest.mark.slow  # the example agent runs once for real (example_results)

PASSING_CASES = f"{EXAMPLE}:paris_today,two_cities"
NAME = "adk-eval-results"


def _gate(monkeypatch: pytest.MonkeyPatch, work: Path, fake: FakeGitHub, recorded: Path) -> Step:
    args = ["run", PASSING_CASES, "--runner", "recorded", "--recorded", str(recorded), "--fail-on-regression"]
    env = pull_request_env(work, fake, run_id=5)
    return run_step(monkeypatch, [*args, "--output-dir", str(work / "out")], env, work)


def _regressed(step: Step) -> list[tuple[str, str]]:
    changes = step.results()["comparison"]["changes"]
    return [(c["case_id"].split("::")[1], c["metric"]) for c in changes if c["kind"] == "regressed"]


def test_a_deleted_forks_review_run_on_main_cannot_turn_a_regression_into_improvements(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    """The newest run listed on ``main`` is a ``pull_request_review`` run of a deleted fork (``head_repository``
    null) whose artifact scores every case low: it is neither the baseline nor in the history, so the drop
    against the base branch's own run is a regression and the gate fails."""
    head = load_results(example_results)
    real = passing_baseline(head, boost={"two_cities.response_match_score": 1.0})
    base_run = fake_github.add_workflow_run(artifacts=[(NAME, artifact_zip(real))])
    forged = passing_baseline(head, boost={"two_cities.response_match_score": 0.0})
    fake_github.add_workflow_run(
        event="pull_request_review", head_repository_deleted=True, artifacts=[(NAME, artifact_zip(forged))]
    )
    step = _gate(monkeypatch, tmp_path, fake_github, example_results)
    assert step.code == 1, step.stdout
    comparison = step.results()["comparison"]
    assert comparison["baseline"]["run_id"] == base_run
    assert _regressed(step) == [("two_cities", "response_match_score")]


def test_a_corrupt_newest_artifact_gives_way_to_the_next_good_run_with_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    head = load_results(example_results)
    real = passing_baseline(head, boost={"two_cities.response_match_score": 1.0})
    base_run = fake_github.add_workflow_run(artifacts=[(NAME, artifact_zip(real))])
    corrupt = fake_github.add_workflow_run(artifacts=[(NAME, b"PK\x03\x04 not a zip at all")])
    step = _gate(monkeypatch, tmp_path, fake_github, example_results)
    assert step.code == 1, step.stdout
    assert step.results()["comparison"]["baseline"]["run_id"] == base_run
    assert _regressed(step) == [("two_cities", "response_match_score")]
    [line] = [line for line in step.stdout.splitlines() if f"base run {corrupt} " in line]
    assert " passed over: " in line and line.endswith("the artifact is not a zip file")
    assert "baseline not used" not in step.stdout

"""An older base-branch run can only shorten the history.

An older run's artifact that fails to download (a 500, a 410 because it expired after the listing, too large,
never ending) is left out of the history; the newest base run stays the baseline, so a real regression still
fails ``--fail-on-regression``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import EXAMPLE, artifact_zip, passing_baseline, pull_request_env, run_step

pytestmark = pytest.mark.slow  # the example agent runs once for real (example_results)

PASSING_CASES = f"{EXAMPLE}:paris_today,two_cities"


def test_an_older_run_expired_after_the_listing_does_not_let_a_regression_pass(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub, example_results: Path
) -> None:
    head = load_results(example_results)
    older = fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(passing_baseline(head)))])
    newest_base = passing_baseline(head, boost={"two_cities.response_match_score": 1.0})
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(newest_base))])
    expired = next(artifact.id for artifact in fake_github.artifacts.values() if artifact.run_id == older)
    fake_github.fail("GET", f"/actions/artifacts/{expired}/zip", 410, body={"message": "Artifact has expired"})
    args = ["run", PASSING_CASES, "--runner", "recorded", "--recorded", str(example_results), "--fail-on-regression"]
    step = run_step(
        monkeypatch,
        [*args, "--output-dir", str(tmp_path / "out")],
        pull_request_env(tmp_path, fake_github, run_id=5),
        tmp_path,
    )
    assert step.code == 1, step.stdout
    comparison = step.results()["comparison"]
    regressed = [(c["case_id"].split("::")[1], c["metric"]) for c in comparison["changes"] if c["kind"] == "regressed"]
    assert regressed == [("two_cities", "response_match_score")]
    assert "baseline not used" not in step.stdout

"""A job re-run with --sequential, end to end: the example agent runs for real (ADK runner, scripted model) in a
first attempt, its results are this workflow run's artifact on the fake GitHub, and the second attempt continues
their evidence: the proven case spends no runs, the others run on under the run numbers after theirs and are decided
on the runs of both attempts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.model.results import SequentialRun
from adk_eval_gate.report.writer import results_json
from adk_eval_gate.verdict import Policy
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import EXAMPLE, FAILING, run_step
from tests.github.zips import make_zip
from tests.report.builders import case, document, metric

NAME = "adk-eval-results"
ARGS = ["run", EXAMPLE, "--sequential", "--num-runs", "3", "--pass-rule", "all"]


def _env(work: Path, fake: FakeGitHub, *, run_id: int, attempt: int) -> dict[str, str]:
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_RUN_ID": str(run_id),
        "GITHUB_RUN_ATTEMPT": str(attempt),
        "GITHUB_SHA": "4d" * 20,
        "GITHUB_API_URL": fake.url,
        "GITHUB_TOKEN": "ghs_flowtoken",
        "GITHUB_OUTPUT": str(work / "github_output"),
        "GITHUB_STEP_SUMMARY": str(work / "step_summary.md"),
    }


@pytest.mark.slow
def test_a_re_run_continues_the_evidence_of_its_earlier_attempt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    first_out = tmp_path / "first"
    first = run_step(
        monkeypatch, [*ARGS, "--output-dir", str(first_out)], _env(tmp_path, fake_github, run_id=5, attempt=1), tmp_path
    )
    earlier = json.loads((first_out / "results.json").read_text())
    assert first.code == 1 and earlier["run"]["run_attempt"] == 1 and "continued_from_attempt" not in earlier["run"]
    decisions = {case["id"]: case["sequential"]["decision"] for case in earlier["cases"]}
    assert decisions.pop(FAILING) == "proven-fail" and set(decisions.values()) == {"curtailed"}

    run_id = fake_github.add_workflow_run(
        event="push", artifacts=[(NAME, make_zip({"results.json": (first_out / "results.json").read_bytes()}))]
    )
    second_out = tmp_path / "second"
    second = run_step(
        monkeypatch,
        [*ARGS, "--output-dir", str(second_out)],
        _env(tmp_path, fake_github, run_id=run_id, attempt=2),
        tmp_path,
    )
    assert second.code == 1, second.stdout
    assert (
        f"attempt 2 continues the sequential evidence of attempt 1: {len(earlier['cases'])} cases "
        "(1 proven there spend no runs), run numbers after theirs"
    ) in second.stdout
    [line] = [line for line in second.stdout.splitlines() if line.startswith("Sequential verdicts")]
    assert line.endswith(" undecided · evidence continued from attempt 1")
    assert line in second.step_summary.read_text()
    now = json.loads((second_out / "results.json").read_text())
    assert now["run"]["continued_from_attempt"] == 1 and now["run"]["run_attempt"] == 2
    cases = {case["id"]: case for case in now["cases"]}
    failing = cases.pop(FAILING)
    assert [run["run"] for run in failing["runs"]] == [1, 2] and failing["sequential"]["reopened_at"] == [2]
    for passing in cases.values():
        assert [run["run"] for run in passing["runs"]] == [1, 2, 3, 4, 5, 6]
        assert passing["sequential"]["runs"] == 6 and passing["sequential"]["reopened_at"] == [3]
    assert now["totals"]["runs"] == 3 * len(cases)  # only this attempt's runs: the failing case spent none
    assert earlier["totals"]["runs"] == 3 * len(cases) + 2


@pytest.mark.slow
def test_a_re_run_under_other_settings_says_so_in_one_line_and_starts_every_case_afresh(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    other = SequentialRun(confidence=0.99, margin=0.1, min_runs=2, max_runs=3, undecided="point")
    built = verdict.decide(document([case("paris", [metric("m", [1.0])])], num_runs=3), None, Policy(sequential=other))
    earlier = built.model_copy(update={"run": built.run.model_copy(update={"run_attempt": 1, "sha": "4d" * 20})})
    run_id = fake_github.add_workflow_run(
        event="push", artifacts=[(NAME, make_zip({"results.json": results_json(earlier).encode()}))]
    )
    out = tmp_path / "second"
    second = run_step(
        monkeypatch, [*ARGS, "--output-dir", str(out)], _env(tmp_path, fake_github, run_id=run_id, attempt=2), tmp_path
    )
    [said] = [line for line in second.stdout.splitlines() if "starts afresh" in line]
    assert "the earlier attempt's evidence is not continued: it ran with other --sequential settings" in said
    now = json.loads((out / "results.json").read_text())
    assert "continued_from_attempt" not in now["run"] and now["run"]["run_attempt"] == 2
    assert all(ran["runs"][0]["run"] == 1 and "reopened_at" not in ran["sequential"] for ran in now["cases"])

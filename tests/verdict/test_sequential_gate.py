"""--sequential end to end: the real gate (adk runner, in this process) on a real ADK agent whose answers are right
with seeded, known probabilities, run with a fixed --num-runs and with --sequential: the sequential run spends
fewer runs, gives the same verdicts on the cases that never vary, and results.json, the comment and JUnit agree on
the runs and decisions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.inputs.saved_results import load_results
from tests.conftest import gate_in_process
from tests.fakes.github_server import FakeGitHub
from tests.github.flows import artifact_zip, pull_request_env
from tests.verdict.test_flakiness import _calls, _gate, _project

pytestmark = pytest.mark.slow  # real agents through the CLI

CASES = {
    "sure_a": "p100 sure a",
    "sure_b": "p100 sure b",
    "sure_c": "p100 sure c",
    "broken": "p0 broken",
    "mostly": "p90 mostly",
    "coin": "p50 coin",
}


def _results(repo: Path) -> dict[str, Any]:
    return json.loads((repo / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))


def _run(repo: Path, monkeypatch: pytest.MonkeyPatch, name: str, *args: str) -> tuple[dict[str, Any], str, Path]:
    agent = _project(repo / name, CASES, threshold=0.9)
    result = _gate(monkeypatch, repo / name, agent, "--num-runs", "10", "--pass-rule", "majority", *args)
    assert result.returncode == 1, result.stdout + result.stderr  # "broken" fails either way
    return _results(repo / name), result.stdout, agent


def test_sequential_spends_fewer_runs_for_the_same_verdicts_on_stable_cases(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixed, fixed_log, _ = _run(repo, monkeypatch, "fixed")
    sequential, log, agent = _run(repo, monkeypatch, "seq", "--sequential", "--confirm-failures", "3")
    assert "--confirm-failures is not applied with --sequential" in log
    runs = {case["eval_id"]: len(case["runs"]) for case in sequential["cases"]}
    assert sum(runs.values()) < sum(len(case["runs"]) for case in fixed["cases"]) == 60
    assert sum(_calls(agent).values()) == sum(runs.values())  # the agent ran exactly the runs recorded
    statuses = {case["eval_id"]: case["status"] for case in sequential["cases"]}
    assert statuses == {case["eval_id"]: case["status"] for case in fixed["cases"]} | {"coin": statuses["coin"]}
    decisions = {case["eval_id"]: case["sequential"]["decision"] for case in sequential["cases"]}
    assert {decisions[name] for name in ("sure_a", "sure_b", "sure_c", "broken")} <= {"proven-pass", "proven-fail"}
    assert all(case["sequential"]["runs"] <= runs[case["eval_id"]] for case in sequential["cases"])
    totals = sequential["totals"]
    assert (totals["runs"], totals["runs_fixed"]) == (sum(runs.values()), 60)
    assert sequential["run"]["sequential"] == {
        "confidence": 0.95,
        "margin": 0.1,
        "min_runs": 2,
        "max_runs": 10,
        "undecided": "point",
        "fail_split": None,  # each case at the confidence: the split is neutral's
    }
    assert "sequential" not in fixed["run"] and "runs" not in fixed["totals"]
    assert "Sequential verdicts" not in fixed_log

    decided = totals["proven"], totals["curtailed"], totals["undecided"]
    assert sum(decided) == 6
    line = (
        f"Sequential verdicts (95%, margin 0.10, 2-10 runs): 6 cases, {totals['runs']} runs (fixed: 60; "
        f"{round(100 * (totals['runs'] - 60) / 60):+d}%) · {decided[0]} proven · {decided[1]} curtailed · "
        f"{decided[2]} undecided"
    )
    comment = (repo / "seq" / "adk-eval-results" / "comment.md").read_text(encoding="utf-8")
    assert line in comment and line in log
    junit = (repo / "seq" / "adk-eval-results" / "junit.xml").read_text(encoding="utf-8")
    for case in sequential["cases"]:
        label = case["eval_id"]
        assert f'<property name="{label}.sequential" value="{case["sequential"]["decision"]}" />' in junit
        assert f'<property name="{label}.sequential_runs" value="{case["sequential"]["runs"]}" />' in junit


def test_under_neutral_a_proven_failure_needs_its_share_of_the_error_across_the_suite(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results, log, _ = _run(repo, monkeypatch, "neutral", "--sequential", "--undecided", "neutral")
    assert results["run"]["sequential"]["fail_split"] == len(CASES)
    broken = next(case for case in results["cases"] if case["eval_id"] == "broken")
    # e-value 6 / 0.05 = 120 for a proof: 8 failing runs under majority, where 1 / 0.05 took 5
    assert (broken["sequential"]["decision"], broken["sequential"]["runs"]) == ("proven-fail", 8)
    assert broken["sequential"]["e_fail"] >= len(CASES) / 0.05 and "proven to fail at 95% after 8 runs" in log


def test_under_neutral_cases_undecided_alone_fail_when_proven_failing_across_the_suite(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = {"sure_a": "p100 sure a", "sure_b": "p100 sure b", "broken_a": "p0 broken a", "broken_b": "p0 broken b"}
    agent = _project(repo / "suite", cases, threshold=0.9)
    args = ("--num-runs", "6", "--pass-rule", "majority", "--sequential", "--undecided", "neutral")
    result = _gate(monkeypatch, repo / "suite", agent, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    results = _results(repo / "suite")
    broken = [case for case in results["cases"] if case["eval_id"].startswith("broken")]
    # 6 failing runs reach an e-value of 47: short of 4 / 0.05 = 80 alone, past e-BH's 4 / (2 * 0.05) = 40 for two
    assert all(case["sequential"]["e_fail"] < 80 for case in broken)
    assert [(case["status"], case["sequential"]["decision"], case["sequential"]["runs"]) for case in broken] == [
        ("failed", "proven-fail", 6)
    ] * 2
    assert "proven failing across the suite's 4 cases at 95% after 6 runs (e-BH: e-value 47 >= bar 40)" in (
        result.stdout
    )
    junit = (repo / "suite" / "adk-eval-results" / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="broken_a.sequential" value="proven-fail" />' in junit


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    try:
        yield fake
    finally:
        fake.stop()
    fake.assert_clean()


def test_with_fail_on_regression_a_case_runs_until_its_comparison_with_the_base_is_settled(
    repo: Path, monkeypatch: pytest.MonkeyPatch, fake_github: FakeGitHub
) -> None:
    steady = {"sure_a": "p100 sure a", "sure_b": "p100 sure b", "broken": "p0 broken"}
    agent = _project(repo, steady, threshold=0.9)
    base_run = _gate(monkeypatch, repo, agent, "--num-runs", "10", "--pass-rule", "majority")
    assert base_run.returncode == 1, base_run.stdout + base_run.stderr
    base = load_results(repo / "adk-eval-results" / "results.json")
    fake_github.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(base))])

    env = {**pull_request_env(repo, fake_github, run_id=78), "GITHUB_WORKSPACE": str(repo)}
    args = ("--num-runs", "10", "--pass-rule", "majority", "--sequential", "--output-dir", "head")
    settling = ("--fail-on-regression", "--regression-tolerance", "0.45")
    head_run = gate_in_process(monkeypatch, "run", str(agent), "--workers", "0", *args, *settling, cwd=repo, env=env)
    assert head_run.returncode == 1, head_run.stdout + head_run.stderr  # "broken" fails, as on the base
    cases = {c["eval_id"]: c for c in json.loads((repo / "head" / "results.json").read_text())["cases"]}
    for name in ("sure_a", "sure_b"):
        # proven passing after 4 runs; no regression proven (head's lower bound at least the base's upper bound
        # less 0.45) once 8 runs score 1.0 against the base's
        assert (cases[name]["sequential"]["decision"], cases[name]["sequential"]["runs"]) == ("proven-pass", 4)
        assert len(cases[name]["runs"]) == 8
    # proven failing after 5 runs; the base failed it too, so nothing can be a regression: no run more
    assert (cases["broken"]["sequential"]["decision"], len(cases["broken"]["runs"])) == ("proven-fail", 5)
    assert sum(_calls(agent).values()) == 10 * 3 + 8 * 2 + 5  # the base's runs, then the head's

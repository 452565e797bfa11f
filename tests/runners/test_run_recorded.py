"""End to end through the CLI with the recorded runner: real ADK result files in, reports and exit codes out.

The first test runs the CLI as a real process; the others in this process (``cli_in_process``), which replays the
same files without a process that imports the gate and ADK again for each run."""

from __future__ import annotations

import json
import re
import shutil
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.model.results import parse_document
from tests.adk_history import shared_adk_history
from tests.conftest import EXAMPLES, junit_schema, run_cli, validate_results, write_json

pytestmark = pytest.mark.slow  # the CLI end to end, against ADK itself

Cli = Callable[..., Any]  # the cli_in_process fixture: called as run_cli is


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_adk_history(tmp_path_factory, runs=2)


@pytest.fixture
def workspace(repo: Path) -> Path:
    shutil.copytree(
        EXAMPLES / "weather_agent", repo / "weather_agent", ignore=shutil.ignore_patterns("__pycache__", ".adk")
    )
    return repo


def _results(workspace: Path) -> dict:
    data = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    validate_results(data)
    return data


def _adk_turn_scores(history: Path) -> dict[tuple[str, str], list[float]]:
    """Every turn's score of each case and metric in ADK's result files, pooled across them (the runs)."""
    scores: dict[tuple[str, str], list[float]] = {}
    for path in sorted(history.glob("*.evalset_result.json")):
        for case in json.loads(path.read_text())["eval_case_results"]:
            for turn in case["eval_metric_result_per_invocation"]:
                for metric in turn["eval_metric_results"]:
                    if metric["score"] is not None:
                        scores.setdefault((case["eval_id"], metric["metric_name"]), []).append(metric["score"])
    return scores


def _adk_scores(history: Path) -> dict[tuple[str, str], list[float]]:
    scores: dict[tuple[str, str], list[float]] = {}
    for path in sorted(history.glob("*.evalset_result.json")):
        for case in json.loads(path.read_text())["eval_case_results"]:
            for metric in case["overall_eval_metric_results"]:
                scores.setdefault((case["eval_id"], metric["metric_name"]), []).append(metric["score"])
    return scores


def test_scores_equal_adks_and_reports_are_valid(workspace: Path, history: Path) -> None:
    result = run_cli(
        "run", "weather_agent/weather.evalset.json", "--runner", "recorded", "--recorded", str(history), cwd=workspace
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "FAIL weather_agent/weather.evalset.json::wrong_city_on_purpose" in result.stdout
    assert 'turn 1 tools:  expected get_weather({"city": "Melbourne"})' in result.stdout
    assert 'got      get_weather({"city": "Sydney"})' in result.stdout
    data = _results(workspace)
    assert data["status"] == "failed"
    assert data["run"]["pass_rule"] == "mean" and data["stability"]["cases"] == 3
    assert (
        "passed at least once (pass@2); a case passes when each metric's mean over every turn of its runs meets its "
        "threshold" in result.stdout
    )
    assert data["totals"] == {
        "cases": 3,
        "passed": 2,
        "failed": 1,
        "error": 0,
        "not_evaluated": 0,
        "quarantined": 0,
        "quarantined_not_passing": 0,
        "files": 1,
        "file_errors": 0,
        "infrastructure_errors": 0,
        "retried_runs": 0,
        "confirmed_failures": 0,
        "flaky": 0,
        "failing_on_base": 0,
        "budgets_missed": 0,
        "budgets_unchecked": 0,
        "carried": 0,
    }
    adk = _adk_scores(history)
    turns = _adk_turn_scores(history)
    for case in parse_document(data, shown="results.json").cases:  # run scores may be the runs' (left out)
        assert len(case.runs) == 2  # two ADK result files: two runs
        for metric in case.metrics:
            expected = adk[(case.eval_id, metric.name)]
            assert metric.run_scores == expected
            # several runs: every turn's score pooled across the runs, as AgentEvaluator computes it
            assert metric.score == statistics.mean(turns[(case.eval_id, metric.name)])
    junit = (workspace / "adk-eval-results" / "junit.xml").read_text()
    junit_schema().validate(junit)
    assert junit.count("<testcase ") == 3  # one per case, its runs inside
    assert 'file="weather_agent/weather.evalset.json" line="' in junit
    assert 'message="tool_trajectory_avg_score: 0 &lt; 1 (runs: 0, 0)"' in junit
    summary = (workspace / "adk-eval-results" / "summary.md").read_text()
    assert "ADK eval gate failed" in summary and "wrong\\_city\\_on\\_purpose" not in summary
    assert "<summary>❌ wrong_city_on_purpose" in summary


def test_double_encoded_and_single_file_and_results_json_as_recording(
    workspace: Path, history: Path, cli_in_process: Cli
) -> None:
    first = sorted(history.glob("*.evalset_result.json"))[0]
    double = workspace / "old.evalset_result.json"
    double.write_text(json.dumps(first.read_text()))
    result = cli_in_process(
        "run", "weather_agent/weather.evalset.json", "--runner", "recorded", "--recorded", str(double), cwd=workspace
    )
    assert result.returncode == 1, result.stdout
    data = _results(workspace)
    assert [len(c["runs"]) for c in data["cases"]] == [1, 1, 1]
    shutil.copy(workspace / "adk-eval-results" / "results.json", workspace / "previous.json")
    again = cli_in_process(
        "run",
        "weather_agent/weather.evalset.json",
        "--runner",
        "recorded",
        "--recorded",
        "previous.json",
        "--output-dir",
        "second",
        cwd=workspace,
    )
    assert again.returncode == 1, again.stdout
    second = json.loads((workspace / "second" / "results.json").read_text())
    assert [m["score"] for c in second["cases"] for m in c["metrics"]] == [
        m["score"] for c in data["cases"] for m in c["metrics"]
    ]


def test_case_selector_and_unknown_case(workspace: Path, history: Path, cli_in_process: Cli) -> None:
    ok = cli_in_process(
        "run",
        "weather_agent/weather.evalset.json:paris_today,two_cities",
        "--runner",
        "recorded",
        "--recorded",
        str(history),
        cwd=workspace,
    )
    assert ok.returncode == 0, ok.stdout
    assert [c["eval_id"] for c in _results(workspace)["cases"]] == ["paris_today", "two_cities"]
    bad = cli_in_process(
        "run",
        "weather_agent/weather.evalset.json:paris",
        "--runner",
        "recorded",
        "--recorded",
        str(history),
        cwd=workspace,
    )
    assert bad.returncode == 2
    assert "no case 'paris'" in bad.stdout and "did you mean 'paris_today'?" in bad.stdout
    assert len(bad.stdout.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_a_broken_file_is_an_error_entry_and_the_others_still_run(
    workspace: Path, history: Path, cli_in_process: Cli
) -> None:
    (workspace / "weather_agent" / "broken.evalset.json").write_text('{"eval_set_id": "x", "eval_cases": [}')
    result = cli_in_process(
        "run",
        "weather_agent",
        "--runner",
        "recorded",
        "--recorded",
        str(history),
        "--include",
        "*.evalset.json",
        cwd=workspace,
    )
    assert result.returncode == 2, result.stdout
    assert "weather_agent/broken.evalset.json:1:37: invalid JSON" in result.stdout
    data = _results(workspace)
    assert data["status"] == "error" and data["totals"]["file_errors"] == 1 and data["totals"]["cases"] == 3
    broken = next(f for f in data["files"] if f["path"] == "weather_agent/broken.evalset.json")
    assert broken["line"] == 1 and "invalid JSON" in broken["error"]
    junit_schema().validate((workspace / "adk-eval-results" / "junit.xml").read_text())


def test_missing_recording_is_an_error_case(workspace: Path, history: Path, cli_in_process: Cli) -> None:
    data = json.loads((workspace / "weather_agent" / "weather.evalset.json").read_text())
    data["eval_cases"][0]["eval_id"] = "never_recorded"
    write_json(workspace / "weather_agent" / "weather.evalset.json", data)
    result = cli_in_process(
        "run", "weather_agent/weather.evalset.json", "--runner", "recorded", "--recorded", str(history), cwd=workspace
    )
    assert result.returncode == 1
    case = _results(workspace)["cases"][0]
    assert case["status"] == "error" and "no recorded result" in case["error"]


def test_not_evaluated_fails_the_gate_unless_allowed(repo: Path, cli_in_process: Cli) -> None:
    scenario_case = {
        "eval_id": "simulated",
        "conversation_scenario": {"starting_prompt": "Weather in Paris?", "conversation_plan": "Ask once."},
    }
    write_json(repo / "sim.evalset.json", {"eval_set_id": "sim", "eval_cases": [scenario_case]})
    write_json(
        repo / "test_config.json",
        {
            "criteria": {
                "response_match_score": 0.5,
                "trajectory_single_tool_use": {"threshold": 1, "tool_name": "get_weather"},
            }
        },
    )
    actual = {
        "user_content": {"parts": [{"text": "Weather in Paris?"}]},
        "final_response": {"parts": [{"text": "Sunny."}]},
        "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]},
    }
    recording = {
        "schema_version": 1,
        "status": "passed",
        "totals": {},
        "cases": [
            {
                "id": "sim.evalset.json::simulated",
                "file": "sim.evalset.json",
                "eval_set_id": "sim",
                "eval_id": "simulated",
                "status": "passed",
                "runs": [
                    {"run": 1, "status": "passed", "invocations": [{"user": "Weather in Paris?", "actual": actual}]}
                ],
            }
        ],
    }
    write_json(repo / "recording.json", recording)
    strict = cli_in_process("run", "sim.evalset.json", "--runner", "recorded", "--recorded", "recording.json", cwd=repo)
    assert strict.returncode == 1, strict.stdout
    case = _results(repo)["cases"][0]
    assert case["status"] == "not_evaluated"
    response = next(m for m in case["metrics"] if m["name"] == "response_match_score")
    assert response["status"] == "not_evaluated" and "conversation_scenario" in response["reason"]
    assert next(m for m in case["metrics"] if m["name"] == "trajectory_single_tool_use")["score"] == 1.0
    allowed = cli_in_process(
        "run",
        "sim.evalset.json",
        "--runner",
        "recorded",
        "--recorded",
        "recording.json",
        "--allow-not-evaluated",
        cwd=repo,
    )
    assert allowed.returncode == 0, allowed.stdout
    junit = (repo / "adk-eval-results" / "junit.xml").read_text()
    assert "<skipped" in junit


def test_a_quarantined_failing_case_runs_is_reported_and_does_not_fail_the_gate(
    workspace: Path, history: Path, cli_in_process: Cli
) -> None:
    args = ["run", "weather_agent/weather.evalset.json", "--runner", "recorded", "--recorded", str(history)]
    selector = "weather_agent/*.evalset.json:wrong_city_*"
    result = cli_in_process(*args, "--quarantine", selector, "--pass-rule", "all", cwd=workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    data = _results(workspace)
    assert data["status"] == "passed" and data["run"]["pass_rule"] == "all"
    assert (data["totals"]["quarantined"], data["totals"]["failed"], data["totals"]["passed"]) == (1, 0, 2)
    quarantined = next(c for c in data["cases"] if c.get("quarantined"))
    assert quarantined["eval_id"] == "wrong_city_on_purpose" and quarantined["status"] == "failed"
    assert "1 quarantined (1 not passing)" in result.stdout
    junit = (workspace / "adk-eval-results" / "junit.xml").read_text()
    assert '<skipped message="quarantined (failed): 0 of 2 runs passed; --pass-rule all: every run passes; ' in junit
    assert "tool_trajectory_avg_score: 0 &lt; 1" in junit
    assert (
        "<strong>Quarantined</strong>: 1 · 1 not passing, none fail the gate"
        in (workspace / "adk-eval-results" / "summary.md").read_text()
    )


def _steady(data: dict) -> dict:
    """results.json without what differs between two runs of the same recording (when they ran)."""
    data["run"] = {k: v for k, v in data["run"].items() if k not in ("started_at", "duration_seconds")}
    return data


def test_records_made_as_each_case_finishes_are_those_made_after_the_last_run(
    workspace: Path, history: Path, cli_in_process: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adk_eval_gate.commands import run as run_command

    made_early: list[int] = []
    build = run_command.build_document

    def counted(**kwargs: Any) -> Any:
        early = kwargs["additions"].early
        made_early.append(len(early.made) if early else 0)
        return build(**kwargs)

    monkeypatch.setattr(run_command, "build_document", counted)
    args = ("run", "weather_agent/weather.evalset.json", "--runner", "recorded", "--recorded", str(history))
    first = cli_in_process(*args, "--num-runs", "2", cwd=workspace)
    early = _steady(_results(workspace))
    monkeypatch.setattr(run_command.EarlyRecords, "of", classmethod(lambda cls, *a, **k: None))
    second = cli_in_process(*args, "--num-runs", "2", cwd=workspace)
    after = _steady(_results(workspace))
    assert first.returncode == second.returncode == 1, first.stdout + second.stdout
    assert made_early == [len(early["cases"]), 0] and len(early["cases"]) > 1
    assert [len(case["runs"]) for case in early["cases"]] == [2] * len(early["cases"])
    assert early == after
    assert "inputs" in json.dumps(early["files"]) + json.dumps(early["cases"])  # recorded for each case too
    timings = re.compile(r"\d+(\.\d+)? s\b")
    assert timings.sub("", first.stdout) == timings.sub("", second.stdout)

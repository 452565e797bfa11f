"""End to end: ``adk-eval-gate run --runner recorded`` with judge metrics in test_config.json, the judge being
google-genai pointed at the fake Gemini server (GOOGLE_GEMINI_BASE_URL); the cache, the shared rate limit,
429s, a judge that keeps failing, and no credentials at all.

The gate runs in this process (``cli_in_process``: a process per run would import the gate, ADK and google-genai
again each time), except for the real agent's runs: the gate as a real process, its agents in its worker processes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.adk_history import shared_adk_history
from tests.conftest import EXAMPLES, run_cli, validate_results, write_json
from tests.fakes.gemini_server import FakeGemini, Reply, SeenRequest
from tests.judge.helpers import API_KEY, gemini, rubric_answer, v2_answer

__all__ = ["gemini"]
pytestmark = pytest.mark.slow
EVALSET = "weather_agent/weather.evalset.json"
RUBRIC = {"concise": "The answer states the weather in one sentence."}


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_adk_history(tmp_path_factory, runs=1)


def config(num_samples: int = 3, parallelism_limit: int = 1) -> dict[str, Any]:
    options = {"judge_model": "gemini-2.5-flash", "num_samples": num_samples, "parallelism_limit": parallelism_limit}
    return {
        "criteria": {
            "tool_trajectory_avg_score": 1.0,
            "final_response_match_v2": {"threshold": 0.5, "judge_model_options": options},
            "rubric_based_final_response_quality_v1": {
                "threshold": 0.5,
                "judge_model_options": options,
                "rubrics": [{"rubric_id": "concise", "rubric_content": {"text_property": RUBRIC["concise"]}}],
            },
        }
    }


@pytest.fixture
def workspace(repo: Path) -> Path:
    shutil.copytree(
        EXAMPLES / "weather_agent", repo / "weather_agent", ignore=shutil.ignore_patterns("__pycache__", ".adk")
    )
    write_json(repo / "weather_agent" / "test_config.json", config())
    return repo


def judge_script(request: SeenRequest) -> str | Reply:
    """The Sydney case (its expected answer names Melbourne on purpose) is invalid and not concise."""
    if "is_the_agent_response_valid" in request.prompt:
        return v2_answer("invalid" if "Melbourne" in request.prompt else "valid")
    return rubric_answer({"concise": "no" if "Sydney" in request.prompt else "yes"}, RUBRIC)


Cli = Callable[..., Any]  # run_cli, or the cli_in_process fixture


def run(
    cli: Cli, workspace: Path, gemini: FakeGemini, *args: str, key: bool = True, recorded: bool = True
) -> tuple[Any, dict[str, Any]]:
    """``cli`` runs the gate with the judge pointed at ``gemini``."""
    env = {"GOOGLE_GEMINI_BASE_URL": gemini.url}
    if key:
        env["GOOGLE_API_KEY"] = API_KEY
    runner = ["--runner", "recorded", "--recorded", str(history_dir(workspace))] if recorded else []
    result = cli("run", *args, *runner, cwd=workspace, env=env)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    path = workspace / "adk-eval-results" / "results.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    if data:
        validate_results(data)
    return result, data


def history_dir(workspace: Path) -> Path:
    return workspace / "history"


@pytest.fixture(autouse=True)
def recorded(workspace: Path, history: Path) -> None:
    shutil.copytree(history, history_dir(workspace))


def metric(data: dict[str, Any], case: str, name: str) -> dict[str, Any]:
    found = next(c for c in data["cases"] if c["eval_id"] == case)
    return next(m for m in found["metrics"] if m["name"] == name)


def test_judge_metrics_score_every_case(workspace: Path, gemini: FakeGemini, cli_in_process: Cli) -> None:
    gemini.script = judge_script
    result, data = run(cli_in_process, workspace, gemini, EVALSET)
    assert result.returncode == 1, result.stdout + result.stderr  # the wrong city fails on purpose
    assert API_KEY not in result.stdout + result.stderr
    for case, expected in (("paris_today", 1.0), ("two_cities", 1.0), ("wrong_city_on_purpose", 0.0)):
        for name in ("final_response_match_v2", "rubric_based_final_response_quality_v1"):
            found = metric(data, case, name)
            assert (found["score"], found["kind"]) == (expected, "judge"), (case, name, found)
            assert found["status"] == ("passed" if expected else "failed")
    assert metric(data, "two_cities", "final_response_match_v2")["invocation_scores"] == [[1.0, 1.0]]
    assert gemini.count == 4 * 3 * 2  # 4 invocations x 3 samples x 2 metrics
    assert data["judge"] == {
        "calls": 24,
        "cached": 0,
        "failed": 0,
        "input_tokens": sum(max(1, len(r.prompt) // 4) for r in gemini.requests),
        "output_tokens": data["judge"]["output_tokens"],
        "implausible_counts": 0,
    }
    assert data["judge"]["output_tokens"] > 0
    assert "LLM judge: 24 calls, 0 cached, 0 failed, 0 retries" in result.stdout
    assert all(r.api_key == API_KEY for r in gemini.requests)


def test_a_second_identical_run_makes_no_judge_call(workspace: Path, gemini: FakeGemini, cli_in_process: Cli) -> None:
    gemini.script = judge_script
    cache = workspace / ".judge-cache"
    _, first = run(cli_in_process, workspace, gemini, EVALSET, "--cache-dir", str(cache))
    assert gemini.count == 24
    result, second = run(cli_in_process, workspace, gemini, EVALSET, "--cache-dir", str(cache))
    assert gemini.count == 24  # nothing new reached the server
    assert second["judge"]["calls"] == 0 and second["judge"]["cached"] == 24
    assert [c["metrics"] for c in second["cases"]] == [c["metrics"] for c in first["cases"]]
    assert "LLM judge: 0 calls, 24 cached" in result.stdout


def test_a_rerun_of_a_tool_calling_agent_is_answered_from_the_cache(workspace: Path, gemini: FakeGemini) -> None:
    """The agent runs twice for real, so its tool calls get new ids (ADK's adk-<uuid>): the judge never sees them."""
    gemini.script = judge_script
    cache = workspace / ".judge-cache"
    run(run_cli, workspace, gemini, EVALSET, "--cache-dir", str(cache), recorded=False)
    assert gemini.count == 24
    assert not any("adk-" in request.prompt for request in gemini.requests)
    _, second = run(run_cli, workspace, gemini, EVALSET, "--cache-dir", str(cache), recorded=False)
    assert gemini.count == 24 and second["judge"]["calls"] == 0


def test_judge_parallelism_caps_requests_in_flight(workspace: Path, gemini: FakeGemini, cli_in_process: Cli) -> None:
    write_json(workspace / "weather_agent" / "test_config.json", config(num_samples=5, parallelism_limit=5))
    gemini.script = lambda request: Reply(text=str(judge_script(request)), delay=0.1)
    result, data = run(cli_in_process, workspace, gemini, EVALSET, "--judge-parallelism", "4")
    assert result.returncode == 1
    assert gemini.count == 4 * 5 * 2
    assert gemini.max_in_flight == 4
    assert metric(data, "paris_today", "final_response_match_v2")["score"] == 1.0


def test_429_on_every_third_request_still_scores_every_metric(
    workspace: Path, gemini: FakeGemini, cli_in_process: Cli
) -> None:
    gemini.script = judge_script
    gemini.error_every(3, 429, retry_after="0")
    result, data = run(cli_in_process, workspace, gemini, EVALSET)
    assert result.returncode == 1
    statuses = {m["status"] for c in data["cases"] for m in c["metrics"] if m.get("kind") == "judge"}
    assert statuses == {"passed", "failed"}  # nothing not_evaluated
    assert metric(data, "wrong_city_on_purpose", "final_response_match_v2")["score"] == 0.0
    answered = sum(1 for r in gemini.requests if r.number % 3)
    assert answered == 24
    assert data["judge"]["calls"] == gemini.count > 24


def test_a_judge_outage_is_an_infrastructure_error_with_the_reason(
    workspace: Path, gemini: FakeGemini, cli_in_process: Cli
) -> None:
    gemini.script = lambda request: Reply.error(500, retry_after="0")
    result, data = run(cli_in_process, workspace, gemini, EVALSET)
    assert result.returncode == 1
    for case in data["cases"]:
        for name in ("final_response_match_v2", "rubric_based_final_response_quality_v1"):
            found = metric(data, case["eval_id"], name)
            assert found["status"] == "not_evaluated" and found["score"] is None
            assert "judge gemini-2.5-flash failed after 5 tries: HTTP 500 INTERNAL" in found["reason"]
        assert metric(data, case["eval_id"], "tool_trajectory_avg_score")["score"] is not None
    assert {c["eval_id"]: (c["status"], c.get("error_kind")) for c in data["cases"]} == {
        "paris_today": ("error", "infrastructure"),  # not a failure of the agent: counted apart
        "two_cities": ("error", "infrastructure"),
        "wrong_city_on_purpose": ("failed", None),  # its trajectory fails whatever the judge says
    }
    assert data["status"] == "error" and data["totals"]["infrastructure_errors"] == 2
    assert "2 errors (2 infrastructure)" in result.stdout
    # 24 questions would take 120 requests; after 3 failures in a row (at most 2 more were under way) it stops
    assert 15 <= gemini.count <= 25
    assert data["judge"]["failed"] >= 3
    assert "no more judge calls after" in result.stdout + json.dumps(data)


def test_a_spent_quota_leaves_the_judged_metrics_not_evaluated_after_one_calls_retries(
    workspace: Path, gemini: FakeGemini, cli_in_process: Cli
) -> None:
    gemini.script = lambda request: Reply.error(429, retry_after="0")
    result, data = run(cli_in_process, workspace, gemini, EVALSET, "--judge-parallelism", "2")
    assert result.returncode == 1
    # 3 cases x 3 samples x 2 metrics: one call's 10 tries, and the first try of the other call under way
    assert gemini.count <= 10 + 1
    reasons = []
    for case in data["cases"]:
        for name in ("final_response_match_v2", "rubric_based_final_response_quality_v1"):
            found = metric(data, case["eval_id"], name)
            assert found["status"] == "not_evaluated" and found["score"] is None
            reasons.append(found["reason"])
    assert any("the quota of gemini-2.5-flash (gemini) is spent for this run" in reason for reason in reasons)
    assert any("later calls to it are not attempted" in reason for reason in reasons)
    assert {c["eval_id"]: c["status"] for c in data["cases"]} == {
        "paris_today": "not_evaluated",  # a spent quota is not an outage
        "two_cities": "not_evaluated",
        "wrong_city_on_purpose": "failed",
    }
    assert data["totals"]["infrastructure_errors"] == 0


@pytest.mark.parametrize(("allow", "code"), [(False, 1), (True, 0)])
def test_without_credentials_judge_metrics_are_not_evaluated(
    workspace: Path, gemini: FakeGemini, cli_in_process: Cli, allow: bool, code: int
) -> None:
    args = [f"{EVALSET}:paris_today,two_cities"] + (["--allow-not-evaluated"] if allow else [])
    result, data = run(cli_in_process, workspace, gemini, *args, key=False)
    assert result.returncode == code, result.stdout + result.stderr
    assert gemini.count == 0
    found = metric(data, "paris_today", "final_response_match_v2")
    assert found["status"] == "not_evaluated"
    assert "set GOOGLE_API_KEY or GEMINI_API_KEY" in found["reason"]
    assert metric(data, "paris_today", "tool_trajectory_avg_score")["status"] == "passed"  # still runs
    assert "final_response_match_v2, rubric_based_final_response_quality_v1 will not be evaluated" in result.stdout
    assert data["totals"]["not_evaluated"] == 2


def test_a_baseline_judged_by_another_model_is_said_and_its_judge_drops_are_not_regressions(
    workspace: Path, gemini: FakeGemini, cli_in_process: Cli
) -> None:
    gemini.script = judge_script
    _, head = run(cli_in_process, workspace, gemini, EVALSET)
    judged = {"model": "gemini-2.5-flash", "sampling": "3 samples", "provider": "gemini"}
    assert head["run"]["judges"]["final_response_match_v2"] == judged
    base = json.loads(json.dumps(head))  # the base branch: judged by another model, which liked every answer
    base["run"]["judges"]["final_response_match_v2"]["model"] = "gemini-2.5-pro"
    for case in base["cases"]:
        for found in case["metrics"]:
            if found["name"] == "final_response_match_v2":
                found.update(score=1.0, run_scores=[1.0], status="passed")
    write_json(workspace / "base.json", base)

    result, data = run(cli_in_process, workspace, gemini, EVALSET, "--baseline", "base.json", "--fail-on-regression")
    line = (
        "judge model changed for final_response_match_v2: gemini-2.5-pro -> gemini-2.5-flash, "
        "judge scores are not comparable"
    )
    assert [d["message"] for d in data["comparison"]["differences"]] == [line]
    assert line in result.stdout
    drops = [c for c in data["comparison"]["changes"] if c["kind"] == "regressed"]
    assert [(c["metric"], c["comparable"]) for c in drops] == [("final_response_match_v2", False)]
    assert data["comparison"]["regressions"] == 0 and data["comparison"]["incomparable_regressions"] == 1
    summary = (workspace / "adk-eval-results" / "summary.md").read_text()
    assert "judge model changed for final\\_response\\_match\\_v2" in summary and "not comparable" in summary
    strict = run(cli_in_process, workspace, gemini, EVALSET, "--baseline", "base.json", "--strict-comparison")[1]
    assert strict["comparison"]["regressions"] == 1 and strict["run"]["strict_comparison"] is True

"""End to end: ``adk-eval-gate run --runner recorded`` on the example agent's turns as ``adk eval`` recorded them,
with ``safety_v1`` and ``multi_turn_task_success_v1`` in test_config.json: with a Google Cloud project they go to
Google's evaluation service (the fake one, through ``GOOGLE_VERTEX_BASE_URL``), every output says so, the API key
never shows, and a baseline the gate's judge computed is not compared with them; without a project the gate's
judge computes them and the log says why."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.adk_history import shared_adk_history
from tests.conftest import EXAMPLES, validate_results, write_json
from tests.fakes.agent_platform_server import API_KEY, Answer, FakeAgentPlatform, SeenRequest, verdict
from tests.judge.platform_helpers import platform

__all__ = ["platform"]
pytestmark = pytest.mark.slow
EVALSET = "weather_agent/weather.evalset.json"
CONFIG = {"criteria": {"tool_trajectory_avg_score": 1.0, "safety_v1": 0.5, "multi_turn_task_success_v1": 0.5}}
Cli = Callable[..., Any]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_adk_history(tmp_path_factory, runs=1)


@pytest.fixture
def workspace(repo: Path, history: Path) -> Path:
    shutil.copytree(
        EXAMPLES / "weather_agent", repo / "weather_agent", ignore=shutil.ignore_patterns("__pycache__", ".adk")
    )
    write_json(repo / "weather_agent" / "test_config.json", CONFIG)
    shutil.copytree(history, repo / "history")
    return repo


HOSTILE = f"\n::error::forged <b>markup</b> \ud800 echoing {API_KEY}"


def service_script(request: SeenRequest) -> Answer:
    """Every reply is safe but the Sydney one (the case whose expected answer names Melbourne on purpose), whose
    explanation a hostile service filled with a workflow command, markup, a lone surrogate and the API key; the
    task succeeded unless the agent was asked about Sydney."""
    sydney = "Sydney" in json.dumps(request.body)
    if request.metric == "safety_v1":
        return Answer(score=0.0, explanation=HOSTILE) if sydney else Answer(score=1.0, explanation="harmless")
    return Answer(score=0.0 if sydney else 1.0, verdicts=[verdict("the user got the weather asked for", not sydney)])


def run(cli: Cli, workspace: Path, env: dict[str, str], *args: str) -> tuple[Any, dict[str, Any]]:
    result = cli("run", EVALSET, "--runner", "recorded", "--recorded", "history", *args, cwd=workspace, env=env)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    data = json.loads((workspace / "adk-eval-results" / "results.json").read_text())
    validate_results(data)
    return result, data


def metrics_of(data: dict[str, Any], name: str) -> dict[str, dict[str, Any]]:
    return {case["eval_id"]: next(m for m in case["metrics"] if m["name"] == name) for case in data["cases"]}


def project(platform: FakeAgentPlatform) -> dict[str, str]:
    return {
        "GOOGLE_CLOUD_PROJECT": platform.project,
        "GOOGLE_API_KEY": API_KEY,
        "GOOGLE_VERTEX_BASE_URL": f"{platform.url}/",
        "STORAGE_EMULATOR_HOST": platform.url,
    }


def test_with_a_project_the_service_computes_them_and_every_output_says_so(
    workspace: Path, platform: FakeAgentPlatform, cli_in_process: Cli
) -> None:
    platform.script = service_script
    result, data = run(cli_in_process, workspace, project(platform))
    assert result.returncode == 1, result.stdout  # the wrong city fails on purpose
    assert platform.schema_errors == [] and {r.api_key for r in platform.requests} == {API_KEY}
    turns = sum(len(case["runs"][0]["invocations"]) for case in data["cases"])
    assert [r.metric for r in platform.requests].count("safety_v1") == turns
    assert [r.metric for r in platform.requests].count("multi_turn_task_success_v1") == len(data["cases"])
    safety, success = metrics_of(data, "safety_v1"), metrics_of(data, "multi_turn_task_success_v1")
    assert {case: m["score"] for case, m in success.items()} == {
        "paris_today": 1.0,
        "two_cities": 1.0,
        "wrong_city_on_purpose": 0.0,
    }
    assert {case: m["score"] for case, m in safety.items()} == {
        "paris_today": 1.0,
        "two_cities": 1.0,
        "wrong_city_on_purpose": 0.0,
    }
    assert {m["computed_by"] for m in [*safety.values(), *success.values()]} == {"agent-platform"}
    assert data["run"]["judges"]["safety_v1"]["computed_by"] == "agent-platform"
    assert data["judge"] is None  # no judge was needed
    assert (
        "safety_v1, multi_turn_task_success_v1: computed by Google's evaluation service (API key (express mode) at "
        in result.stdout
    )
    out = workspace / "adk-eval-results"
    assert "safety\\_<wbr>v1 (evaluation service)" in (out / "summary.md").read_text()
    assert 'value="agent-platform"' in (out / "junit.xml").read_text()
    assert "(evaluation service)" in (out / "report.html").read_text()
    for text in [result.stdout, result.stderr, *(path.read_text() for path in out.iterdir() if path.is_file())]:
        assert API_KEY not in text
    assert "forged" in result.stdout and not any(
        line.lstrip().startswith("::error::forged") for line in result.stdout.splitlines()
    )
    wrong = next(case for case in data["cases"] if case["eval_id"] == "wrong_city_on_purpose")
    explanation = next(m for m in wrong["runs"][0]["metrics"] if m["name"] == "safety_v1")["details"]["explanations"]
    assert explanation == ["\n::error::forged <b>markup</b> \ufffd echoing ***"]


def test_a_baseline_the_gates_judge_computed_is_said_and_its_drops_are_not_regressions(
    workspace: Path, platform: FakeAgentPlatform, cli_in_process: Cli
) -> None:
    platform.script = service_script
    _, head = run(cli_in_process, workspace, project(platform))
    base = json.loads(json.dumps(head))  # an earlier run: the gate's judge, which rated the Sydney case higher
    del base["run"]["judges"]["multi_turn_task_success_v1"]["computed_by"]
    base["run"]["judges"]["multi_turn_task_success_v1"].update(model="gemini-2.5-flash", sampling="5 samples")
    for case in base["cases"]:
        for found in case["metrics"]:
            found.pop("computed_by", None)
            if found["name"] == "multi_turn_task_success_v1":
                found.update(score=1.0, run_scores=[1.0], status="passed")
    write_json(workspace / "base.json", base)
    result, data = run(cli_in_process, workspace, project(platform), "--baseline", "base.json", "--fail-on-regression")
    line = (
        "multi_turn_task_success_v1 was computed by the gate's own judge on the base branch and by Google's "
        "evaluation service here: its scores are not comparable"
    )
    assert [d["message"] for d in data["comparison"]["differences"]] == [line] and line in result.stdout
    drops = [(c["metric"], c["comparable"]) for c in data["comparison"]["changes"] if c["kind"] == "regressed"]
    assert drops == [("multi_turn_task_success_v1", False)]
    assert data["comparison"]["regressions"] == 0 and data["comparison"]["incomparable_regressions"] == 1


def test_without_a_project_the_gates_judge_computes_them_and_the_service_is_never_asked(
    workspace: Path, platform: FakeAgentPlatform, cli_in_process: Cli
) -> None:
    result, data = run(cli_in_process, workspace, {"STORAGE_EMULATOR_HOST": platform.url}, "--allow-not-evaluated")
    assert platform.requests == []
    assert (
        "safety_v1, multi_turn_task_success_v1: computed by the gate's own judge, not by Google's evaluation service "
        "as ADK does: no Google Cloud project is configured (GOOGLE_CLOUD_PROJECT)"
    ) in result.stdout
    assert {m["computed_by"] for m in metrics_of(data, "safety_v1").values()} == {"gate-judge"}
    assert data["run"]["judges"]["safety_v1"]["computed_by"] == "gate-judge"
    assert "safety\\_<wbr>v1 (gate's judge)" in (workspace / "adk-eval-results" / "summary.md").read_text()

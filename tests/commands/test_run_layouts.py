"""``adk-eval-gate run`` with no options on the layouts real ADK repositories have: adk-samples (agents beside an
``eval/`` folder named by ``test_eval.py``), agents-cli's scaffold before 0.3 (``app/``, ``tests/eval/evalsets``
and ``eval_config.json``), and ADK's documentation's pytest layout. Each real agent is replaced by one that replays
its own eval files (``tests/inputs/layouts.py``): a case answered by another agent fails."""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.runners.adk import EMPTY_APP_NAME
from tests.conftest import validate_results
from tests.fakes.gemini_server import FakeGemini, SeenRequest
from tests.inputs.layouts import adk_samples, copy_layout, write_replay_agent
from tests.judge.helpers import API_KEY, gemini, rubric_answer
from tests.runners.scripted import SCRIPT_AGENT, turn, write_agent, write_evalset

__all__ = ["gemini"]
pytestmark = pytest.mark.slow

Cli = Callable[..., subprocess.CompletedProcess[str]]
AGENTS = "python/agents"
TRAVEL = f"{AGENTS}/travel-concierge"


def _results(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
    validate_results(data)
    return data


def _with_app_names(repo: Path) -> None:
    """travel-concierge's eval files give ``session_input.app_name: ""``, which ADK 2.13's Runner refuses (its own
    AgentEvaluator fails them so): the name its agent has, as a team updating to ADK 2.13 writes it."""
    for path in (repo / TRAVEL / "eval" / "data").glob("*.test.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["eval_cases"]:
            case["session_input"]["app_name"] = "travel_concierge"
        path.write_text(json.dumps(data), encoding="utf-8")


def test_adk_samples_run_each_case_with_its_own_agent_runs_and_criteria(tmp_path: Path, cli_in_process: Cli) -> None:
    repo = adk_samples(tmp_path / "adk-samples")
    _with_app_names(repo)
    result = cli_in_process("run", cwd=repo)
    assert result.returncode == 0, result.stdout
    data = _results(repo)
    files = {file["path"]: file for file in data["files"]}
    expected = {
        f"{AGENTS}/customer-service/eval/eval_data/simple.test.json": ("customer-service", "customer_service", 1, 31),
        f"{AGENTS}/customer-service/eval/eval_data/full_conversation.test.json": (
            "customer-service",
            "customer_service",
            1,
            40,
        ),
        f"{TRAVEL}/eval/data/inspire.test.json": ("travel-concierge", "travel_concierge", 4, 32),
        f"{TRAVEL}/eval/data/pretrip.test.json": ("travel-concierge", "travel_concierge", 4, 42),
        f"{TRAVEL}/eval/data/intrip.test.json": ("travel-concierge", "travel_concierge", 4, 52),
        f"{AGENTS}/llm-auditor/eval/data/blueberries.test.json": ("llm-auditor", "llm_auditor", 1, 31),
        f"{AGENTS}/llm-auditor/eval/data/ice_cream_sandwich.test.json": ("llm-auditor", "llm_auditor", 1, 31),
    }
    assert sorted(files) == sorted(expected)
    for path, (project, package, runs, line) in expected.items():
        folder = path.rsplit("/", 1)[0]
        assert files[path]["config"] == f"{folder}/test_config.json (folder)"
        assert files[path]["agent"] == (
            f"{AGENTS}/{project}/{package} (AgentEvaluator.evaluate at {AGENTS}/{project}/eval/test_eval.py:{line}, "
            f"{runs} run{'s' if runs > 1 else ''})"
        )
        assert files[path]["num_runs"] == runs
    cases = {case["file"]: case for case in data["cases"]}
    assert all(case["status"] == "passed" for case in cases.values()), [c["status"] for c in cases.values()]
    for path, (_, _, runs, _) in expected.items():
        assert len(cases[path]["runs"]) == runs
    thresholds = {m["name"]: m.get("threshold") for m in cases[f"{TRAVEL}/eval/data/inspire.test.json"]["metrics"]}
    # travel-concierge's own test_config.json, not ADK's defaults (1.0 and 0.8)
    assert thresholds["tool_trajectory_avg_score"] == thresholds["response_match_score"] == 0.1
    assert f"{TRAVEL}/eval/data/inspire.test.json: 1 case, criteria from {TRAVEL}/eval/data/test_config.json" in (
        result.stdout
    )


def test_an_empty_app_name_fails_as_in_adk_and_says_what_to_change(tmp_path: Path, cli_in_process: Cli) -> None:
    """adk-samples' travel-concierge files as they are: ADK 2.13's own eval fails them (its Runner refuses an empty
    app name); the gate runs each case its 4 times and says what to change in the file, not that the agent raised."""
    repo = adk_samples(tmp_path / "adk-samples")
    result = cli_in_process("run", TRAVEL, cwd=repo)
    assert result.returncode == 1, result.stdout
    cases = _results(repo)["cases"]
    assert len(cases) == 3
    for case in cases:
        assert case["status"] == "error" and case["error"] == EMPTY_APP_NAME
        assert len(case["runs"]) == 4


def test_an_agents_cli_scaffold_before_0_3_needs_no_options(
    tmp_path: Path, cli_in_process: Cli, gemini: FakeGemini
) -> None:
    """app/ is the agent (pyproject.toml's [tool.agent-starter-pack] agent_directory), tests/eval/eval_config.json
    the criteria: its rubric metric is judged by the Gemini judge it names, here the fake Gemini server."""
    repo = copy_layout("agent_starter_pack", tmp_path / "my-agent")
    evalset = repo / "tests" / "eval" / "evalsets" / "basic.evalset.json"
    write_replay_agent(repo / "app", name="root_agent", eval_files=[evalset])
    texts = {
        "relevance": "The response directly addresses the user's query.",
        "helpfulness": "The response is helpful and provides useful information.",
    }

    def judge(request: SeenRequest) -> str:
        return rubric_answer({"relevance": "yes", "helpfulness": "yes"}, texts)

    gemini.script = judge
    result = cli_in_process("run", cwd=repo, env={"GOOGLE_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url})
    assert result.returncode == 0, result.stdout
    data = _results(repo)
    [file] = data["files"]
    assert file["config"] == "tests/eval/eval_config.json (parent)"
    assert file["agent"] == "app (agent_directory of pyproject.toml)"
    assert {request.model for request in gemini.requests} == {"gemini-3-flash-preview"}
    for case in data["cases"]:
        [rubric] = [m for m in case["metrics"] if m["name"] == "rubric_based_final_response_quality_v1"]
        assert (rubric["score"], rubric["threshold"], case["status"]) == (1.0, 0.8, "passed")


def test_adks_documentation_pytest_layout_needs_no_options(tmp_path: Path, cli_in_process: Cli) -> None:
    """``AgentEvaluator.evaluate("weather_agent", "tests/eval_data", num_runs=2)``, the path relative to the project,
    as docs/pytest.md and ADK's documentation write it."""
    repo = tmp_path / "project"
    (repo / ".git").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "weather"\nversion = "0.1.0"\n', encoding="utf-8")
    data = repo / "tests" / "eval_data"
    data.mkdir(parents=True)
    legacy = [{"query": "What is the weather in Paris?", "expected_tool_use": [], "reference": "Sunny in Paris."}]
    (data / "paris.test.json").write_text(json.dumps(legacy), encoding="utf-8")
    (data / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}), encoding="utf-8")
    (repo / "tests" / "test_agent.py").write_text(
        textwrap.dedent(
            """
            import asyncio

            from google.adk.evaluation.agent_evaluator import AgentEvaluator


            def test_weather_agent():
                asyncio.run(AgentEvaluator.evaluate("weather_agent", "tests/eval_data", num_runs=2))
            """
        ),
        encoding="utf-8",
    )
    write_replay_agent(repo / "weather_agent", name="weather_agent", eval_files=[data / "paris.test.json"])
    (repo / "helpers" / "other_agent").mkdir(parents=True)  # a second package: the only-agent rule would not do
    write_replay_agent(repo / "helpers" / "other_agent", name="other_agent", eval_files=[])
    checked = cli_in_process("validate", cwd=repo)
    assert checked.returncode == 0, checked.stdout
    assert (
        "ok   tests/eval_data/paris.test.json: 1 case (legacy_query_list), criteria from tests/eval_data/"
        "test_config.json (folder), agent weather_agent (AgentEvaluator.evaluate at tests/test_agent.py:8, 2 runs)"
    ) in checked.stdout
    result = cli_in_process("run", cwd=repo)
    assert result.returncode == 0, result.stdout
    [case] = _results(repo)["cases"]
    assert case["status"] == "passed" and len(case["runs"]) == 2
    assert "agent weather_agent (AgentEvaluator.evaluate at tests/test_agent.py:8, 2 runs)" in result.stdout


HELPER_AGENT = """

class HelperModel(ScriptModel):
    async def generate_content_async(self, llm_request, stream=False):
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="the helper answers")]))


helper = LlmAgent(name="helper", model=HelperModel(model="helper"), instruction="Answer.")
root_agent = LlmAgent(name="trip", model=ScriptModel(model="script"), instruction="Route.", sub_agents=[helper])
"""

SYNC_TEST = """
from google.adk.evaluation.agent_evaluator import AgentEvaluator


def test_helper():
    AgentEvaluator.evaluate(
        "bots.trip", "tests/integration/data/helper.test.json", num_runs=3, agent_name="helper"
    )


def test_computed():
    AgentEvaluator.evaluate("bots." + NAME, "tests/integration/data/helper.test.json")
"""


def test_a_sub_agent_named_by_a_sync_test_under_pytest_s_rootdir(tmp_path: Path, cli_in_process: Cli) -> None:
    """ADK's tests/integration's layout: the path is relative to the rootdir (pyproject.toml's pytest table), not to
    the folder of conftest.py; agent_name is the agent run; the sync test that never awaits and the call that cannot
    be read are said once each; validate shows the file's agent and runs beside its problem."""
    repo = tmp_path / "project"
    (repo / ".git").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n', encoding="utf-8")
    write_agent(repo / "bots" / "trip", SCRIPT_AGENT + HELPER_AGENT)
    (repo / "tests" / "integration" / "data").mkdir(parents=True)
    (repo / "tests" / "integration" / "conftest.py").write_text("", encoding="utf-8")
    (repo / "tests" / "integration" / "test_helper.py").write_text(SYNC_TEST, encoding="utf-8")
    data = repo / "tests" / "integration" / "data"
    write_evalset(data / "helper.test.json", {"a": [turn("hello", answer="the helper answers")]})
    (data / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}), encoding="utf-8")
    described = (
        "tests/integration/data/helper.test.json: 1 case (evalset), criteria from tests/integration/data/"
        "test_config.json (folder), agent helper of bots.trip (AgentEvaluator.evaluate at "
        "tests/integration/test_helper.py:6, 3 runs)"
    )
    unawaited = "tests/integration/test_helper.py:6: a sync test (def, not async def) makes 2 AgentEvaluator calls"
    skipped = "note tests/integration/test_helper.py:12: AgentEvaluator.evaluate(...) computes its agent module"
    checked = cli_in_process("validate", cwd=repo)
    assert checked.returncode == 0, checked.stdout
    assert f"ok   {described}" in checked.stdout
    assert checked.stdout.count(unawaited) == 1 and checked.stdout.count(skipped) == 1
    result = cli_in_process("run", cwd=repo)
    assert result.returncode == 0, result.stdout
    assert result.stdout.count(unawaited) == 1 and result.stdout.count(skipped) == 1
    [case] = _results(repo)["cases"]
    assert case["status"] == "passed" and len(case["runs"]) == 3
    config = {"criteria": {"response_match_score": 0.9}, "critera": {}}  # a key ADK ignores
    (data / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    checked = cli_in_process("validate", cwd=repo)
    assert checked.returncode == 2 and f"bad  {described}" in checked.stdout, checked.stdout

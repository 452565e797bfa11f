"""``adk-eval-gate run`` with no options on agents-cli 1.11's own scaffold (``app/``, ``agents-cli-manifest.yaml``,
``tests/eval/datasets/basic-dataset.json``, ``tests/eval/eval_config.yaml`` with its ``custom_response_quality``
file metric and ``agent_turn_count`` inline metric), with a ``prompt_template`` judge and ``general_quality``
added to the config and thresholds in the gate's own key: the three cases run through the agent (a scripted one
where agents-cli's scaffold has its Gemini agent), each metric scored or not evaluated with its reason, never
passed without a score; and the same project through ``validate``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import validate_results
from tests.fakes.agent_platform_server import API_KEY as PLATFORM_KEY
from tests.fakes.agent_platform_server import Answer, FakeAgentPlatform, verdict
from tests.fakes.gemini_server import FakeGemini
from tests.inputs.layouts import copy_layout
from tests.judge.helpers import API_KEY, MarkerScript, gemini
from tests.judge.platform_helpers import platform

__all__ = ["gemini", "platform"]
pytestmark = pytest.mark.slow

Cli = Callable[..., subprocess.CompletedProcess[str]]

SCRIPTED_AGENT = '''
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class Scripted(BaseLlm):
    """Answers the last thing the user said, from what it was told so far."""

    async def generate_content_async(self, llm_request, stream=False):
        said = [p.text for c in llm_request.contents if c.role == "user" for p in c.parts or [] if p.text]
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=f"ANSWER to {said[-1]!r}")]))


root_agent = LlmAgent(name="root_agent", model=Scripted(model="scripted"), instruction="Answer the user.")
'''

ADDED = """\
  - name: helpfulness
    prompt_template: |
      Rate how helpful the agent's response is, from 1 to 5.
      User prompt: {prompt}
      Final response: {response}
      Return JSON: {"score": <1-5>, "explanation": "<reason>"}
    judge_model_sampling_count: 2

adk_eval_gate:
  thresholds:
    agent_turn_count: 1
    helpfulness: 3
"""


def agents_cli_project(tmp_path: Path) -> Path:
    """agents-cli 1.11's scaffold files, a scripted agent in app/, and the config with the judge and general_quality."""
    repo = copy_layout("agents_cli", tmp_path / "my-agent")
    (repo / "app").mkdir()
    (repo / "app" / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (repo / "app" / "agent.py").write_text(SCRIPTED_AGENT, encoding="utf-8")
    config = repo / "tests" / "eval" / "eval_config.yaml"
    text = config.read_text(encoding="utf-8").replace(
        "  - custom_response_quality\n",
        "  - custom_response_quality\n  - agent_turn_count\n  - helpfulness\n  - general_quality\n",
        1,
    )
    config.write_text(text + ADDED, encoding="utf-8")
    return repo


def _results(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
    validate_results(data)
    return data


def test_agents_clis_scaffold_runs_with_no_options_and_says_what_it_could_not_evaluate(
    tmp_path: Path, cli_in_process: Cli, gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge's key is the gate's (its settings' environment) and not the metric code's process: the scaffold's
    response_quality.py makes its own genai.Client(), which finds no key, as on a machine without one."""
    repo = agents_cli_project(tmp_path)
    gemini.script = MarkerScript({"ANSWER to": [json.dumps({"score": 4, "explanation": "helpful"})]}, cycle=True)
    from adk_eval_gate.config import environment

    real = environment.current_environment
    monkeypatch.setattr(environment, "current_environment", lambda: {**real(), "GOOGLE_API_KEY": API_KEY})
    result = cli_in_process("run", cwd=repo, env={"GOOGLE_GEMINI_BASE_URL": gemini.url})
    assert result.returncode == 1, result.stdout
    data = _results(repo)
    [file] = data["files"]
    assert file["format"] == "agent_platform_dataset" and file["cases"] == 3
    assert file["config"] == "tests/eval/eval_config.yaml (parent)"
    assert file["agent"] == "app (agent_directory of agents-cli-manifest.yaml)"
    assert [case["eval_id"] for case in data["cases"]] == ["greeting", "weather_query", "capital_lookup"]
    for case in data["cases"]:
        metrics = {metric["name"]: metric for metric in case["metrics"]}
        turns, judge = metrics["agent_turn_count"], metrics["helpfulness"]
        assert (turns["score"], turns["threshold"], turns["status"]) == (1.0, 1.0, "passed")
        assert (judge["score"], judge["threshold"], judge["status"]) == (4.0, 3.0, "passed")
        quality, general = metrics["custom_response_quality"], metrics["general_quality"]
        assert (quality["score"], quality["status"]) == (None, "not_evaluated")
        assert "CustomFunctionError(evaluate)" in quality["reason"] and "API key" in quality["reason"]
        assert (general["score"], general["status"]) == (None, "not_evaluated")
        assert "which needs a Google Cloud project (GOOGLE_CLOUD_PROJECT" in general["reason"]
        assert case["status"] == "not_evaluated"
        [turn] = case["runs"][0]["invocations"]
        assert "ANSWER to" in json.dumps(turn)
    prompts = gemini.prompts()
    assert len(prompts) == 6 and all(prompt.startswith("Rate how helpful") for prompt in prompts)
    assert any("User prompt: What is the capital of France?\nFinal response: ANSWER to" in p for p in prompts)
    assert not any("{prompt}" in prompt or "{response}" in prompt for prompt in prompts)
    summary = (repo / "adk-eval-results" / "summary.md").read_text(encoding="utf-8")
    assert "general_quality" in summary and "not evaluated" in summary
    junit = (repo / "adk-eval-results" / "junit.xml").read_text(encoding="utf-8")
    assert junit.count("<testcase") == 3 and (repo / "adk-eval-results" / "report.html").is_file()


def test_validate_lists_the_dataset_its_config_and_agent(tmp_path: Path, cli_in_process: Cli) -> None:
    repo = agents_cli_project(tmp_path)
    result = cli_in_process("validate", cwd=repo)
    assert result.returncode == 0, result.stdout
    assert (
        "ok   tests/eval/datasets/basic-dataset.json: 3 cases (agent_platform_dataset), criteria from "
        "tests/eval/eval_config.yaml (parent), agent app (agent_directory of agents-cli-manifest.yaml)"
    ) in result.stdout


def test_with_a_project_general_quality_is_the_evaluation_services_score(
    tmp_path: Path, cli_in_process: Cli, gemini: FakeGemini, platform: FakeAgentPlatform
) -> None:
    """The same project with a Google Cloud project configured: general_quality goes to Google's evaluation service
    (the fake one), each case's trace as the SDK sends it, and the API key never shows."""
    repo = agents_cli_project(tmp_path)
    gemini.script = MarkerScript({"ANSWER to": [json.dumps({"score": 4})]}, cycle=True)
    platform.script = lambda request: Answer(score=0.9, verdicts=[verdict("The response is relevant.", True)])
    env = {
        "GOOGLE_GEMINI_BASE_URL": gemini.url,
        "GOOGLE_CLOUD_PROJECT": platform.project,
        "GOOGLE_VERTEX_BASE_URL": f"{platform.url}/",
        "STORAGE_EMULATOR_HOST": platform.url,
        "GOOGLE_API_KEY": PLATFORM_KEY,
    }
    result = cli_in_process("run", cwd=repo, env=env)
    data = _results(repo)
    assert platform.schema_errors == [] and len(platform.requests) == 3
    assert {request.metric for request in platform.requests} == {"general_quality_v2"}
    for case in data["cases"]:
        general = next(metric for metric in case["metrics"] if metric["name"] == "general_quality")
        assert (general["score"], general["status"], general["computed_by"]) == (0.9, "informational", "agent-platform")
    turns = platform.requests[0].body["instance"]["agent_eval_data"]["turns"]
    assert [event["author"] for event in turns[0]["events"]] == ["root_agent"]
    out = repo / "adk-eval-results"
    for text in [result.stdout, *(path.read_text() for path in out.iterdir() if path.is_file())]:
        assert PLATFORM_KEY not in text

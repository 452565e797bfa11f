"""Agent Platform dataset cases through both runners that run agents: a continued conversation's earlier events
(and their state deltas) are in the session before the agent answers, in process as over ``adk api_server`` (which
serves agents written with ADK for Go or Java too); a case with responses is scored as recorded, without the agent;
agents-cli's code metric sees the trace agents-cli would have written."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.runners.api_server import ApiServer

pytestmark = pytest.mark.slow

Cli = Callable[..., subprocess.CompletedProcess[str]]

AGENT = '''
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class Remembering(BaseLlm):
    """Says what it was told so far (as its own turns or the user's), and the city its instruction got from the
    session state."""

    async def generate_content_async(self, llm_request, stream=False):
        said = [f"{c.role}:{p.text}" for c in llm_request.contents for p in c.parts or [] if p.text]
        instruction = llm_request.config.system_instruction or ""
        text = f"SAW {' | '.join(said)} IN {instruction}"
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


root_agent = LlmAgent(name="root_agent", model=Remembering(model="remembering"), instruction="city={city?}")
'''

DATASET = {
    "eval_cases": [
        {
            "eval_case_id": "continued",
            "agent_data": {
                "turns": [
                    {
                        "turn_index": 0,
                        "events": [
                            {
                                "author": "user",
                                "content": {"role": "user", "parts": [{"text": "My name is Ada"}]},
                                "state_delta": {"city": "Oslo"},
                            },
                            {"author": "model", "content": {"role": "model", "parts": [{"text": "Hello Ada"}]}},
                            {"author": "user", "content": {"role": "user", "parts": [{"text": "What is my name?"}]}},
                        ],
                    }
                ]
            },
        },
        {"eval_case_id": "fresh", "prompt": {"role": "user", "parts": [{"text": "Hi"}]}, "city": "none"},
        {
            "eval_case_id": "recorded",
            "prompt": {"role": "user", "parts": [{"text": "Hi"}]},
            "responses": [{"response": {"role": "model", "parts": [{"text": "Recorded answer"}]}}],
        },
    ]
}

CONFIG = """\
metrics_to_run: [events, response]
custom_metrics:
  - name: events
    custom_function: |
      def evaluate(instance):
          turns = (instance.get("agent_data") or {}).get("turns", [])
          return {"score": sum(len(turn.get("events", [])) for turn in turns)}
  - name: response
    custom_function: |
      import json
      def evaluate(instance):
          return {"score": 1, "explanation": json.dumps(instance["response"])}
adk_eval_gate:
  thresholds: {response: 1}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "app").mkdir()
    (repo / "app" / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (repo / "app" / "agent.py").write_text(AGENT, encoding="utf-8")
    (repo / "agents-cli-manifest.yaml").write_text('agent_directory: "app"\n', encoding="utf-8")
    datasets = repo / "tests" / "eval" / "datasets"
    datasets.mkdir(parents=True)
    (datasets / "conversation-dataset.json").write_text(json.dumps(DATASET), encoding="utf-8")
    (repo / "tests" / "eval" / "eval_config.yaml").write_text(CONFIG, encoding="utf-8")
    return repo


@pytest.fixture
def api_server(project: Path) -> Iterator[ApiServer]:
    server = ApiServer(project)
    try:
        server.wait()
        yield server
    finally:
        server.stop()


def _cases(project: Path) -> dict[str, dict[str, Any]]:
    """Per case, its one run's metrics by name."""
    data = json.loads((project / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
    return {case["eval_id"]: {m["name"]: m for m in case["runs"][0]["metrics"]} for case in data["cases"]}


def _said(metric: dict[str, Any]) -> Any:
    return json.loads(metric["details"]["explanation"])


def _check(project: Path) -> None:
    cases = _cases(project)
    continued = _said(cases["continued"]["response"])["parts"][0]["text"]
    assert continued.startswith("SAW user:My name is Ada | model:Hello Ada | user:What is my name? IN city=Oslo\n")
    # "Hello Ada", authored "model" in the dataset, is the agent's own turn (agents-cli makes it the root agent's)
    assert cases["continued"]["events"]["score"] == 4.0  # the three seeded and the answer, as agents-cli merges them
    assert _said(cases["fresh"]["response"])["parts"][0]["text"].startswith("SAW user:Hi IN city=\n")
    assert cases["fresh"]["events"]["score"] == 1.0
    assert _said(cases["recorded"]["response"]) == {"parts": [{"text": "Recorded answer"}], "role": "model"}
    assert cases["recorded"]["events"]["score"] == 0.0


def test_in_process_the_conversation_so_far_and_its_state_are_seeded(project: Path, cli_in_process: Cli) -> None:
    result = cli_in_process("run", cwd=project)
    assert result.returncode == 0, result.stdout
    _check(project)


def test_over_adk_api_server_the_conversation_so_far_and_its_state_are_seeded(
    project: Path, api_server: ApiServer, cli_in_process: Cli
) -> None:
    result = cli_in_process("run", "--runner", "http", "--agent-url", api_server.url, cwd=project)
    assert result.returncode == 0, result.stdout
    _check(project)

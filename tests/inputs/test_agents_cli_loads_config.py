"""agents-cli 1.11 itself still loads an eval_config.yaml that carries the gate's settings: google-agents-cli is
installed from the package registry into a folder of its own, and its own ``load_eval_config`` and
``prepare_eval_metrics`` read the file the gate reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adk_eval_gate.inputs.configs import ConfigSource, load_config
from adk_eval_gate.model import agents_cli_config as acli

pytestmark = pytest.mark.slow

AGENTS_CLI = "google-agents-cli==1.11.0"
# Its eval module imports these besides what the test environment has (the SDK, PyYAML, click, pydantic).
SMALL_DEPENDENCIES = ("backoff", "rich", "markdown-it-py", "mdurl")

CONFIG = """\
metrics_to_run:
  - custom_response_quality
  - agent_turn_count
  - helpfulness
  - general_quality

custom_metrics:
  - name: custom_response_quality
    custom_function_file: response_quality.py
  - name: agent_turn_count
    custom_function: |
      def evaluate(instance):
          turns = (instance.get("agent_data") or {}).get("turns", [])
          return {'score': len(turns)}
  - name: helpfulness
    prompt_template: |
      Rate the response 1-5. Prompt: {prompt}
      Response: {response}
      Return JSON: {"score": <1-5>, "explanation": "<why>"}
    judge_model_sampling_count: 3

adk_eval_gate:
  thresholds:
    agent_turn_count: 1
    helpfulness: 3
    general_quality: 0.7
  budgets:
    max_tokens_per_turn: 20000
"""

LOAD = """\
import json, sys
from google.agents.cli.eval.eval_utils import load_eval_config, prepare_eval_metrics
path = sys.argv[1]
metrics_to_run, pool = load_eval_config(path)
metrics, local, remote = prepare_eval_metrics(path, None)
names = [getattr(metric, "name", metric) for metric in metrics]
turns = next(m for m in metrics if getattr(m, "name", None) == "agent_turn_count")
score = turns.custom_function({"agent_data": {"turns": [{"events": []}]}})
print(json.dumps({"metrics_to_run": metrics_to_run, "pool": sorted(pool), "names": names, "local": local,
                  "remote": remote, "types": [type(m).__name__ for m in metrics], "score": score}))
"""


@pytest.fixture(scope="module")
def agents_cli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("agents_cli")
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), AGENTS_CLI]
    installed = subprocess.run(
        [*command, *SMALL_DEPENDENCIES], capture_output=True, text=True, timeout=600, check=False
    )
    if installed.returncode != 0:
        reason = (installed.stderr or installed.stdout).strip().splitlines()[-1:] or ["no output"]
        if any(word in reason[0] for word in ("No matching distribution", "Could not find", "connection", "resolve")):
            pytest.skip(f"the package registry cannot be reached to install {AGENTS_CLI}: {reason[0]}")
        raise AssertionError(f"pip could not install {AGENTS_CLI}: {installed.stderr}")
    return target


def test_agents_cli_loads_an_eval_config_that_carries_the_gates_settings(agents_cli: Path, tmp_path: Path) -> None:
    folder = tmp_path / "tests" / "eval"
    folder.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    config = folder / "eval_config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    (folder / "response_quality.py").write_text("def evaluate(instance):\n    return {'score': 5}\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(agents_cli), *sys.path])}
    loaded = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(LOAD), str(config)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr
    theirs = json.loads(loaded.stdout.strip().splitlines()[-1])
    ours = load_config(ConfigSource("folder", config), root=tmp_path)
    graded = [metric.name for metric in ours.metrics if metric.definition is not None]
    assert theirs["metrics_to_run"] == graded == theirs["names"]
    assert theirs["pool"] == ["agent_turn_count", "custom_response_quality", "helpfulness"]
    assert theirs["types"] == ["Metric", "Metric", "LLMMetric", "str"] and (theirs["local"], theirs["remote"]) == (2, 0)
    assert theirs["score"] == {"score": 1}
    thresholds = {metric.name: metric.threshold for metric in ours.metrics if metric.definition is not None}
    assert thresholds == {
        "custom_response_quality": None,
        "agent_turn_count": 1,
        "helpfulness": 3,
        "general_quality": 0.7,
    }
    assert isinstance(ours.metrics[3].definition, acli.BuiltInDefinition)

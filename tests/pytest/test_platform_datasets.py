"""``pytest --adk-eval`` on agents-cli's scaffold: its Agent Platform dataset (``tests/eval/datasets/
basic-dataset.json``) is collected and run as ``adk-eval-gate run`` runs it, graded by the ``eval_config.yaml``
above it, whether pytest finds it in a folder or is given it by path."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.commands.test_agents_cli_datasets import SCRIPTED_AGENT
from tests.inputs.layouts import copy_layout
from tests.pytest.test_projects import junit_outcomes, run_pytest

pytestmark = pytest.mark.slow  # pytest as a process, a real ADK agent, a custom metric's process

Cli = Callable[..., subprocess.CompletedProcess[str]]

CONFIG = """\
metrics_to_run: [agent_turn_count]
custom_metrics:
  - name: agent_turn_count
    custom_function: |
      def evaluate(instance):
          turns = (instance.get("agent_data") or {}).get("turns", [])
          return {"score": len(turns)}
adk_eval_gate:
  thresholds:
    agent_turn_count: 1
"""
CASES = ["greeting", "weather_query", "capital_lookup"]


@pytest.fixture
def scaffold(tmp_path: Path) -> Path:
    """agents-cli 1.11's scaffold with a scripted agent in app/ and a config whose one metric needs no service."""
    repo = copy_layout("agents_cli", tmp_path / "my-agent")
    (repo / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (repo / "app").mkdir()
    (repo / "app" / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (repo / "app" / "agent.py").write_text(SCRIPTED_AGENT, encoding="utf-8")
    (repo / "tests" / "eval" / "eval_config.yaml").write_text(CONFIG, encoding="utf-8")
    return repo


def test_pytest_adk_eval_runs_an_agents_cli_dataset_as_run_does(
    scaffold: Path, tmp_path: Path, cli_in_process: Cli
) -> None:
    gate = cli_in_process("run", "--num-runs", "1", cwd=scaffold)
    assert gate.returncode == 0, gate.stdout
    doc = json.loads((scaffold / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
    assert [case["eval_id"] for case in doc["cases"]] == CASES
    junit = tmp_path / "junit.xml"
    done = run_pytest("--adk-eval", "--adk-num-runs", "1", f"--junitxml={junit}", "tests", cwd=scaffold)
    assert done.returncode == 0, done.stdout + done.stderr
    assert junit_outcomes(junit) == {case["eval_id"]: None for case in doc["cases"]}

    dataset = "tests/eval/datasets/basic-dataset.json"
    given = run_pytest("--adk-eval", "--adk-num-runs", "1", "-v", dataset, cwd=scaffold)
    assert given.returncode == 0, given.stdout + given.stderr
    for eval_id in CASES:
        assert f"{dataset}::{eval_id} PASSED" in given.stdout
    assert "eval_set_id" not in given.stdout


def test_a_dataset_without_its_eval_config_is_one_failing_item_that_says_so(scaffold: Path) -> None:
    (scaffold / "tests" / "eval" / "eval_config.yaml").unlink()
    done = run_pytest("--adk-eval", "-rf", "tests", cwd=scaffold)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED tests/eval/datasets/basic-dataset.json::eval-file" in done.stdout
    assert "has no eval_config.yaml beside or above it" in done.stdout

"""The plugin and the AgentEvaluator API on a test project with a real ADK agent (scripted model), as pytest runs.

* ``pytest --adk-eval`` (and with ``-n 2``) gives the verdicts of ``adk-eval-gate run``, one JUnit testcase per
  eval case;
* a test module written for ADK's ``AgentEvaluator`` passes and fails on the same tests, with the same messages,
  after its import line changes;
* without ``--adk-eval`` the plugin imports nothing of the gate's stages, nor google-adk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, junit_schema, run_cli, write_json
from tests.inputs.test_vertex_dataset import write_jsonl
from tests.runners.test_dataset_agent import ROWS

pytestmark = pytest.mark.slow  # pytest and the CLI as processes, a real ADK agent

CONFTEST = """
import json, os, sys

def pytest_sessionfinish(session):
    if os.environ.get("MODULES_OUT"):
        loaded = sorted(m for m in sys.modules if m.startswith(("adk_eval_gate", "google.adk")))
        with open(os.environ["MODULES_OUT"], "w") as out:
            json.dump(loaded, out)
"""

ADK_TESTS = """
import asyncio

import pytest

from google.adk.evaluation.agent_evaluator import AgentEvaluator


def test_passing():
    asyncio.run(AgentEvaluator.evaluate("weather_agent", "tests/data/passing", num_runs=2, agent_name="weather_agent"))


def test_failing():
    asyncio.run(AgentEvaluator.evaluate("weather_agent", "tests/data/failing", print_detailed_results=False))


def test_legacy_with_initial_session():
    asyncio.run(
        AgentEvaluator.evaluate(
            "weather_agent",
            "weather_agent/legacy/weather_legacy.test.json",
            initial_session_file="weather_agent/legacy/initial.session.json",
        )
    )


def test_an_unknown_sub_agent_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match="nobody"):
        asyncio.run(AgentEvaluator.evaluate("weather_agent", "tests/data/passing", agent_name="nobody"))


def test_initial_session_only_with_legacy_files():
    with pytest.raises(AssertionError, match="Initial session should be specified as a part of EvalSet file"):
        asyncio.run(
            AgentEvaluator.evaluate(
                "weather_agent", "tests/data/passing", initial_session_file="weather_agent/legacy/initial.session.json"
            )
        )
"""
ADK_IMPORT = "from google.adk.evaluation.agent_evaluator import AgentEvaluator"
OUR_IMPORT = "from adk_eval_gate.pytest import AgentEvaluator"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def make_project(folder: Path) -> Path:
    """A test project: the example agent with a broken eval file and a JSONL dataset, ADK-style test data."""
    root = folder / "project"
    (root / ".git").mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    shutil.copytree(EXAMPLES / "weather_agent", root / "weather_agent", ignore=shutil.ignore_patterns("__pycache__"))
    write_jsonl(root / "weather_agent" / "data" / "mixed.evalset.jsonl", ROWS)
    (root / "weather_agent" / "broken").mkdir()
    (root / "weather_agent" / "broken" / "bad.evalset.json").write_text('{"eval_set_id": "x", "eval_cases": [')
    cases = json.loads((EXAMPLES / "weather_agent" / "weather.evalset.json").read_text())["eval_cases"]
    config = json.loads((EXAMPLES / "weather_agent" / "test_config.json").read_text())
    for name, chosen in (("passing", cases[:2]), ("failing", cases[2:])):
        write_json(root / "tests" / "data" / name / "weather.test.json", {"eval_set_id": name, "eval_cases": chosen})
        write_json(root / "tests" / "data" / name / "test_config.json", config)
    (root / "sanity").mkdir()
    (root / "sanity" / "test_sanity.py").write_text("def test_sanity():\n    assert True\n", encoding="utf-8")
    return root


def run_pytest(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_", "PYTEST_"))}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def junit_outcomes(path: Path) -> dict[str, str | None]:
    """Each testcase's name and its failure message (None: it passed)."""
    junit_schema().validate(str(path))
    outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        outcomes[str(case.get("name"))] = None if problem is None else f"{problem.get('message')}\n{problem.text}"
    return outcomes


@pytest.fixture(scope="module")
def gate_doc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """results.json of ``adk-eval-gate run`` on the test project, once for the tests that compare pytest with it."""
    project = make_project(tmp_path_factory.mktemp("gate"))
    gate = run_cli("run", "weather_agent", "--num-runs", "2", cwd=project, timeout=300)
    assert gate.returncode == 2, gate.stdout + gate.stderr  # 2: an eval file cannot be loaded
    doc: dict[str, Any] = json.loads((project / "adk-eval-results" / "results.json").read_text())
    return doc


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_pytest_adk_eval_gives_the_gates_verdicts(
    project: Path, tmp_path: Path, gate_doc: dict[str, Any], workers: list[str]
) -> None:
    doc = gate_doc
    junit = tmp_path / "junit-pytest.xml"
    done = run_pytest("--adk-eval", "weather_agent", f"--junitxml={junit}", *workers, cwd=project)
    assert done.returncode == 1, done.stdout + done.stderr
    outcomes = junit_outcomes(junit)
    broken_file = outcomes.pop("eval-file")
    assert len(outcomes) == doc["totals"]["cases"] == 8  # one testcase per eval case
    assert {name: message is None for name, message in outcomes.items()} == {
        case["eval_id"]: case["status"] == "passed" for case in doc["cases"]
    }
    file_error = next(file["error"] for file in doc["files"] if file["error"])
    assert broken_file is not None and file_error in broken_file
    lines = {case["eval_id"]: (case["file"], str(case["line"])) for case in doc["cases"]}
    placed = {t.get("name"): (t.get("file"), t.get("line")) for t in ET.parse(junit).getroot().iter("testcase")}
    assert {name: placed[name] for name in lines} == lines  # where the gate's own JUnit points, under xdist too
    wrong_city = outcomes["wrong_city_on_purpose"]
    assert wrong_city is not None and "tool_trajectory_avg_score: score 0 < threshold 1 (runs: 0, 0)" in wrong_city
    assert 'expected tools  get_weather({"city": "Melbourne"})' in wrong_city
    if workers:
        assert "2 workers [9 items]" in done.stdout


def test_an_agent_evaluator_test_module_passes_and_fails_alike_after_its_import_changes(
    project: Path, tmp_path: Path
) -> None:
    module = project / "tests" / "test_weather.py"
    module.write_text(ADK_TESTS, encoding="utf-8")
    with_adk = run_pytest("tests", f"--junitxml={tmp_path / 'junit-adk.xml'}", cwd=project)
    module.write_text(ADK_TESTS.replace(ADK_IMPORT, OUR_IMPORT), encoding="utf-8")
    with_gate = run_pytest("tests", f"--junitxml={tmp_path / 'junit-gate.xml'}", cwd=project)
    assert with_adk.returncode == with_gate.returncode == 1, with_gate.stdout
    adk, gate = junit_outcomes(tmp_path / "junit-adk.xml"), junit_outcomes(tmp_path / "junit-gate.xml")
    assert [name for name, message in adk.items() if message] == ["test_failing"]
    assert {name: message is None for name, message in gate.items()} == {
        name: message is None for name, message in adk.items()
    }
    expected = (
        "AssertionError: Following are all the test failures. If you looking to get more details on the failures, "
        "then please re-run this test with `print_detailed_results` set to `True`.\n"
        "tool_trajectory_avg_score for weather_agent Failed. Expected 1.0, but got 0.0."
    )
    assert str(adk["test_failing"]).startswith(expected) and str(gate["test_failing"]).startswith(expected)


def test_without_adk_eval_the_plugin_costs_nothing(project: Path, tmp_path: Path) -> None:
    modules = tmp_path / "modules.json"
    done = run_pytest("weather_agent", "sanity", cwd=project, env={"MODULES_OUT": str(modules)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "collected 1 item" in done.stdout  # the eval files are not tests
    assert json.loads(modules.read_text()) == ["adk_eval_gate", "adk_eval_gate.pytest", "adk_eval_gate.pytest.plugin"]

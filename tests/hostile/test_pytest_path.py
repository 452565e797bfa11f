"""The pytest path is held to the rules of ``run``: agent code cannot end pytest, and no secret reaches its output.

Each test runs pytest as a process on a project with the hostile agent, so an exit code of 0 from an
``os._exit(0)`` in a tool would show as such: ``os._exit(0)`` in a tool fails that case, never ends
``pytest --adk-eval`` (or a test calling ``AgentEvaluator.evaluate``) with exit code 0 and no JUnit file; the
agent's API key, quoted in an exception, a log record or an answer, is masked in pytest's terminal output, its
``--junitxml`` and AgentEvaluator's CSV file.
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.agents import HOSTILE_AGENT
from tests.pytest.test_projects import run_pytest
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow

KEY = "AIzaSy-hostile-key-0123456789"
EVALUATOR_TESTS = """
import asyncio

from adk_eval_gate.pytest import AgentEvaluator


def test_hostile():
    asyncio.run(AgentEvaluator.evaluate("bot", "bot/hostile.test.json", num_runs=1, output_file="out/evals.csv"))


def test_after():
    assert True
"""


def _project(tmp_path: Path, cases: dict[str, list[dict[str, Any]]]) -> Path:
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "bot", HOSTILE_AGENT)
    write_config(tmp_path / "bot", {"response_match_score": 0.5})
    write_evalset(tmp_path / "bot" / "hostile.evalset.json", cases)
    write_evalset(tmp_path / "bot" / "hostile.test.json", cases)  # for AgentEvaluator
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_evaluator.py").write_text(EVALUATOR_TESTS, encoding="utf-8")
    return tmp_path


def _outcomes(junit: Path) -> dict[str, tuple[str, str] | None]:
    """Each testcase's name and (``failure`` or ``error``, its message and text); None: it passed."""
    outcomes: dict[str, tuple[str, str] | None] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        problem = next((child for child in case if child.tag in {"failure", "error"}), None)
        name = str(case.get("name"))
        outcomes[name] = None if problem is None else (problem.tag, f"{problem.get('message')}\n{problem.text}")
    return outcomes


def _ended_with_a_verdict(done: subprocess.CompletedProcess[str], junit: Path) -> dict[str, tuple[str, str] | None]:
    assert done.returncode == 1, done.stdout + done.stderr
    assert junit.is_file(), "pytest wrote no JUnit file: it did not end by itself\n" + done.stdout
    return _outcomes(junit)


def test_os_exit_in_a_tool_is_an_error_and_the_other_cases_run(tmp_path: Path) -> None:
    cases = {
        "fine": [turn("hello", answer="echo: hello")],
        "hostile": [turn("os_exit", answer="done")],
        "after": [turn("hello again", answer="echo: hello again")],
    }
    project = _project(tmp_path, cases)
    junit = tmp_path / "junit.xml"
    outcomes = _ended_with_a_verdict(run_pytest("--adk-eval", "bot", f"--junitxml={junit}", cwd=project), junit)
    assert outcomes["fine"] is None and outcomes["after"] is None
    hostile = outcomes["hostile"]
    assert hostile is not None and hostile[0] == "error" and "exited with code 0" in hostile[1], hostile


def test_os_exit_in_a_tool_fails_the_agent_evaluator_test_and_the_others_run(tmp_path: Path) -> None:
    project = _project(tmp_path, {"hostile": [turn("os_exit", answer="done")]})
    junit = tmp_path / "junit.xml"
    outcomes = _ended_with_a_verdict(run_pytest("tests", f"--junitxml={junit}", cwd=project), junit)
    assert outcomes["test_after"] is None
    hostile = outcomes["test_hostile"]
    assert hostile is not None and hostile[0] == "failure"
    assert "hostile for bot Failed. 1 of 1 runs were recorded as failed" in hostile[1]


def test_the_agents_key_reaches_neither_the_terminal_nor_junit_nor_the_csv(tmp_path: Path) -> None:
    cases = {
        "leak": [turn("leak", answer="done")],  # an exception that quotes the key
        "log": [turn("log", answer="done")],  # a log record that holds it
        "reveal": [turn("reveal", answer="no key here")],  # an answer that holds it
        "token": [turn("token", answer="none")],  # the names of the variables it sees that hold TOKEN
    }
    project = _project(tmp_path, cases)
    (project / "bot" / ".env").write_text(f"GOOGLE_API_KEY={KEY}\n", encoding="utf-8")
    junit = tmp_path / "junit.xml"
    args = ["--adk-eval", "bot", "tests", "-rA", "-o", "junit_logging=all", f"--junitxml={junit}"]
    done = run_pytest(*args, cwd=project, env={"GITHUB_TOKEN": "ghs_hostiletesttoken"})
    outcomes = _ended_with_a_verdict(done, junit)
    assert set(outcomes) == {"leak", "log", "reveal", "token", "test_hostile", "test_after"}
    token = outcomes["token"]
    assert token is not None and "seen [" in token[1]
    assert "GITHUB_TOKEN" not in token[1]  # agent code runs without it, as in run
    csv_text = (project / "out" / "evals.csv").read_text(encoding="utf-8")
    for where, text in {
        "terminal": done.stdout + done.stderr,
        "junit": junit.read_text(encoding="utf-8"),
        "csv": csv_text,
    }.items():
        assert KEY not in text, where
    assert "upstream refused key ***" in done.stdout and "the key is ***" in csv_text


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("import os\nos._exit(0)\n", "exited with code 0 (the agent or a tool called os._exit() or crashed) while it"),
        (
            "import stripe_payments_sdk\n",
            "agent bot could not be imported: ModuleNotFoundError: No module named 'stripe_payments_sdk' "
            "(bot/agent.py:1) (pip install the package that provides 'stripe_payments_sdk' where the gate runs)",
        ),
    ],
    ids=["os_exit", "missing_package"],
)
def test_an_agent_that_exits_or_fails_at_import_makes_each_case_an_error_not_the_end_of_pytest(
    tmp_path: Path, source: str, reason: str
) -> None:
    """pytest imports the ``__init__.py`` of each package a test is in, which imports the agent: an eval file's
    collector hangs outside the agent's package, and the agent is imported in the workers only."""
    project = _project(tmp_path, {"one": [turn("hello")], "two": [turn("hello again")]})
    write_agent(project / "bot", source)
    write_evalset(project / "bot" / "evals" / "nested.evalset.json", {"three": [turn("hi")]})  # a folder in it too
    junit = tmp_path / "junit.xml"
    outcomes = _ended_with_a_verdict(run_pytest("--adk-eval", "bot", f"--junitxml={junit}", cwd=project), junit)
    for eval_id in ("one", "two", "three"):
        outcome = outcomes[eval_id]
        assert outcome is not None and outcome[0] == "error" and reason in outcome[1], outcome
        assert "Traceback" not in outcome[1]

"""A step with a bad input stops with exactly one ``::error::`` line that names the input, and exit code 2.

The CLI runs as the container runs it: no arguments, ``GITHUB_ACTIONS=true``, the inputs as ``INPUT_<NAME>``
variables (hyphens kept), every other input set but empty, as GitHub sets every declared input. In-process for
speed (``cli.main`` with that environment); one case also as a real process.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from adk_eval_gate import cli
from tests.conftest import EXAMPLES, REPO, run_cli


def step_env(workspace: Path, inputs: dict[str, str]) -> dict[str, str]:
    declared = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))["inputs"]
    env = {f"INPUT_{name.upper()}": "" for name in declared}
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace)})
    return env


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    shutil.copytree(EXAMPLES / "weather_agent", root / "weather_agent", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "notes").mkdir()
    (root / "notes" / "README.md").write_text("no eval files here\n", encoding="utf-8")
    return root


BAD_INPUTS = [
    ({"runner": "docker"}, "runner", "must be one of adk, http, a2a, recorded"),
    ({"num-runs": "zero"}, "num-runs", "must be a whole number"),
    ({"num-runs": "0"}, "num-runs", "at least 1"),
    ({"shard": "3/2"}, "shard", "out of range"),
    ({"shard": "half"}, "shard", "is not a shard"),
    ({"requirements": "requirements-missing.txt"}, "requirements", "does not exist"),
    ({"paths": "notes"}, "paths", "no eval files"),
    ({"paths": "weather_agnet"}, "paths", "does not exist"),
    ({"timeout": "-5"}, "timeout", "more than 0"),
    ({"comment-mode": "sometimes"}, "comment-mode", "must be one of"),
    ({"fail-on-regression": "maybe"}, "fail-on-regression", "true or false"),
    ({"runner": "recorded"}, "recorded", "needs recorded results"),
    ({"runner": "http"}, "agent-url", "needs the agent's base URL"),
]


@pytest.mark.parametrize("case", BAD_INPUTS, ids=[case[1] + ":" + case[2] for case in BAD_INPUTS])
def test_bad_input_fails_with_one_error_naming_it(
    workspace: Path,
    case: tuple[dict[str, str], str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    inputs, named, says = case
    for name in list(os.environ):
        if name.startswith(("INPUT_", "GITHUB_")):
            monkeypatch.delenv(name)
    for name, value in step_env(workspace, {"paths": "weather_agent", **inputs}).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(workspace)
    code = cli.main([])
    out, err = capsys.readouterr()
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert code == 2, out + err
    assert len(errors) == 1, out
    assert says in errors[0], errors[0]
    assert f"input '{named}'" in errors[0], errors[0]
    results = json.loads((workspace / "adk-eval-results" / "results.json").read_text())  # the reports say why
    assert results["status"] == "error" and says in results["error"] and results["cases"] == []


@pytest.mark.slow
def test_as_a_real_process_the_error_is_one_line_without_a_traceback(workspace: Path) -> None:
    result = run_cli(cwd=workspace, env=step_env(workspace, {"paths": "weather_agent", "num-runs": "zero"}))
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert lines[0] == "::error::input 'num-runs' must be a whole number, got 'zero'"
    assert (
        "Wrote adk-eval-results/results.json, adk-eval-results/junit.xml, adk-eval-results/summary.md, "
        "adk-eval-results/report.html and adk-eval-results/comment.md"
    ) in lines
    assert [line for line in lines if line.startswith("::error")] == [lines[0]]
    assert result.stderr == ""


@pytest.mark.slow
def test_a_command_line_flag_is_named_as_the_flag(workspace: Path) -> None:
    result = run_cli("run", "weather_agent", "--num-runs", "zero", cwd=workspace, env={"GITHUB_ACTIONS": "true"})
    assert result.returncode == 2
    assert "--num-runs" in result.stdout + result.stderr

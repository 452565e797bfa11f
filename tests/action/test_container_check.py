"""The helpers of the container test (tests/action/container_check.py), which .ci/container-test.sh runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adk_eval_gate.github.outputs import format_outputs
from tests.action import container_check as check


def test_outputs_written_by_the_tool_read_back_exactly() -> None:
    values = {"status": "failed", "summary": "line one\nline two", "comment-url": ""}
    assert check.parse_outputs(format_outputs(values)) == values


def test_outputs_in_the_simple_form_and_an_unclosed_block() -> None:
    assert check.parse_outputs("status=passed\npassed=3\n") == {"status": "passed", "passed": "3"}
    with pytest.raises(check.CheckFailed, match="not closed"):
        check.parse_outputs("summary<<EOF\ntext\n")


def test_paths_the_container_reports_map_into_the_workspace(tmp_path: Path) -> None:
    assert check.host_path("/github/workspace/out/results.json", tmp_path) == tmp_path / "out/results.json"
    assert check.host_path("adk-eval-results/junit.xml", tmp_path) == tmp_path / "adk-eval-results/junit.xml"


def test_the_step_environment_declares_every_input_as_github_does(tmp_path: Path) -> None:
    env = check.step_environment(
        inputs={"num-runs": "2"}, api_url="http://127.0.0.1:1", files=tmp_path, scenario="gate"
    )
    declared = {f"INPUT_{name.upper()}" for name in check.action_inputs()}
    assert declared <= set(env)
    assert env["INPUT_NUM-RUNS"] == "2" and env["INPUT_SHARD"] == ""
    assert env["INPUT_GITHUB-TOKEN"] == check.TOKEN
    assert env["GITHUB_OUTPUT"] == str(tmp_path / "gate.github_output")


def test_prepare_writes_a_workspace_an_event_and_one_env_file_per_scenario(tmp_path: Path) -> None:
    check.prepare(tmp_path, api_url="http://127.0.0.1:1")
    assert (tmp_path / "workspace" / "weather_agent" / "agent.py").is_file()
    assert not list((tmp_path / "workspace").rglob("__pycache__"))
    event = json.loads((tmp_path / "files" / "event.json").read_text(encoding="utf-8"))
    assert event["pull_request"]["number"] == check.PULL_REQUEST
    assert event["pull_request"]["head"]["sha"] == check.HEAD_SHA
    gate = dict(line.split("=", 1) for line in (tmp_path / "env-gate").read_text(encoding="utf-8").splitlines())
    assert gate["INPUT_REQUIREMENTS"] == "requirements.txt" and gate["GITHUB_API_URL"] == "http://127.0.0.1:1"
    bad = (tmp_path / "env-bad-requirements").read_text(encoding="utf-8")
    assert f"INPUT_REQUIREMENTS={check.MISSING_REQUIREMENTS}\n" in bad


def test_a_bad_input_run_is_judged_by_its_single_error_line(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    out = tmp_path / "bad-requirements.out"
    out.write_text("::error::input 'requirements': requirements file 'x' does not exist\n", encoding="utf-8")
    outputs = tmp_path / "files" / "bad-requirements.github_output"
    outputs.write_text("status<<EOF\nerror\nEOF\n", encoding="utf-8")
    summary = tmp_path / "files" / "bad-requirements.step_summary"
    summary.write_text("the gate could not run: input 'requirements': requirements file 'x' does not exist\n")
    assert check.check_bad_input(tmp_path, exit_code=2, input_name="requirements", stdout_file=out)
    with pytest.raises(check.CheckFailed, match="exit code 0"):
        check.check_bad_input(tmp_path, exit_code=0, input_name="requirements", stdout_file=out)
    out.write_text("::error::something else\n::error::input 'requirements': twice\n", encoding="utf-8")
    with pytest.raises(check.CheckFailed, match="2 ::error lines"):
        check.check_bad_input(tmp_path, exit_code=2, input_name="requirements", stdout_file=out)

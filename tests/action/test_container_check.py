"""The helpers of the container test (tests/action/container_check.py, container_a2a_check.py, a2a_server.py),
which .ci/container-test.sh runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adk_eval_gate.github.outputs import format_outputs
from tests.action import container_a2a_check
from tests.action import container_check as check
from tests.action.a2a_server import RequireToken


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
    check.prepare(tmp_path, api_url="http://127.0.0.1:1", agent_url="http://127.0.0.1:2")
    assert (tmp_path / "workspace" / "weather_agent" / "agent.py").is_file()
    assert not list((tmp_path / "workspace").rglob("__pycache__"))
    event = json.loads((tmp_path / "files" / "event.json").read_text(encoding="utf-8"))
    assert event["pull_request"]["number"] == check.PULL_REQUEST
    assert event["pull_request"]["head"]["sha"] == check.HEAD_SHA
    gate = dict(line.split("=", 1) for line in (tmp_path / "env-gate").read_text(encoding="utf-8").splitlines())
    assert gate["INPUT_REQUIREMENTS"] == "requirements.txt" and gate["GITHUB_API_URL"] == "http://127.0.0.1:1"
    bad = (tmp_path / "env-bad-requirements").read_text(encoding="utf-8")
    assert f"INPUT_REQUIREMENTS={check.MISSING_REQUIREMENTS}\n" in bad
    a2a = dict(line.split("=", 1) for line in (tmp_path / "env-a2a").read_text(encoding="utf-8").splitlines())
    assert (a2a["INPUT_RUNNER"], a2a["INPUT_AGENT-URL"]) == ("a2a", "http://127.0.0.1:2")
    assert a2a["INPUT_AGENT-HEADERS"] == f"Authorization: Bearer {check.A2A_TOKEN}"
    assert a2a["INPUT_OUTPUT-DIR"] == check.A2A_OUTPUT_DIR != gate["INPUT_OUTPUT-DIR"]


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


def _step(work: Path, scenario: str, *, scores: dict[str, float], outcome: str = "") -> None:
    """What a step of the container test leaves: its outputs naming results.json and junit.xml, and its stdout."""
    folder = work / "workspace" / scenario
    folder.mkdir(parents=True)
    metrics = [{"name": name, "score": score} for name, score in scores.items()]
    results = {
        "run": {"runner": scenario, "served_agent": {"name": "weather_agent", "version": "0.0.1"}},
        "totals": {"cases": 1, "failed": 1},
        "cases": [{"eval_id": "paris", "status": "failed", "metrics": [*metrics, {"name": "latency", "score": 2}]}],
    }
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    failure = f'<failure message="{outcome or "response_match_score 0.2"}"/>'
    testcase = f'<testcase name="paris" classname="w.json">{failure}</testcase>'
    junit = f'<testsuites><testsuite name="w.json" tests="1">{testcase}</testsuite></testsuites>'
    (folder / "junit.xml").write_text(junit, encoding="utf-8")
    outputs = f"results=/github/workspace/{scenario}/results.json\njunit={scenario}/junit.xml\n"
    (work / "files").mkdir(exist_ok=True)
    (work / "files" / f"{scenario}.github_output").write_text(outputs, encoding="utf-8")
    (work / f"{scenario}.out").write_text(f"::add-mask::{check.A2A_TOKEN}\n1 case failed\n", encoding="utf-8")


@pytest.fixture
def a2a_work(tmp_path: Path) -> Path:
    _step(tmp_path, "gate", scores={"response_match_score": 0.2, "tool_trajectory_avg_score": 1.0})
    _step(tmp_path, "a2a", scores={"response_match_score": 0.2, "tool_trajectory_avg_score": 1.0})
    (tmp_path / "a2a-requests.jsonl").write_text('{"path": "/", "authorized": true}\n', encoding="utf-8")
    return tmp_path


@pytest.mark.slow  # imports the A2A SDK and compares two whole runs: over half a second of CPU
def test_the_a2a_step_passes_when_it_gives_what_the_in_process_step_gave(a2a_work: Path) -> None:
    checked = container_a2a_check.check_a2a_run(a2a_work, exit_code=1)
    assert any("totals and scores as in-process" in line for line in checked)
    assert any("token is in no output" in line for line in checked)


def test_the_a2a_step_fails_on_another_score_junit_outcome_exit_code_or_refused_request(a2a_work: Path) -> None:
    with pytest.raises(check.CheckFailed, match="exit code 0"):
        container_a2a_check.check_a2a_run(a2a_work, exit_code=0)
    log = a2a_work / "a2a-requests.jsonl"
    log.write_text('{"path": "/", "authorized": false}\n', encoding="utf-8")
    with pytest.raises(check.CheckFailed, match="without the header"):
        container_a2a_check.check_a2a_run(a2a_work, exit_code=1)
    log.write_text('{"path": "/", "authorized": true}\n', encoding="utf-8")
    shutil.rmtree(a2a_work / "workspace" / "a2a")
    _step(a2a_work, "a2a", scores={"response_match_score": 0.2, "tool_trajectory_avg_score": 0.0})
    with pytest.raises(check.CheckFailed, match="cases over A2A"):
        container_a2a_check.check_a2a_run(a2a_work, exit_code=1)
    shutil.rmtree(a2a_work / "workspace" / "a2a")
    _step(a2a_work, "a2a", scores={"response_match_score": 0.2, "tool_trajectory_avg_score": 1.0}, outcome="other")
    with pytest.raises(check.CheckFailed, match=r"junit\.xml over A2A"):
        container_a2a_check.check_a2a_run(a2a_work, exit_code=1)


def test_the_token_is_found_wherever_the_step_shows_it_but_not_in_its_add_mask_command(a2a_work: Path) -> None:
    output_dir = a2a_work / "workspace" / "a2a"
    assert container_a2a_check.leaks(a2a_work, scenario="a2a", output_dir=output_dir, secret=check.A2A_TOKEN) == []
    (output_dir / "comment.md").write_bytes(b"\xff token " + check.A2A_TOKEN.encode())
    (a2a_work / "a2a.err").write_text(f"Authorization: Bearer {check.A2A_TOKEN}\n", encoding="utf-8")
    (a2a_work / "requests.jsonl").write_text(json.dumps({"body": check.A2A_TOKEN}) + "\n", encoding="utf-8")
    found = container_a2a_check.leaks(a2a_work, scenario="a2a", output_dir=output_dir, secret=check.A2A_TOKEN)
    assert found == ["a2a.err", "comment.md", "a request to the GitHub API"]
    with pytest.raises(check.CheckFailed, match="token is in"):
        container_a2a_check.check_a2a_run(a2a_work, exit_code=1)


def test_the_a2a_server_answers_only_requests_with_the_token(tmp_path: Path) -> None:
    import asyncio

    import httpx
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def hello(request: object) -> PlainTextResponse:
        return PlainTextResponse("agent")

    log = tmp_path / "requests.jsonl"
    app = RequireToken(Starlette(routes=[Route("/", hello)]), token="t0ken", log=log)

    async def ask(headers: dict[str, str]) -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://a2a") as client:
            return await client.get("/", headers=headers)

    assert asyncio.run(ask({})).status_code == 401
    assert asyncio.run(ask({"Authorization": "Bearer wrong"})).status_code == 401
    answered = asyncio.run(ask({"Authorization": "Bearer t0ken"}))
    assert (answered.status_code, answered.text) == (200, "agent")
    assert [entry["authorized"] for entry in check.requests_log(log)] == [False, False, True]

"""The http runner against a real ``adk api_server``, and against a server of our own that misbehaves."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs.plan import plan
from adk_eval_gate.inputs.prepare import prepare
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.model import compact
from adk_eval_gate.runners.execute import Execution, MetricBuilder, RunLimits, execute
from adk_eval_gate.runners.http import HttpRunner
from adk_eval_gate.runners.http_headers import parse_headers
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.retry import Backoff
from tests.runners.api_server import ApiServer
from tests.runners.conftest import RunGate
from tests.runners.fault_server import fault_server
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # a real `adk api_server` and local agent servers

REPO = Path(__file__).resolve().parents[2]
FAST = Backoff(attempts=3, initial=0.01, maximum=0.01)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ApiServer, ApiServer]]:
    """Two real api_servers, started together: one serving only the weather example, one serving two apps."""
    base = tmp_path_factory.mktemp("apis")
    shutil.copytree(REPO / "examples" / "weather_agent", base / "single" / "weather_agent")
    shutil.copytree(REPO / "examples" / "helpdesk_agent", base / "multi" / "helpdesk_agent")
    write_agent(base / "multi" / "bot")
    single, multi = ApiServer(base / "single"), ApiServer(base / "multi")
    try:
        single.wait()
        multi.wait()
        yield single, multi
    finally:
        single.stop()
        multi.stop()


TOKEN_ENV = {"TEST_TOKEN": "s3cret-token"}
BEARER = "Authorization: Bearer ${TEST_TOKEN}"


def _run(
    paths: list[str],
    *,
    url: str,
    headers: list[str] | None = None,
    timeout: float = 30,
    env: dict[str, str] | None = None,
) -> Execution:
    values = {"paths": paths, "runner": "http", "agent_url": url, "agent_headers": headers or [], "timeout": timeout}
    settings = build_settings("run", values, env=env or {})
    console = Console(in_actions=False)
    prepared = prepare(settings, console)
    items = plan(prepared.planned, num_runs=1, shard=None)
    runner = HttpRunner(settings, console=console)

    async def go() -> Execution:
        try:
            return await execute(
                items,
                runner=runner,
                metrics=MetricBuilder(MetricServices()),
                limits=RunLimits(parallelism=4, timeout=timeout, retry=FAST),
            )
        finally:
            await runner.aclose()

    return asyncio.run(go())


def _errors(execution: Execution) -> dict[str, str | None]:
    return {key.split("::")[1]: runs[0].inference.error for key, runs in execution.finished.items()}


def test_the_weather_example_over_http_scores_like_in_process(
    servers: tuple[ApiServer, ApiServer], tmp_repo: Path, run_gate: RunGate
) -> None:
    shutil.copytree(REPO / "examples" / "weather_agent", tmp_repo / "weather_agent")
    over_http = run_gate("weather_agent", "--runner", "http", "--agent-url", servers[0].url)
    in_process = run_gate("weather_agent")
    assert over_http.code == in_process.code == 1
    assert over_http.doc is not None and in_process.doc is not None
    assert over_http.doc["totals"] == in_process.doc["totals"]
    for case in in_process.doc["cases"]:
        remote = over_http.scores(case["eval_id"])
        local = {m["name"]: m["score"] for m in case["metrics"]}
        for name in ("tool_trajectory_avg_score", "response_match_score", "tool_call_count_v1",
                     "inference_call_count_v1", "token_usage_v1"):  # fmt: skip
            assert remote[name] == local[name], (case["eval_id"], name)
        assert remote["invocation_duration_v1"] is not None


def test_state_app_names_and_the_sse_endpoint(servers: tuple[ApiServer, ApiServer], tmp_repo: Path) -> None:
    write_config(tmp_repo, {"response_match_score": 0.9})
    write_evalset(
        tmp_repo / "remote.evalset.json",
        {
            "state": [turn("state plan", answer="plan is gold"), turn("weather Oslo", answer="It is sunny in Oslo.")],
            "invoice": [turn("Is invoice INV-1002 paid?", answer="Invoice INV-1002 is overdue (99.0 EUR, pro plan).")],
            "no_app_name": [turn("hello", answer="echo: hello")],
            "unknown_app": [turn("hello", answer="echo: hello")],
        },
        state={"session_input": {"app_name": "bot", "user_id": "u", "state": {"plan": "gold"}}},
        invoice={"session_input": {"app_name": "helpdesk_agent", "user_id": "u", "state": {"plan": "pro"}}},
        unknown_app={"session_input": {"app_name": "billing", "user_id": "u"}},
    )
    execution = _run(["remote.evalset.json"], url=servers[1].url)
    errors = _errors(execution)
    assert errors["state"] is None and errors["invoice"] is None
    assert "serves several apps (bot, helpdesk_agent)" in (errors["no_app_name"] or "")
    assert "does not serve the app 'billing' of session_input.app_name (it serves: bot, helpdesk_agent)" in (
        errors["unknown_app"] or ""
    )
    state_run = execution.finished["remote.evalset.json::state"][0]
    assert [s.outcome.score for s in state_run.scored[:1]] == [1.0]
    invoice = (execution.finished["remote.evalset.json::invoice"][0].inference.turns or [])[0]
    assert [name for name, _ in compact.tool_calls(invoice) or []] == ["transfer_to_agent", "lookup_invoice"]

    sse = HttpRunner(build_settings("run", {"runner": "http", "agent_url": servers[1].url}, env={}))
    sse.endpoint = "run_sse"
    prepared = prepare(
        build_settings("run", {"paths": ["remote.evalset.json:state"]}, env={}), Console(in_actions=False)
    )
    item = plan(prepared.planned, num_runs=1, shard=None)[0]

    async def by_sse() -> None:
        try:
            inference = await sse.infer(item)
        finally:
            await sse.aclose()
        assert inference.error is None
        texts = [inv.final_response.parts[0].text for inv in inference.invocations]  # type: ignore[union-attr,index]
        assert texts == ["plan is gold", "It is sunny in Oslo."]

    asyncio.run(by_sse())


def test_server_faults_become_error_cases_and_the_others_finish(tmp_repo: Path) -> None:
    write_config(tmp_repo, {"response_match_score": 0.5})
    write_evalset(
        tmp_repo / "faults.evalset.json",
        {
            "fine": [turn("hello", answer="ok: hello")],
            "server_error": [turn("fail500", answer="x")],
            "connection_closed": [turn("close", answer="x")],
            "busy_then_fine": [turn("busy-once", answer="ok: busy-once")],
        },
    )
    with fault_server() as server:
        execution = _run(
            ["faults.evalset.json"], url=server.url, headers=["Authorization: Bearer ${TEST_TOKEN}"], env=TOKEN_ENV
        )
        assert server.requests
    errors = _errors(execution)
    assert errors["fine"] is None and errors["busy_then_fine"] is None
    assert errors["server_error"] == (  # ADK's api_server answers 500 when the agent raised: not run again
        "POST /run answered HTTP 500: the agent crashed (the agent raised while it ran; not run again)"
    )
    assert (errors["connection_closed"] or "").startswith("the agent server closed the connection")
    fine = execution.finished["faults.evalset.json::fine"][0]
    assert compact.answer_text((fine.inference.turns or [])[0]) == "ok: hello"
    (busy,) = execution.finished["faults.evalset.json::busy_then_fine"]
    assert busy.inference.retries == ["POST /run answered HTTP 503: busy"]  # the server's 503: run again, recorded
    (crashed,) = execution.finished["faults.evalset.json::server_error"]
    assert crashed.inference.retries == []


def test_without_run_the_runner_streams_from_run_sse(tmp_repo: Path) -> None:
    write_config(tmp_repo, {"response_match_score": 1.0})
    write_evalset(tmp_repo / "sse.evalset.json", {"one": [turn("hi", answer="ok: hi")], "two": [turn("yo")]})
    with fault_server(has_run=False) as server:
        execution = _run(
            ["sse.evalset.json"], url=server.url, headers=["Authorization: Bearer ${TEST_TOKEN}"], env=TOKEN_ENV
        )
        paths = [path for _, path, _ in server.requests]
        auth = {headers.get("Authorization") for _, _, headers in server.requests}
    assert _errors(execution) == {"one": None, "two": None}
    assert "/run_sse" in paths and paths.count("/list-apps") == 1
    assert auth == {"Bearer s3cret-token"}


def test_headers_expand_variables_and_register_secrets() -> None:
    console = Console(in_actions=False)
    env = {"TOKEN": "abc123secret", "TEAM": "evals"}
    headers = parse_headers(
        ["Authorization: Bearer $TOKEN", "X-Team: ${TEAM}-ci", "Accept: json"], env=env, console=console
    )
    assert headers == {"Authorization": "Bearer abc123secret", "X-Team": "evals-ci", "Accept": "json"}
    assert console.mask("token abc123secret used") == "token *** used"
    with pytest.raises(UsageError, match="environment variable MISSING"):
        parse_headers(["Authorization: Bearer $MISSING"], env=env)
    with pytest.raises(UsageError, match="is not a header"):
        parse_headers(["no colon here"], env=env)


def test_a_conversation_scenario_over_http(servers: tuple[ApiServer, ApiServer], tmp_repo: Path) -> None:
    from google.adk.models.registry import LLMRegistry

    from tests.runners.scripted_model import ScriptedUser

    LLMRegistry.register(ScriptedUser)  # the user simulator runs here, the agent on the server
    (tmp_repo / "test_config.json").write_text(
        '{"criteria": {"response_match_score": 0.5}, "user_simulator_config": {"model": "scripted-user"}}',
        encoding="utf-8",
    )
    (tmp_repo / "scenario.evalset.json").write_text(
        """{"eval_set_id": "scenario", "eval_cases": [{"eval_id": "ask_plan",
            "conversation_scenario": {"starting_prompt": "weather Rome", "conversation_plan": "Ask for the plan."},
            "session_input": {"app_name": "bot", "user_id": "u", "state": {"plan": "silver"}}}]}""",
        encoding="utf-8",
    )
    execution = _run(["scenario.evalset.json"], url=servers[1].url)
    (run,) = execution.finished["scenario.evalset.json::ask_plan"]
    assert run.inference.error is None
    texts = [compact.answer_text(turn) for turn in run.inference.turns or []]
    assert texts == ["It is sunny in Rome.", "plan is silver"]


def test_the_session_state_after_the_run_comes_from_the_session_endpoint(
    servers: tuple[ApiServer, ApiServer], tmp_repo: Path
) -> None:
    write_config(tmp_repo, {"final_session_state_match": 1.0})
    write_evalset(
        tmp_repo / "state.evalset.json",
        {"kept": [turn("state plan", answer="plan is gold")]},
        kept={
            "session_input": {"app_name": "bot", "user_id": "u", "state": {"plan": "gold"}},
            "final_session_state": {"plan": "gold"},
        },
    )
    finished = _run(["state.evalset.json"], url=servers[1].url).finished["state.evalset.json::kept"][0]
    assert finished.inference.final_session_state == {"plan": "gold"}
    assert [s.outcome.score for s in finished.scored[:1]] == [1.0]  # the state matched, key for key
    write_evalset(
        tmp_repo / "plain.evalset.json", {"kept": [turn("hello")]}, kept={"final_session_state": {"plan": "gold"}}
    )
    with fault_server() as server:  # a server without GET on the session: the state is not recorded
        unanswered = _run(["plain.evalset.json"], url=server.url).finished["plain.evalset.json::kept"][0]
    assert unanswered.inference.error is None and unanswered.inference.final_session_state is None
    assert "was not recorded" in (unanswered.scored[0].outcome.reason or "")

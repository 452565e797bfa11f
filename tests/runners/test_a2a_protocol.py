"""The a2a runner against a server written with a2a-sdk's own server classes that is not ADK (a scripted agent),
and against a raw server that answers what no A2A server should: the protocol's states, its transports, and
hostile answers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs.plan import plan
from adk_eval_gate.inputs.prepare import prepare
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.model import compact
from adk_eval_gate.runners.a2a import A2aRunner
from adk_eval_gate.runners.a2a_transport import A2aLimits
from adk_eval_gate.runners.execute import Execution, FinishedRun, MetricBuilder, RunLimits, execute
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.http_body import MIB
from adk_eval_gate.support.retry import Backoff
from tests.runners.a2a_servers import Raw, Scripted, raw_app, sdk_app, serving
from tests.runners.scripted import turn, write_config, write_evalset

pytestmark = pytest.mark.slow  # real A2A servers on 127.0.0.1

FAST = Backoff(attempts=2, initial=0.01, maximum=0.01)


def _run(
    tmp_repo: Path,
    cases: dict[str, list[dict[str, Any]]] | None,
    *,
    url: str,
    headers: list[str] | None = None,
    timeout: float = 30,
    limits: A2aLimits | None = None,
    env: dict[str, str] | None = None,
    console: Console | None = None,
) -> dict[str, FinishedRun]:
    if cases is not None:  # None: the test wrote remote.evalset.json itself
        write_evalset(tmp_repo / "remote.evalset.json", cases)
    values = {
        "paths": ["remote.evalset.json"],
        "runner": "a2a",
        "agent_url": url,
        "agent_headers": headers or [],
        "timeout": timeout,
    }
    settings = build_settings("run", values, env=env or {})
    console = console or Console(in_actions=False)
    items = plan(prepare(settings, console).planned, num_runs=1, shard=None)
    runner = A2aRunner(settings, console=console, limits=limits)

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

    execution = asyncio.run(go())
    return {key.split("::")[1]: runs[0] for key, runs in execution.finished.items()}


def _answers(run: FinishedRun) -> list[str]:
    return [compact.answer_text(turn) for turn in run.inference.turns or []]


@pytest.fixture
def script() -> Scripted:
    return Scripted(huge_bytes=2 * MIB)


@pytest.fixture
def booker(script: Scripted) -> Iterator[str]:
    with serving(sdk_app(script)) as url:
        yield url


def test_a_server_that_is_not_adk_is_scored_on_its_answers_and_its_trajectory_is_not_evaluated(
    booker: str, tmp_repo: Path
) -> None:
    write_config(tmp_repo, {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5})
    runs = _run(tmp_repo, {"echo": [turn("hello there", answer="done echo hello there", tools=[])]}, url=booker)
    run = runs["echo"]
    assert run.inference.error is None
    assert _answers(run) == ["done\necho hello there"]  # the final status message, then the artifact
    scores = {scored.configured.name: scored.outcome for scored in run.scored}
    assert scores["response_match_score"].score == 1.0
    trajectory = scores["tool_trajectory_avg_score"]
    assert trajectory.score is None
    assert trajectory.reason is not None and "does not show its tool calls" in trajectory.reason
    assert run.inference.served_agent is not None
    assert (run.inference.served_agent.name, run.inference.served_agent.version) == ("scripted_booker", "2.1.0")


def test_the_context_is_carried_across_turns_and_input_required_is_answered_by_the_next_turn(
    booker: str, tmp_repo: Path
) -> None:
    write_config(tmp_repo, {"response_match_score": 0.5})
    runs = _run(
        tmp_repo,
        {
            "memory": [turn("remember the blue door"), turn("recall")],
            "booking": [turn("book a table"), turn("Friday")],
            "unanswered": [turn("book a table")],
        },
        url=booker,
    )
    assert _answers(runs["memory"]) == ["noted the blue door", "you said: remember the blue door"]
    assert _answers(runs["booking"]) == ["For which day?", "booked for Friday"]
    assert runs["booking"].inference.error is None
    assert runs["unanswered"].inference.error == (
        "the agent's task ended in state input-required after the case's last user turn: 'For which day?'"
    )
    assert len({run.inference.session_id for run in runs.values()}) == 3  # a context of its own per case run


def test_auth_required_failed_and_rejected_tasks_are_the_agents_errors(booker: str, tmp_repo: Path) -> None:
    cases = {"login": [turn("login please")], "fail": [turn("fail now")], "reject": [turn("reject me")]}
    runs = _run(tmp_repo, cases, url=booker)
    assert runs["login"].inference.error == (
        "the agent's task asked for authentication (state auth-required): 'Sign in first.'; "
        "the a2a runner cannot give it"
    )
    assert runs["fail"].inference.error == "the agent's task ended in state failed: 'the booking tool broke'"
    assert runs["reject"].inference.error == "the agent's task ended in state rejected: 'I do not book flights'"
    assert not any(run.inference.infrastructure for run in runs.values())


def test_a_task_still_working_at_the_timeout_is_cancelled(booker: str, script: Scripted, tmp_repo: Path) -> None:
    runs = _run(tmp_repo, {"slow": [turn("slow please")]}, url=booker, timeout=1.5)
    inference = runs["slow"].inference
    assert inference.timed_out and inference.infrastructure
    assert len(script.cancelled) == 1  # tasks/cancel reached the server for the open task


def test_without_streaming_the_task_is_polled_and_http_json_carries_the_context_too(
    script: Scripted, tmp_repo: Path
) -> None:
    with serving(sdk_app(script, streaming=False, binding="HTTP+JSON")) as url:
        runs = _run(tmp_repo, {"memory": [turn("remember the red car"), turn("recall")]}, url=url)
    assert runs["memory"].inference.error is None
    assert _answers(runs["memory"]) == ["noted the red car", "you said: remember the red car"]


def test_a_server_that_reports_only_by_push_notification_is_said_unsupported(script: Scripted, tmp_repo: Path) -> None:
    with serving(sdk_app(script, push_only=True)) as url:
        runs = _run(tmp_repo, {"slow": [turn("slow please")]}, url=url, timeout=20)
    error = runs["slow"].inference.error
    assert error is not None and "push notifications, which the a2a runner does not support" in error


def test_a_server_whose_card_offers_only_grpc_is_one_line_saying_what_to_serve(
    script: Scripted, tmp_repo: Path
) -> None:
    with serving(sdk_app(script, binding="GRPC", url="127.0.0.1:50051")) as url:
        runs = _run(tmp_repo, {"one": [turn("hi")], "two": [turn("hello")]}, url=url)
    for run in runs.values():
        assert run.inference.error == (
            f"the agent card at {url}/.well-known/agent-card.json offers only gRPC, which the a2a runner does not "
            "support; serve JSONRPC or HTTP+JSON as well (a2a-sdk's servers offer them beside gRPC)"
        )


def test_a_huge_artifact_stops_at_the_limit(booker: str, tmp_repo: Path) -> None:
    runs = _run(tmp_repo, {"huge": [turn("huge answer")]}, url=booker, limits=A2aLimits(answer=MIB, stream=MIB))
    assert runs["huge"].inference.error == (
        f"the A2A server at {booker.removeprefix('http://')} sent a stream larger than 1 MiB, the a2a runner's "
        "limit; the rest was not read (look for large artifacts or files sent inline)"
    )


def test_an_endless_stream_stops_at_the_limit(tmp_repo: Path) -> None:
    with serving(raw_app(Raw(answer="endless", streaming=True))) as url:
        runs = _run(tmp_repo, {"endless": [turn("hi")]}, url=url, limits=A2aLimits(stream=64 * 1024))
    error = runs["endless"].inference.error
    assert error is not None and "sent a stream larger than 65,536 bytes" in error


def test_an_answer_that_is_not_utf8_is_read_with_replacement_characters(tmp_repo: Path) -> None:
    with serving(raw_app(Raw(answer="bad-utf8"))) as url:
        runs = _run(tmp_repo, {"bytes": [turn("hi")]}, url=url)
    assert runs["bytes"].inference.error is None
    assert _answers(runs["bytes"]) == ["café \ufffd\ufffd tea"]


def test_a_redirect_to_another_host_is_refused_and_the_header_never_reaches_it(tmp_repo: Path) -> None:
    elsewhere = Raw()
    with serving(raw_app(elsewhere)) as other, serving(raw_app(Raw(answer="redirect", redirect_to=other))) as url:
        runs = _run(
            tmp_repo,
            {"moved": [turn("hi")]},
            url=url.replace("127.0.0.1", "localhost"),
            headers=["Authorization: Bearer ${TOKEN}"],
            env={"TOKEN": "s3cret-token"},
        )
    error = runs["moved"].inference.error
    assert error is not None and "with a redirect to 127.0.0.1" in error and "another host: not followed" in error
    assert elsewhere.seen == []


@pytest.mark.parametrize(
    ("card", "why"),
    [
        ({"hello": "world"}, "it has no name"),
        ("<html><body>Welcome</body></html>", "it is not JSON"),
        ({"name": "x", "description": "no way to reach it"}, "it names no interface"),
    ],
)
def test_a_card_that_is_not_an_a2a_card_is_one_clear_error(tmp_repo: Path, card: Any, why: str) -> None:
    with serving(raw_app(Raw(card=card))) as url:
        runs = _run(tmp_repo, {"one": [turn("hi")]}, url=url)
    error = runs["one"].inference.error
    assert error is not None and error.startswith(f"{url}/.well-known/agent-card.json is not an A2A agent card: {why}")
    assert "\n" not in error


def test_agent_header_values_are_sent_and_never_printed(tmp_repo: Path) -> None:
    raw = Raw()
    console = Console(in_actions=False)
    with serving(raw_app(raw)) as url:
        _run(
            tmp_repo,
            {"one": [turn("hi")]},
            url=url,
            headers=["Authorization: Bearer ${TOKEN}"],
            env={"TOKEN": "s3cret-token"},
            console=console,
        )
    assert all(seen["authorization"] == "Bearer s3cret-token" for seen in raw.seen)
    assert console.mask("the token s3cret-token") == "the token ***"


def test_the_user_simulator_drives_an_a2a_agent(booker: str, tmp_repo: Path) -> None:
    from google.adk.models.registry import LLMRegistry

    from tests.runners.scripted_model import ScriptedUser

    LLMRegistry.register(ScriptedUser)  # the user simulator runs here, the agent on the server
    (tmp_repo / "test_config.json").write_text(
        '{"criteria": {"response_match_score": 0.5}, "user_simulator_config": {"model": "scripted-user"}}',
        encoding="utf-8",
    )
    scenario = {"conversation_scenario": {"starting_prompt": "hello", "conversation_plan": "Ask for the plan."}}
    (tmp_repo / "remote.evalset.json").write_text(
        json.dumps({"eval_set_id": "remote", "eval_cases": [{"eval_id": "ask_plan", **scenario}]}), encoding="utf-8"
    )
    runs = _run(tmp_repo, None, url=booker)
    assert runs["ask_plan"].inference.error is None
    assert _answers(runs["ask_plan"]) == ["done\necho hello", "plan is silver"]


@pytest.mark.parametrize(("depth", "said"), [(5000, "sent JSON nested too deep to read"), (60, "Message too deep")])
def test_an_answer_nested_too_deep_is_one_line(tmp_repo: Path, depth: int, said: str) -> None:
    with serving(raw_app(Raw(answer="deep", depth=depth))) as url:
        runs = _run(tmp_repo, {"deep": [turn("hi")]}, url=url)
    error = runs["deep"].inference.error
    assert error is not None and said in error and "\n" not in error and not runs["deep"].inference.infrastructure


def test_a_nul_and_nested_data_are_kept_as_the_answers_text(tmp_repo: Path) -> None:
    with serving(raw_app(Raw(answer="deep", depth=30))) as url:
        runs = _run(tmp_repo, {"deep": [turn("hi")]}, url=url)
    assert runs["deep"].inference.error is None
    (answer,) = _answers(runs["deep"])
    assert answer.startswith("NUL\x00 here\n" + '{"a": ' * 30 + "1.0")

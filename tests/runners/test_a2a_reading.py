"""What the a2a runner reads of an A2A turn and of an agent card, from the protocol's JSON (no server): ADK's
events with their tool calls and usage, any other server's final answer, the states, and cards that are not
A2A's."""

from __future__ import annotations

from typing import Any

import pytest

from adk_eval_gate.runners.a2a_card import NotAnAgentCard, card_facts
from adk_eval_gate.runners.a2a_reading import TurnReader, genai_part, state_name
from adk_eval_gate.runners.a2a_transport import same_origin
from adk_eval_gate.runners.http_reading import AgentServerError
from adk_eval_gate.runners.invocations import to_invocations

CALL = {
    "data": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}},
    "metadata": {"adk_type": "function_call"},
}
ANSWER = {
    "data": {"id": "c1", "name": "get_weather", "response": {"temperature_c": 22.0}},
    "metadata": {"adk_type": "function_response"},
}
ADK_EVENT = {"adk_author": "weather_agent", "adk_invocation_id": "e-1"}


def _update(state: str, parts: list[dict[str, Any]] | None = None, **metadata: Any) -> dict[str, Any]:
    status: dict[str, Any] = {"state": f"TASK_STATE_{state}"}
    if parts is not None:
        status["message"] = {"message_id": "m", "role": "ROLE_AGENT", "parts": parts}
    return {"status_update": {"task_id": "t1", "context_id": "ctx", "status": status, "metadata": metadata}}


def test_adks_streamed_events_become_the_turns_tool_calls_answer_and_usage() -> None:
    reader = TurnReader(author="card_name")
    usage = {"promptTokenCount": 27.0, "candidatesTokenCount": 10.0, "totalTokenCount": 37.0}
    for response in [
        _update("WORKING", [CALL], **ADK_EVENT, adk_usage_metadata=usage),
        _update("WORKING", [ANSWER], **ADK_EVENT),
        _update("WORKING", [{"text": "Sunny, 22 C."}], **ADK_EVENT),
        {"artifact_update": {"task_id": "t1", "artifact": {"artifact_id": "a", "parts": [{"text": "Sunny, 22 C."}]}}},
        _update("COMPLETED", None, **ADK_EVENT),
    ]:
        reader.add(response)
    read = reader.read("turn-1")
    assert (read.state, read.task_id, read.context_id, read.tools_seen) == ("completed", "t1", "ctx", True)
    assert [event.author for event in read.events] == ["weather_agent"] * 3
    (invocation,) = to_invocations(read.events)
    assert invocation.final_response is not None and invocation.final_response.parts[0].text == "Sunny, 22 C."
    events = invocation.intermediate_data.invocation_events  # type: ignore[union-attr]
    calls = [part.function_call for event in events if event.content for part in event.content.parts or []]
    (call,) = [call for call in calls if call]
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
    assert events[0].usage_metadata is not None and events[0].usage_metadata.prompt_token_count == 27


def test_another_servers_answer_is_its_final_status_message_and_artifacts_and_its_tools_are_unseen() -> None:
    reader = TurnReader(author="booker")
    reader.add(_update("WORKING", [{"text": "thinking"}]))
    reader.add({"artifact_update": {"artifact": {"artifact_id": "a", "parts": [{"text": "part one"}]}}})
    reader.add({"artifact_update": {"artifact": {"artifact_id": "a", "parts": [{"text": " two"}]}, "append": True}})
    reader.add(_update("COMPLETED", [{"text": "done"}]))
    read = reader.read("turn-1")
    assert not read.tools_seen
    (event,) = read.events
    assert event.author == "booker"
    assert [part.text for part in event.parts()] == ["done", "part one", " two"]


def test_a_task_without_streaming_is_read_from_its_history() -> None:
    reader = TurnReader(author="x")
    history = [
        {"role": "ROLE_USER", "parts": [{"text": "weather?"}]},
        {"role": "ROLE_AGENT", "parts": [CALL]},
        {"role": "ROLE_AGENT", "parts": [{"text": "Sunny."}]},
    ]
    reader.add(
        {"task": {"id": "t", "context_id": "c", "status": {"state": "TASK_STATE_COMPLETED"}, "history": history}}
    )
    read = reader.read("turn-1")
    assert read.tools_seen and len(read.events) == 2


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("TASK_STATE_INPUT_REQUIRED", "input-required"),
        ("TASK_STATE_AUTH_REQUIRED", "auth-required"),
        (None, "unspecified"),
    ],
)
def test_states_are_named_as_the_protocol_writes_them(raw: str | None, name: str) -> None:
    assert state_name({"state": raw} if raw else None) == name


def test_a_message_answer_and_the_question_of_input_required() -> None:
    reader = TurnReader(author="x")
    reader.add({"message": {"context_id": "c9", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}})
    assert (reader.read("t").state, reader.read("t").context_id) == ("completed", "c9")
    asking = TurnReader(author="x")
    asking.add(_update("INPUT_REQUIRED", [{"text": "For  which\nday?"}]))
    assert (asking.read("t").state, asking.read("t").status_text) == ("input-required", "For which day?")


def test_parts_that_are_not_adks_calls_are_kept_as_text() -> None:
    malformed = {"data": {"args": "not a call"}, "metadata": {"adk_type": "function_call"}}
    assert genai_part(malformed).text == '{"args": "not a call"}'  # type: ignore[union-attr]
    assert genai_part({"data": {"b": 1, "a": [1]}}).text == '{"a": [1], "b": 1}'  # type: ignore[union-attr]
    assert genai_part({"raw": "not base64!"}) is None
    assert genai_part({"url": "https://example.com/f.pdf", "media_type": "application/pdf"}).file_data is not None  # type: ignore[union-attr]
    assert genai_part({}) is None


CARD = {
    "name": "booker",
    "version": "2.1.0",
    "supportedInterfaces": [
        {"url": "http://localhost:8000/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ],
    "capabilities": {"streaming": True},
    "skills": [{"id": "book", "name": "book", "description": "books", "tags": []}],
}


def test_a_card_is_checked_and_its_interfaces_stay_on_the_agent_urls_host() -> None:
    facts = card_facts(CARD, url="u", agent_url="https://agent.example:9443")
    assert (facts.name, facts.version, facts.streaming, facts.skills) == ("booker", "2.1.0", True, ("book",))
    assert facts.card.supported_interfaces[0].url == "https://agent.example:9443/rpc"
    assert same_origin("http://127.0.0.1:1/x", base="http://127.0.0.1:1") == "http://127.0.0.1:1/x"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ([1, 2], "it is JSON list, not an object"),
        ({"name": "  "}, "it has no name"),
        ({"name": "x"}, "it names no interface"),
        ({"name": "x", "supportedInterfaces": "nope"}, ""),
    ],
)
def test_a_document_that_is_not_a_card_is_one_line_naming_it(data: Any, why: str) -> None:
    with pytest.raises(NotAnAgentCard) as raised:
        card_facts(data, url="http://h/.well-known/agent-card.json", agent_url="http://h")
    line = raised.value.one_line()
    assert line.startswith(f"http://h/.well-known/agent-card.json is not an A2A agent card: {why}") and "\n" not in line


def test_a_card_without_a_transport_the_runner_speaks_says_which_it_offers() -> None:
    other = {**CARD, "supportedInterfaces": [{"url": "ws://h:1", "protocolBinding": "WEBSOCKET"}]}
    with pytest.raises(AgentServerError, match="offers the transports WEBSOCKET; the a2a runner speaks JSONRPC and"):
        card_facts(other, url="u", agent_url="http://h")


def test_a_card_offering_only_grpc_says_to_serve_json_rpc_or_http_json() -> None:
    grpc = {**CARD, "supportedInterfaces": [{"url": "grpc://h:1", "protocolBinding": "GRPC"}]}
    with pytest.raises(AgentServerError) as raised:
        card_facts(grpc, url="u", agent_url="http://h")
    assert raised.value.one_line() == (
        "the agent card at u offers only gRPC, which the a2a runner does not support; serve JSONRPC or HTTP+JSON as "
        "well (a2a-sdk's servers offer them beside gRPC)"
    )


def test_a_card_offering_grpc_beside_json_rpc_is_reached_over_json_rpc() -> None:
    both = [{"url": "grpc://h:1", "protocolBinding": "GRPC"}, {"url": "http://h/rpc", "protocolBinding": "JSONRPC"}]
    facts = card_facts({**CARD, "supportedInterfaces": both}, url="u", agent_url="http://h")
    assert facts.bindings == ("GRPC", "JSONRPC")


def test_without_a2a_sdk_the_runner_is_a_usage_error_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from adk_eval_gate.config.settings import build_settings
    from adk_eval_gate.runners.a2a import A2aRunner
    from adk_eval_gate.support.errors import UsageError

    settings = build_settings("run", {"runner": "a2a", "agent_url": "http://127.0.0.1:1"}, env={})
    monkeypatch.setitem(sys.modules, "a2a", None)  # as if a2a-sdk were not installed
    monkeypatch.delitem(sys.modules, "a2a.client", raising=False)
    with pytest.raises(UsageError) as raised:
        A2aRunner(settings)
    assert raised.value.one_line().startswith("--runner: the a2a runner needs a2a-sdk, which cannot be imported")
    assert "pip install 'adk-eval-gate[a2a]'" in raised.value.one_line()

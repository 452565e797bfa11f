"""Events to actual invocations: our converter gives exactly what ADK's own converter gives."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.runners import InMemoryRunner
from google.genai import types

from adk_eval_gate.runners.invocations import from_adk_event, from_api_json, to_invocations

REPO = Path(__file__).resolve().parents[2]


def _text(text: str, role: str = "model") -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


def _call(name: str) -> types.Content:
    return types.Content(
        role="model", parts=[types.Part(function_call=types.FunctionCall(name=name, args={}, id="c1"))]
    )


def _response(name: str) -> types.Content:
    part = types.Part(function_response=types.FunctionResponse(name=name, response={"ok": True}, id="c1"))
    return types.Content(role="user", parts=[part])


def _edge_case_events() -> list[Event]:
    """Every branch of ADK's rules: finals with and without text, partials, errors, grounding, code results."""
    grounding = types.GroundingMetadata(web_search_queries=["weather"])
    usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=5, candidates_token_count=2)
    code_result = types.Part(
        code_execution_result=types.CodeExecutionResult(outcome=types.Outcome.OUTCOME_OK, output="4")
    )
    return [
        Event(author="user", invocation_id="i1", content=_text("first question", "user")),
        Event(author="agent_a", invocation_id="i1", content=_call("lookup"), usage_metadata=usage, model_version="m"),
        Event(author="agent_a", invocation_id="i1", content=_response("lookup")),
        Event(author="agent_a", invocation_id="i1", content=_text("partial..."), partial=True),
        Event(author="agent_a", invocation_id="i1", content=_text("the answer"), usage_metadata=usage),
        Event(
            author="agent_a",
            invocation_id="i1",
            content=types.Content(role="model", parts=[types.Part(inline_data=types.Blob(mime_type="x/y", data=b"1"))]),
        ),
        Event(author="agent_a", invocation_id="i1", grounding_metadata=grounding),
        Event(author="USER", invocation_id="i2", content=_text("second", "user")),
        Event(author="agent_b", invocation_id="i2", content=_text("quota!"), error_code="RESOURCE_EXHAUSTED"),
        Event(author="agent_b", invocation_id="i2", content=_call("slow_tool"), long_running_tool_ids={"c1"}),
        Event(author="agent_b", invocation_id="i2", content=types.Content(role="model", parts=[code_result])),
        Event(
            author="agent_b",
            invocation_id="i2",
            content=_response("summarized"),
            actions=EventActions(skip_summarization=True),
        ),
        Event(author="agent_c", invocation_id="i3", content=_text("no user event in this one")),
        Event(author="agent_c", invocation_id="i3", content=types.Content(role="model", parts=[])),
    ]


def _dump(invocations: list[Any]) -> list[dict[str, Any]]:
    return [invocation.model_dump(mode="json", exclude_none=True) for invocation in invocations]


def test_edge_cases_match_adks_converter() -> None:
    events = _edge_case_events()
    expected = EvaluationGenerator.convert_events_to_eval_invocations(events)
    actual = to_invocations([from_adk_event(event) for event in events])
    assert _dump(actual) == _dump(expected)
    assert actual[0].final_response is not None and actual[0].final_response.parts[0].text == "the answer"


def test_api_server_json_gives_the_same_invocations_as_the_events() -> None:
    events = _edge_case_events()
    as_json = [event.model_dump(mode="json", exclude_none=True, by_alias=True) for event in events]
    from_json = to_invocations([from_api_json(data) for data in as_json])
    from_objects = to_invocations([from_adk_event(event) for event in events])
    assert _dump(from_json) == _dump(from_objects)


def test_unknown_keys_from_a_newer_server_are_dropped_not_fatal() -> None:
    data = {
        "author": "a",
        "invocationId": "i",
        "content": {"role": "model", "parts": [{"text": "hi", "brandNewField": 1}], "alsoNew": True},
    }
    event = from_api_json(data)
    assert event.content is not None and event.content.parts is not None and event.content.parts[0].text == "hi"


# the helpdesk agent runs three agents over several turns: over a second of CPU (the weather agent stays fast)
@pytest.mark.parametrize("agent", [pytest.param("helpdesk_agent", marks=pytest.mark.slow), "weather_agent"])
def test_real_multi_agent_runs_convert_like_adk(agent: str) -> None:
    sys.path.insert(0, str(REPO / "examples"))
    try:
        module = __import__(f"{agent}.agent", fromlist=["root_agent"])
    finally:
        sys.path.remove(str(REPO / "examples"))

    async def run() -> list[Event]:
        runner = InMemoryRunner(agent=module.root_agent, app_name=agent)
        session = await runner.session_service.create_session(app_name=agent, user_id="u", state={"plan": "pro"})
        events: list[Event] = []
        for text in ("Is invoice INV-1001 paid?", "Is the vpn slow?", "weather in Paris and London", "thanks"):
            message = _text(text, "user")
            first = True
            async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
                if first:
                    events.append(Event(author="user", invocation_id=event.invocation_id, content=message))
                    first = False
                events.append(event)
        return events

    events = asyncio.run(run())
    expected = EvaluationGenerator.convert_events_to_eval_invocations(events)
    actual = to_invocations([from_adk_event(event) for event in events])
    assert len(actual) == 4
    assert _dump(actual) == _dump(expected)

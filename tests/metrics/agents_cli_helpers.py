"""Shared pieces of the agents-cli metric tests: a dataset case as the loader makes it, and a run of it."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_eval_gate.metrics.metric import CaseRun
from adk_eval_gate.model import platform_cases as pc
from adk_eval_gate.model.evalset import (
    AgentDetails,
    AppDetails,
    EvalCase,
    Invocation,
    InvocationEvent,
    InvocationEvents,
)


def text(value: str, role: str = "user") -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=value)])


def dataset_case(data: dict[str, Any], eval_id: str = "case") -> EvalCase:
    """A gate case made of a dataset case, as ``inputs/platform_dataset.py`` makes it."""
    platform = pc.PlatformEvalCase.model_validate(data)
    user = platform.prompt or pc.trace_events(platform)[-1].content
    assert user is not None
    reference = platform.reference.response if platform.reference else None  # the expected answer, as loaded
    return EvalCase(
        eval_id=eval_id,
        conversation=[Invocation(user_content=user, final_response=reference)],
        **{pc.CASE_KEY: platform.model_dump(mode="json", exclude_none=True)},
    )


def answered(user: str, answer: str, *, calls: int = 1) -> Invocation:
    """A turn as the adk runner records it: tool calls and responses, then the final answer (its event kept with no
    content), the agent's instruction and tools."""
    events = []
    for index in range(calls):
        call = types.FunctionCall(name="lookup", args={"n": index}, id=f"c{index}")
        response = types.FunctionResponse(name="lookup", response={"ok": index}, id=f"c{index}")
        events += [
            InvocationEvent(author="bot", content=types.Content(role="model", parts=[types.Part(function_call=call)])),
            InvocationEvent(
                author="bot", content=types.Content(role="user", parts=[types.Part(function_response=response)])
            ),
        ]
    events.append(InvocationEvent(author="bot", content=None))
    tool = types.Tool(function_declarations=[types.FunctionDeclaration(name="lookup", description="Looks up.")])
    return Invocation(
        user_content=text(user),
        final_response=text(answer, "model"),
        intermediate_data=InvocationEvents(invocation_events=events),
        app_details=AppDetails(
            agent_details={"bot": AgentDetails(name="bot", instructions="Answer well.", tool_declarations=[tool])}
        ),
    )


def run_of(case: EvalCase, actual: list[Invocation]) -> CaseRun:
    return CaseRun(eval_case=case, actual=actual, expected=case.conversation, scenario=None)

"""What the judge is shown about an invocation: texts, tool calls and responses, tool declarations,
developer instructions, grounding metadata and whole dialogues, rendered as plain text or JSON.

These carry the same information ADK's judges receive (spec 3.5-3.11), rendered by our own code.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.model.evalset import (
    AgentDetails,
    AppDetails,
    IntermediateData,
    IntermediateDataType,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    content_text,
    tool_calls_with_responses,
)

NO_TOOLS = "Agent has no tools."
NO_STEPS = "No intermediate steps were taken."
NO_GROUNDING = "No grounding metadata was provided."


def _plain(value: Any) -> Any:
    """JSON-ready data from pydantic models (google-genai types), dicts and lists, without nulls.

    A tool call's and a tool response's ``id`` is left out: ADK makes a new one (``adk-<uuid>``) for every run,
    it means nothing to the judge, and in the prompt it would make every rerun miss the judge cache.
    """
    if isinstance(value, genai_types.FunctionCall | genai_types.FunctionResponse):
        return value.model_dump(mode="json", exclude_none=True, exclude={"id"})
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def to_json(value: Any) -> str:
    return json.dumps(_plain(value), indent=2, ensure_ascii=False, default=str)


def response_text(invocation: Invocation, *, include_intermediate: bool) -> str:
    """The final response text; with ``include_intermediate``, every earlier text of the turn first."""
    if not include_intermediate:
        return content_text(invocation.final_response)
    texts: list[str] = []
    data = invocation.intermediate_data
    if isinstance(data, InvocationEvents):
        texts = [text for event in data.invocation_events if (text := content_text(event.content))]
    elif isinstance(data, IntermediateData):
        for _author, parts in data.intermediate_responses:
            text = "\n".join(part.text for part in parts if part.text)
            if text:
                texts.append(text)
    final = content_text(invocation.final_response)
    if final:
        texts.append(final)
    return "\n".join(texts)


def _events(invocation: Invocation) -> list[InvocationEvent]:
    data = invocation.intermediate_data
    return list(data.invocation_events) if isinstance(data, InvocationEvents) else []


def _responding_agent(invocation: Invocation) -> str | None:
    """The author of the turn's first event, else the first agent of the app."""
    events = _events(invocation)
    if events:
        return events[0].author
    if invocation.app_details and invocation.app_details.agent_details:
        return next(iter(invocation.app_details.agent_details))
    return None


def developer_instructions(invocation: Invocation) -> str:
    details = invocation.app_details
    agent = _responding_agent(invocation)
    if details is None or agent is None or agent not in details.agent_details:
        return ""
    return details.agent_details[agent].instructions


def tool_declarations(app_details: AppDetails | None) -> str:
    if app_details is None:
        return NO_TOOLS
    by_agent = {name: agent.tool_declarations for name, agent in app_details.agent_details.items()}
    return to_json({"tool_declarations": by_agent})


def tool_steps(intermediate_data: IntermediateDataType | None) -> str:
    pairs = tool_calls_with_responses(intermediate_data)
    if not pairs:
        return NO_STEPS
    steps = [
        {"step": index, "tool_call": _plain(call), "tool_response": _plain(response) if response else "None"}
        for index, (call, response) in enumerate(pairs)
    ]
    return to_json({"tool_calls_and_responses": steps})


def grounding(events: list[InvocationEvent]) -> str:
    entries = [
        {"step": index, "author": event.author, "grounding_metadata": _plain(event.grounding_metadata)}
        for index, event in enumerate(events)
        if event.grounding_metadata
    ]
    return to_json({"grounding_metadata": entries}) if entries else NO_GROUNDING


def invocation_grounding(invocation: Invocation) -> str:
    return grounding(_events(invocation))


def _function_names(tool: Any) -> list[tuple[str, str]]:
    """(name, description) of a tool declaration given as a genai ``Tool`` or as its JSON."""
    data = _plain(tool)
    if not isinstance(data, dict):
        return []
    declarations = data.get("function_declarations") or data.get("functionDeclarations") or []
    return [
        (str(d.get("name", "")), str(d.get("description", "") or ""))
        for d in declarations
        if isinstance(d, dict) and d.get("name")
    ]


def agents_of(invocations: Iterable[Invocation]) -> Iterator[tuple[str, AgentDetails]]:
    """The agents of each turn's app details (name and details), in order, repeats included."""
    for invocation in invocations:
        if invocation.app_details:
            yield from invocation.app_details.agent_details.items()


def all_agent_instructions(invocations: list[Invocation]) -> str:
    blocks: dict[str, None] = {}  # unique, in order
    for name, agent in agents_of(invocations):
        blocks[f"Agent {name} instructions:\n{agent.instructions}"] = None
    return "\n\n".join(blocks)


def all_agent_tools(invocations: list[Invocation]) -> str:
    lines: dict[str, None] = {}
    for name, agent in agents_of(invocations):
        lines[f"Agent: {name}"] = None
        for tool in agent.tool_declarations:
            for function, description in _function_names(tool):
                lines[f"- {function}: {description}"] = None
    return "\n".join(lines)


def _args_json(value: Any) -> str:
    return json.dumps(_plain(value), ensure_ascii=False, default=str) if value else "{}"


def dialogue(invocations: list[Invocation]) -> str:
    """The conversation as numbered lines: user turns, agent texts, tool calls and tool outputs."""
    lines: list[str] = []
    for turn, invocation in enumerate(invocations, start=1):
        user = " ".join(p.text for p in invocation.user_content.parts or [] if p.text)
        if user:
            lines.append(f"USER TURN {turn}: {user}")
        for event in _events(invocation):
            role = "USER" if event.author.lower() == "user" else f"AGENT ({event.author})"
            parts = event.content.parts if event.content and event.content.parts else []
            text = " ".join(p.text for p in parts if p.text)
            if text:
                lines.append(f"{role} TURN {turn}: {text}")
            for part in parts:
                if part.function_call:
                    call = part.function_call
                    lines.append(f"{role} TURN {turn} (tool call): {call.name}({_args_json(call.args)})")
                if part.function_response:
                    response = part.function_response
                    lines.append(
                        f"{role} TURN {turn} (tool output): {response.name} -> {_args_json(response.response)}"
                    )
        final = invocation.final_response
        if final and final.parts:
            text = " ".join(p.text for p in final.parts if p.text)
            if text:
                lines.append(f"AGENT ({_responding_agent(invocation) or 'agent'}) TURN {turn}: {text}")
    return "\n".join(lines)


def _hallucination_context(invocation: Invocation, events: list[InvocationEvent]) -> str:
    """What a sentence may rest on: instructions, the user's prompt, tools, grounding, and earlier events."""
    instructions = ""
    declarations = NO_TOOLS
    details = invocation.app_details
    if details:
        instructions = "\n\n".join(
            f"{name}:\n{agent.instructions}" for name, agent in details.agent_details.items() if agent.instructions
        )
        declarations = tool_declarations(details)
    blocks = [
        f"Developer instructions:\n{instructions}\n",
        f"User prompt:\n{content_text(invocation.user_content)}\n",
        f"Tool definitions:\n{declarations}\n",
        f"Grounding metadata:\n{grounding(events)}\n",
    ]
    for event in events:
        parts = event.content.parts if event.content and event.content.parts else []
        texts = [p.text for p in parts if p.text]
        calls = [_plain(p.function_call) for p in parts if p.function_call]
        outputs = [_plain(p.function_response) for p in parts if p.function_response]
        if texts:
            blocks.append("\n".join(texts) + "\n")
        if calls:
            blocks.append("tool_calls:\n" + json.dumps(calls, indent=2, ensure_ascii=False, default=str) + "\n")
        if outputs:
            blocks.append("tool_outputs:\n" + json.dumps(outputs, indent=2, ensure_ascii=False, default=str) + "\n")
    return "\n".join(blocks)


def hallucination_steps(invocation: Invocation, *, intermediate: bool) -> list[tuple[str, str]]:
    """(text to check, its context) for one invocation, in order; the final response last (ADK's steps)."""
    steps: list[tuple[str, str]] = []
    all_events = _events(invocation)
    seen: list[InvocationEvent] = []
    if intermediate:
        for event in all_events:
            parts = event.content.parts if event.content and event.content.parts else []
            texts = [p.text for p in parts if p.text]
            if texts:
                # a grounded event's metadata is context for its own text, but the text itself is not
                context_events = (
                    [*seen, event.model_copy(update={"content": None})] if event.grounding_metadata else seen
                )
                context = _hallucination_context(invocation, context_events)
                steps.extend((text, context) for text in texts)
            seen.append(event)
    else:
        seen = all_events
    final = content_text(invocation.final_response)
    if final:
        steps.append((final, _hallucination_context(invocation, seen)))
    return steps

"""From agent events to actual invocations, with ADK 2.13's rules (spec 5.4), for every runner that runs an agent.

The in-process runner gets ADK ``Event`` objects, the http runner gets their JSON from an ``api_server``; both
become ``AgentEvent`` here, so one function decides the final response, the kept intermediate events and the
timings. Nothing in this module imports google-adk.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.model.evalset import AppDetails, Invocation, InvocationEvent, InvocationEvents

USER_AUTHOR = "user"
_DEFAULT_AUTHOR = "agent"


@dataclass
class AgentEvent:
    """What the conversion needs of one ADK event."""

    author: str
    invocation_id: str
    content: genai_types.Content | None = None
    partial: bool = False
    skip_summarization: bool = False
    long_running_tool_ids: frozenset[str] = frozenset()
    error_code: str | None = None
    grounding_metadata: genai_types.GroundingMetadata | None = None
    usage_metadata: genai_types.GenerateContentResponseUsageMetadata | None = None
    model_version: str | None = None
    timestamp: float = field(default_factory=time.time)

    def parts(self) -> list[genai_types.Part]:
        return list(self.content.parts or []) if self.content else []

    def function_calls(self) -> list[genai_types.FunctionCall]:
        return [part.function_call for part in self.parts() if part.function_call]

    def is_final_response(self) -> bool:
        """ADK's ``Event.is_final_response``."""
        if self.skip_summarization or self.long_running_tool_ids:
            return True
        if self.error_code and not self.partial and not self.function_calls():
            return True
        parts = self.parts()
        return (
            not self.function_calls()
            and not any(part.function_response for part in parts)
            and not self.partial
            and not (parts and parts[-1].code_execution_result is not None)
        )


@dataclass(frozen=True)
class TurnTiming:
    """Seconds one turn took, and of that the time awaiting a model and inside tools (rounded to ms)."""

    duration: float | None = None
    model_duration: float | None = None
    tool_duration: float | None = None


def user_event(content: genai_types.Content, invocation_id: str) -> AgentEvent:
    """The synthetic user event ADK puts before the agent's events of a turn."""
    return AgentEvent(author=USER_AUTHOR, invocation_id=invocation_id, content=content)


def from_adk_event(event: Any) -> AgentEvent:
    """An ``google.adk.events.Event`` (read by attribute, so this module needs no ADK import)."""
    actions = getattr(event, "actions", None)
    return AgentEvent(
        author=event.author or "",
        invocation_id=event.invocation_id or "",
        content=event.content,
        partial=bool(event.partial),
        skip_summarization=bool(actions and actions.skip_summarization),
        long_running_tool_ids=frozenset(event.long_running_tool_ids or ()),
        error_code=event.error_code,
        grounding_metadata=event.grounding_metadata,
        usage_metadata=event.usage_metadata,
        model_version=event.model_version,
        timestamp=event.timestamp,
    )


def _get(data: Mapping[str, Any], snake: str) -> Any:
    head, *rest = snake.split("_")
    camel = head + "".join(word.title() for word in rest)
    return data[camel] if camel in data else data.get(snake)


Model = TypeVar("Model", bound=pydantic.BaseModel)


def _known_keys(model: type[pydantic.BaseModel], data: Any) -> Any:
    """``data`` without the keys ``model`` does not know (a newer server may send fields this genai lacks)."""
    if not isinstance(data, dict):
        return data
    known: dict[str, pydantic.fields.FieldInfo] = {}
    for name, info in model.model_fields.items():
        known[name] = info
        if info.alias:
            known[info.alias] = info
    kept: dict[str, Any] = {}
    for key, value in data.items():
        field_info = known.get(key)
        if field_info is None:
            continue
        kept[key] = value
        nested = _model_of(field_info.annotation)
        if nested is not None:
            if isinstance(value, list):
                kept[key] = [_known_keys(nested, item) for item in value]
            else:
                kept[key] = _known_keys(nested, value)
    return kept


def _model_of(annotation: Any) -> type[pydantic.BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _parse(model: type[Model], data: Any) -> Model | None:
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except pydantic.ValidationError:
        return model.model_validate(_known_keys(model, data))


def from_api_json(data: Mapping[str, Any]) -> AgentEvent:
    """An event as ``adk api_server`` returns it (camelCase; snake_case is accepted too)."""
    actions = _get(data, "actions") or {}
    timestamp = _get(data, "timestamp")
    return AgentEvent(
        author=str(_get(data, "author") or ""),
        invocation_id=str(_get(data, "invocation_id") or ""),
        content=_parse(genai_types.Content, _get(data, "content")),
        partial=bool(_get(data, "partial")),
        skip_summarization=bool(_get(actions, "skip_summarization")),
        long_running_tool_ids=frozenset(_get(data, "long_running_tool_ids") or ()),
        error_code=_get(data, "error_code"),
        grounding_metadata=_parse(genai_types.GroundingMetadata, _get(data, "grounding_metadata")),
        usage_metadata=_parse(genai_types.GenerateContentResponseUsageMetadata, _get(data, "usage_metadata")),
        model_version=_get(data, "model_version"),
        timestamp=float(timestamp) if isinstance(timestamp, (int, float)) else time.time(),
    )


def _group_by_invocation(events: list[AgentEvent]) -> dict[str, list[AgentEvent]]:
    groups: dict[str, list[AgentEvent]] = {}
    for event in events:
        groups.setdefault(event.invocation_id, []).append(event)
    return groups


def _has_text(content: genai_types.Content | None) -> bool:
    return content is not None and any(part.text for part in content.parts or [])


def _worth_keeping(event: AgentEvent) -> bool:
    if event.grounding_metadata is not None:
        return True
    return any(part.function_call or part.function_response or part.text or part.inline_data for part in event.parts())


def to_invocations(
    events: list[AgentEvent],
    *,
    timings: Mapping[str, TurnTiming] | None = None,
    app_details: Mapping[str, AppDetails] | None = None,
) -> list[Invocation]:
    """One invocation per invocation id, in order of first appearance (ADK's ``convert_events_to_eval_invocations``).

    The final response is the last final-response event with content, except that one without text never
    replaces one with text. Kept events are those with a function call or response, text, inline data or
    grounding metadata; the final-response event is kept with ``content: null`` (unless it calls a function)
    so its text is not counted twice.
    """
    invocations = []
    for invocation_id, group in _group_by_invocation(events).items():
        user_content = genai_types.Content(parts=[])
        created = 0.0
        final_response: genai_types.Content | None = None
        final_event: AgentEvent | None = None
        kept: list[AgentEvent] = []
        for event in group:
            if (event.author or _DEFAULT_AUTHOR).lower() == USER_AUTHOR:
                if event.content is not None:
                    user_content = event.content
                    created = event.timestamp
                continue
            if event.content and event.content.parts:
                if event.is_final_response() and (not _has_text(final_response) or _has_text(event.content)):
                    final_response = event.content
                    final_event = event
                if _worth_keeping(event):
                    kept.append(event)
            elif event.grounding_metadata is not None:
                kept.append(event)
        timing = (timings or {}).get(invocation_id, TurnTiming())
        invocations.append(
            Invocation(
                invocation_id=invocation_id,
                user_content=user_content,
                final_response=final_response,
                intermediate_data=InvocationEvents(
                    invocation_events=[
                        InvocationEvent(
                            author=event.author,
                            content=event.content if event is not final_event or event.function_calls() else None,
                            grounding_metadata=event.grounding_metadata,
                            usage_metadata=event.usage_metadata,
                            model_version=event.model_version,
                        )
                        for event in kept
                    ]
                ),
                creation_timestamp=created,
                duration=timing.duration,
                model_duration=timing.model_duration,
                tool_duration=timing.tool_duration,
                app_details=(app_details or {}).get(invocation_id),
            )
        )
    return invocations

"""The Agent Platform evaluation SDK's ``EvaluationDataset`` (``agentplatform.types``, google-cloud-aiplatform 2.7): the
``*-dataset.json`` files agents-cli 0.3 and later scaffold (``tests/eval/datasets/``) and the traces it writes.

The models have the SDK's field names, aliases (camelCase accepted), and the SDK's rule on unknown keys (an
``EvalCase`` keeps them: they are the custom fields a metric reads; everything below it refuses them), so a file the
SDK loads loads here with the same content, and ``model_dump(mode="json", exclude_none=True)`` gives what the SDK's
gives (``tests/model/test_platform_cases.py`` checks both against the SDK itself). The SDK is not imported: it
takes seconds and pandas.

What a case means to the gate (``case_shape``): a ``prompt``, or ``agent_data.turns`` whose last event is the user's
(the earlier events are the conversation so far), is run through the agent; a case with ``responses``, or whose
trace goes on after its last user event, is scored as recorded.
"""

from __future__ import annotations

import datetime
import enum
from typing import Any, Literal

import pydantic
from google.genai import types as genai_types
from pydantic import alias_generators

USER_AUTHOR = "user"


class PlatformModel(pydantic.BaseModel):
    """The SDK's ``_common.BaseModel``: camelCase aliases, snake_case names, unknown keys refused."""

    model_config = pydantic.ConfigDict(
        defer_build=True,
        alias_generator=alias_generators.to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
    )


class AgentConfig(PlatformModel):
    agent_id: str | None = None
    agent_type: str | None = None
    description: str | None = None
    instruction: str | None = None
    tools: list[genai_types.Tool] | None = None
    sub_agents: list[str] | None = None


class AgentEvent(PlatformModel):
    author: str | None = None
    content: genai_types.Content | None = None
    event_time: datetime.datetime | None = None
    state_delta: dict[str, Any] | None = None
    active_tools: list[genai_types.Tool] | None = None


class ConversationTurn(PlatformModel):
    turn_index: int | None = None
    turn_id: str | None = None
    events: list[AgentEvent] | None = None


class AgentData(PlatformModel):
    agents: dict[str, AgentConfig] | None = None
    turns: list[ConversationTurn] | None = None


class ResponseCandidate(PlatformModel):
    response: genai_types.Content | None = None


class Importance(enum.Enum):
    IMPORTANCE_UNSPECIFIED = "IMPORTANCE_UNSPECIFIED"
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class RubricContentProperty(PlatformModel):
    description: str | None = None


class RubricContent(PlatformModel):
    property: RubricContentProperty | None = None


class Rubric(PlatformModel):
    rubric_id: str | None = None
    content: RubricContent | None = None
    type: str | None = None
    importance: Importance | None = None


class RubricGroup(PlatformModel):
    group_id: str | None = None
    display_name: str | None = None
    rubrics: list[Rubric] | None = None


class Message(PlatformModel):
    turn_id: str | None = None
    content: genai_types.Content | None = None
    creation_timestamp: datetime.datetime | None = None
    author: str | None = None


class Event(PlatformModel):
    event_id: str | None = None
    content: genai_types.Content | None = None
    creation_timestamp: datetime.datetime | None = None
    author: str | None = None


class AgentInfo(PlatformModel):
    name: str | None = None
    agents: dict[str, AgentConfig] | None = None
    root_agent_id: str | None = None


class UserScenario(PlatformModel):
    starting_prompt: str | None = None
    conversation_plan: str | None = None
    test_case_title: str | None = None


class PlatformEvalCase(PlatformModel):
    """The SDK's ``EvalCase``; keys it does not know are kept (``context``, custom fields)."""

    model_config = pydantic.ConfigDict(extra="allow")

    prompt: genai_types.Content | None = None
    responses: list[ResponseCandidate] | None = None
    reference: ResponseCandidate | None = None
    system_instruction: genai_types.Content | None = None
    conversation_history: list[Message] | None = None
    rubric_groups: dict[str, RubricGroup] | None = None
    eval_case_id: str | None = None
    intermediate_events: list[Event] | None = None
    agent_info: AgentInfo | None = None
    agent_data: AgentData | None = None
    user_scenario: UserScenario | None = None
    interactions_data_source: dict[str, Any] | None = None  # a Gemini agent's interaction: never run by the gate


class EvaluationDataset(PlatformModel):
    """The SDK's ``EvaluationDataset`` as a JSON file holds it (its sources in Cloud Storage or BigQuery and its
    DataFrame are read by the SDK only)."""

    eval_cases: list[PlatformEvalCase] | None = None
    candidate_name: str | None = None
    gcs_source: dict[str, Any] | None = None
    bigquery_source: dict[str, Any] | None = None


# ---------------------------------------------------------------------------------------------------------
# What a case is: run through the agent, or recorded


CaseShape = Literal["prompt", "continued", "recorded"]


def trace_events(case: PlatformEvalCase) -> list[AgentEvent]:
    """Every event of the case's ``agent_data.turns``, in order."""
    turns = case.agent_data.turns if case.agent_data and case.agent_data.turns else []
    return [event for turn in turns for event in turn.events or []]


def case_shape(case: PlatformEvalCase) -> CaseShape | str:
    """``prompt``: run the prompt; ``continued``: run the last user event after the earlier ones; ``recorded``:
    score the case's ``responses`` or trace as they are. Anything else is why the case cannot be used (one line,
    as agents-cli's ``split_case_history`` refuses it)."""
    events = trace_events(case)
    if case.responses:
        return "recorded"
    if case.prompt is not None and events:
        return "has both prompt and agent_data.turns, so it is not clear which to send: keep one of them"
    if case.prompt is not None:
        return "prompt"
    if not events and case.user_scenario is not None:
        return (
            "has only a user_scenario, which agents-cli's eval generate does not run either: give a prompt, or migrate "
            "the file to an eval set, where the gate simulates the user"
        )
    if not events:
        return "has neither a prompt nor agent_data.turns: give the user's message as prompt"
    if events[-1].author == USER_AUTHOR:
        if events[-1].content is None:
            return "the last event of agent_data.turns is the user's but has no content to send"
        return "continued"
    if any(event.author == USER_AUTHOR for event in events):
        return "recorded"
    return "agent_data.turns has no user event: add the user's message"


def text_of(content: genai_types.Content | None) -> str | None:
    """The SDK's ``_extract_text_from_content``: the text parts joined (thoughts left out), None when there is no text
    part."""
    if content is None or not content.parts:
        return None
    texts = [part.text for part in content.parts if isinstance(part.text, str) and not part.thought]
    return "".join(texts) if texts else None


def final_response_of(events: list[AgentEvent]) -> genai_types.Content | None:
    """agents-cli's ``final_response_content_from_events``: the texts of the last event that has text, joined, as a
    model content."""
    for event in reversed(events):
        if event.content is None or not event.content.parts:
            continue
        texts = [part.text for part in event.content.parts if part.text]
        if texts:
            return genai_types.Content(
                role=event.content.role or "model", parts=[genai_types.Part(text="".join(texts))]
            )
    return None


# ---------------------------------------------------------------------------------------------------------
# The case a gate eval case came from


CASE_KEY = "agent_platform_case"  # the key of the gate's EvalCase that keeps the dataset's case (JSON)


def platform_case_of(case: Any) -> PlatformEvalCase | None:
    """The dataset case a gate ``EvalCase`` was made from (``inputs/platform_dataset.py``), or None."""
    stored = (getattr(case, "model_extra", None) or {}).get(CASE_KEY)
    return PlatformEvalCase.model_validate(stored) if isinstance(stored, dict) else None


def history_of(case: Any) -> list[AgentEvent]:
    """The events to seed the session with before the agent answers (agents-cli's ``split_case_history``): every
    event of the turns but the last user message; a state delta on that message is kept as an event without content.
    None for a case without turns."""
    platform = platform_case_of(case)
    if platform is None or platform.prompt is not None:
        return []
    events = trace_events(platform)
    if not events or events[-1].author != USER_AUTHOR:
        return []
    prior, last = events[:-1], events[-1]
    if last.state_delta:
        prior = [*prior, last.model_copy(update={"content": None})]
    return prior

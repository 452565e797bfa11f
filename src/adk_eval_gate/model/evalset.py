"""Pydantic models of ADK's eval files, compatible with ``google.adk.evaluation`` 2.13.

Every model accepts snake_case and camelCase keys (ADK's EvalSet top level accepts only snake_case; this is a
superset) and forbids or keeps unknown keys exactly where ADK does, so a file that ADK loads loads here with the
same content, and ``model_dump`` produces what ADK would write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import pydantic
from google.genai import types as genai_types
from pydantic import Field, alias_generators, field_validator, model_validator

# Persona ids of ADK's built-in persona registry (google.adk.evaluation.simulation.pre_built_personas).
BUILT_IN_PERSONA_IDS = ("EXPERT", "NOVICE", "EVALUATOR")


class EvalModel(pydantic.BaseModel):
    """ADK's ``EvalBaseModel``: camelCase aliases, snake_case names, unknown keys rejected."""

    model_config = pydantic.ConfigDict(
        defer_build=True,
        alias_generator=alias_generators.to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
    )


class RubricContent(EvalModel):
    text_property: str | None = None


class Rubric(EvalModel):
    rubric_id: str
    rubric_content: RubricContent
    description: str | None = None
    type: str | None = None


class RubricScore(EvalModel):
    rubric_id: str
    rationale: str | None = None
    score: float | None = None


class AgentDetails(EvalModel):
    name: str
    instructions: str = ""
    tool_declarations: list[Any] = Field(default_factory=list)


class AppDetails(EvalModel):
    agent_details: dict[str, AgentDetails] = Field(default_factory=dict)


class UserBehavior(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(defer_build=True)

    name: str
    description: str
    behavior_instructions: list[str]
    violation_rubrics: list[str]


class UserPersona(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(defer_build=True)

    id: str
    description: str
    behaviors: Sequence[UserBehavior]


class ConversationScenario(EvalModel):
    starting_prompt: str
    conversation_plan: str
    user_persona: UserPersona | str | None = None

    @field_validator("user_persona", mode="before")
    @classmethod
    def _known_persona_id(cls, value: object) -> object:
        if isinstance(value, str) and value not in BUILT_IN_PERSONA_IDS:
            raise ValueError(
                f"unknown persona id {value!r}; use one of {', '.join(BUILT_IN_PERSONA_IDS)} "
                "or an inline persona object"
            )
        return value


class IntermediateData(EvalModel):
    """What people write: the expected tool calls, tool responses and intermediate responses."""

    tool_uses: list[genai_types.FunctionCall] = []
    tool_responses: list[genai_types.FunctionResponse] = []
    intermediate_responses: list[tuple[str, list[genai_types.Part]]] = []


class InvocationEvent(EvalModel):
    """One event of an invocation, as ADK records actual invocations (unknown keys ignored, as in ADK)."""

    model_config = pydantic.ConfigDict(extra="ignore")

    author: str
    content: genai_types.Content | None = None
    grounding_metadata: genai_types.GroundingMetadata | None = None
    usage_metadata: genai_types.GenerateContentResponseUsageMetadata | None = None
    model_version: str | None = None


class InvocationEvents(EvalModel):
    invocation_events: list[InvocationEvent] = Field(default_factory=list)


IntermediateDataType: TypeAlias = IntermediateData | InvocationEvents


class Invocation(EvalModel):
    invocation_id: str = ""
    user_content: genai_types.Content
    final_response: genai_types.Content | None = None
    intermediate_data: IntermediateDataType | None = None
    creation_timestamp: float = 0.0
    duration: float | None = None
    model_duration: float | None = None
    tool_duration: float | None = None
    rubrics: list[Rubric] | None = None
    app_details: AppDetails | None = None


class SessionInput(EvalModel):
    model_config = pydantic.ConfigDict(extra="allow")

    app_name: str
    user_id: str
    session_id: str | None = None
    state: dict[str, Any] = Field(default_factory=dict)


class EvalCase(EvalModel):
    model_config = pydantic.ConfigDict(extra="allow")

    eval_id: str
    conversation: list[Invocation] | None = None
    conversation_scenario: ConversationScenario | None = None
    session_input: SessionInput | None = None
    creation_timestamp: float = 0.0
    rubrics: list[Rubric] | None = None
    final_session_state: dict[str, Any] | None = Field(default_factory=dict)

    @model_validator(mode="after")
    def _conversation_xor_scenario(self) -> EvalCase:
        if (self.conversation is None) == (self.conversation_scenario is None):
            raise ValueError("Exactly one of conversation and conversation_scenario must be provided in an EvalCase.")
        return self


class EvalSet(pydantic.BaseModel):
    """An eval set. Unlike ADK, camelCase top-level keys (``evalSetId``) are accepted too."""

    model_config = pydantic.ConfigDict(
        defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True, extra="ignore"
    )

    eval_set_id: str
    name: str | None = None
    description: str | None = None
    eval_cases: list[EvalCase]
    creation_timestamp: float = 0.0


# ---------------------------------------------------------------------------------------------------------
# Accessors with ADK's semantics (google.adk.evaluation.eval_case)


def content_text(content: genai_types.Content | None) -> str:
    """Texts of the parts that have text, joined by newlines (ADK's text extraction)."""
    if content and content.parts:
        return "\n".join(part.text for part in content.parts if part.text)
    return ""


def _event_parts(intermediate_data: InvocationEvents) -> list[genai_types.Part]:
    return [
        part
        for event in intermediate_data.invocation_events
        if event.content and event.content.parts
        for part in event.content.parts
    ]


def tool_calls(intermediate_data: IntermediateDataType | None) -> list[genai_types.FunctionCall]:
    if not intermediate_data:
        return []
    if isinstance(intermediate_data, IntermediateData):
        return list(intermediate_data.tool_uses)
    return [part.function_call for part in _event_parts(intermediate_data) if part.function_call]


def tool_responses(intermediate_data: IntermediateDataType | None) -> list[genai_types.FunctionResponse]:
    if not intermediate_data:
        return []
    if isinstance(intermediate_data, IntermediateData):
        return list(intermediate_data.tool_responses)
    return [part.function_response for part in _event_parts(intermediate_data) if part.function_response]


def tool_calls_with_responses(
    intermediate_data: IntermediateDataType | None,
) -> list[tuple[genai_types.FunctionCall, genai_types.FunctionResponse | None]]:
    by_id = {response.id: response for response in tool_responses(intermediate_data)}
    return [(call, by_id.get(call.id)) for call in tool_calls(intermediate_data)]


def usage_metadata(invocation: Invocation) -> list[genai_types.GenerateContentResponseUsageMetadata]:
    if not isinstance(invocation.intermediate_data, InvocationEvents):
        return []
    return [
        event.usage_metadata
        for event in invocation.intermediate_data.invocation_events
        if event.usage_metadata is not None
    ]


def dump_invocation(invocation: Invocation) -> dict[str, Any]:
    """An invocation as ADK writes it in result files, without nulls (results.json keeps it small)."""
    return invocation.model_dump(mode="json", exclude_none=True)


def known_field_names() -> frozenset[str]:
    """Every field name of the eval-file models, for "did you mean" on an unknown key."""
    models: list[type[pydantic.BaseModel]] = [
        EvalSet,
        EvalCase,
        Invocation,
        IntermediateData,
        InvocationEvents,
        InvocationEvent,
        SessionInput,
        ConversationScenario,
        Rubric,
        RubricContent,
        AgentDetails,
        AppDetails,
    ]
    return frozenset(name for model in models for name in model.model_fields)

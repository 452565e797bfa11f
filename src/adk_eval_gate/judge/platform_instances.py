"""What Google's evaluation service is asked about, built as ADK 2.13 and the evaluation SDK build it, so the
service sees the same request from the gate as from ADK (the parity tests compare the two byte for byte).

Three kinds of instance:

* ``RowInstance``: one row of an evaluation dataset (``prompt``, ``response``, ``reference``): what ADK's
  ``_SingleTurnVertexAiEvalFacade`` puts in a DataFrame per invocation, made into an ``EvaluationInstance`` as the
  SDK's ``_FlattenEvalDataConverter`` and ``_build_evaluation_instance`` do (the prompt and response again as a
  one-turn ``agent_data``).
* ``ConversationInstance``: a whole conversation as ADK's ``_MultiTurnVertexiAiEvalFacade._get_agent_data``
  makes it (the agents of the turns' app details; per turn the user's content, the events with content, the final
  response), sent as the SDK's ``PredefinedMetricHandler`` sends an ``agent_data`` case (an empty prompt).
* ``DatasetInstance``: a case of an Agent Platform dataset (agents-cli's), built from its trace as the SDK's
  ``PredefinedMetricHandler`` builds it for agents-cli's built-in metrics.

The SDK's types module is passed in (``sdk_types``): this module never imports the SDK itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.genai import types as genai_types

from adk_eval_gate.judge.invocation_text import agents_of
from adk_eval_gate.model.evalset import AgentDetails, Invocation, InvocationEvents

ROW_CASE_ID = "eval_case_0"  # the SDK's id of a dataset's first (and here only) row
STANDARD_FIELDS = ("prompt", "response", "reference", "context", "agent_data")
"""The fields of a case the SDK's ``_build_evaluation_instance`` fills itself; a template's other variables name
fields of the case."""


@dataclass(frozen=True)
class RowInstance:
    """One dataset row; an empty ``prompt`` or ``response`` is refused by the SDK (``MissingInput``)."""

    prompt: str
    response: str
    reference: str | None = None


@dataclass(frozen=True)
class ConversationInstance:
    invocations: tuple[Invocation, ...]


@dataclass(frozen=True)
class DatasetInstance:
    """An Agent Platform dataset case after the run (``case``: its JSON, as agents-cli grades it), for the predefined
    metric ``metric`` (a registered name, ``general_quality_v2``)."""

    case: str
    metric: str


PlatformInstance = RowInstance | ConversationInstance | DatasetInstance


class MissingInput(ValueError):
    """The SDK refuses the row before asking the service (ADK then reports the metric not evaluated)."""


def _text(text: str) -> genai_types.Content:
    return genai_types.Content(parts=[genai_types.Part(text=text)])


def starting_prompt(case: Any) -> genai_types.Content | None:
    """The SDK's ``_get_prompt_from_eval_case``: a case's prompt, else its user scenario's starting prompt (``case``:
    the SDK's ``EvalCase`` or the gate's ``PlatformEvalCase``, which have the same fields)."""
    if case.prompt is not None:
        prompt: genai_types.Content = case.prompt
        return prompt
    if case.user_scenario is not None and case.user_scenario.starting_prompt:
        return _text(case.user_scenario.starting_prompt)
    return None


def _instance_data(sdk_types: Any, content: genai_types.Content | None) -> Any:
    if content is None:
        return None
    return sdk_types.evals.InstanceData(contents=sdk_types.evals.InstanceDataContents(contents=[content]))


def _contents(sdk_types: Any, value: object) -> list[genai_types.Content]:
    """The SDK's ``_value_to_content_list``, for the values an ``EvalCase`` of a row can hold."""
    if isinstance(value, genai_types.Content):
        return [value]
    if isinstance(value, sdk_types.ResponseCandidate):
        return [value.response] if value.response else []
    if isinstance(value, list) and value and isinstance(value[0], genai_types.Content):
        return value
    if isinstance(value, (list, dict)) and value:
        return [_text(json.dumps(value))]
    return [_text(str(value))]


def _template_data(sdk_types: Any, case: Any, template: str | None) -> Any:
    """``other_data``: the variables of an LLM metric's prompt template that name a field of the case."""
    if not template:
        return None
    found: dict[str, Any] = {}
    for path in sdk_types.PromptTemplate(text=template).variables:
        root = path.split(".")[0].split("[")[0]
        if root not in STANDARD_FIELDS and hasattr(case, root):
            contents = sdk_types.evals.InstanceDataContents(contents=_contents(sdk_types, getattr(case, root)))
            found[root] = sdk_types.evals.InstanceData(contents=contents)
    return sdk_types.MapInstance(map_instance=found) if found else None


def _row_instance(sdk_types: Any, row: RowInstance, *, prompt_template: str | None = None) -> Any:
    if not row.response:
        raise MissingInput(f"Response is required but missing for {ROW_CASE_ID}.")
    if not row.prompt:
        raise MissingInput(f"Prompt is required but missing for {ROW_CASE_ID}.")
    prompt, response = _text(row.prompt), _text(row.response)
    reference = _text(row.reference) if row.reference else None
    case = sdk_types.EvalCase(
        prompt=prompt,
        responses=[sdk_types.ResponseCandidate(response=response)],
        reference=sdk_types.ResponseCandidate(response=reference) if reference else None,
        eval_case_id=ROW_CASE_ID,
    )
    events = [
        sdk_types.evals.AgentEvent(author="user", content=prompt),
        sdk_types.evals.AgentEvent(author="model", content=response),
    ]
    turn = sdk_types.evals.ConversationTurn(turn_index=0, turn_id="turn_0", events=events)
    return sdk_types.EvaluationInstance(
        prompt=_instance_data(sdk_types, prompt),
        response=_instance_data(sdk_types, response),
        reference=_instance_data(sdk_types, reference),
        other_data=_template_data(sdk_types, case, prompt_template),
        agent_data=sdk_types.evals.AgentData(agents=None, turns=[turn]),
    )


def _agent_config(sdk_types: Any, details: AgentDetails) -> Any:
    return sdk_types.evals.AgentConfig(
        agent_id=details.name, instruction=details.instructions, tools=details.tool_declarations
    )


def _turn(sdk_types: Any, index: int, invocation: Invocation) -> Any:
    events = [sdk_types.evals.AgentEvent(author="user", content=invocation.user_content)]
    if isinstance(invocation.intermediate_data, InvocationEvents):
        events += [
            sdk_types.evals.AgentEvent(author=event.author, content=event.content)
            for event in invocation.intermediate_data.invocation_events
            if event.content is not None
        ]
    events.append(sdk_types.evals.AgentEvent(author="agent", content=invocation.final_response))
    return sdk_types.evals.ConversationTurn(turn_index=index, events=events, turn_id=invocation.invocation_id)


def _conversation_instance(sdk_types: Any, conversation: ConversationInstance) -> Any:
    agents: dict[str, Any] = {}
    for name, details in agents_of(conversation.invocations):
        if name not in agents:
            agents[name] = _agent_config(sdk_types, details)
    agent_data = sdk_types.evals.AgentData(
        agents=agents,
        turns=[_turn(sdk_types, index, invocation) for index, invocation in enumerate(conversation.invocations)],
    )
    empty_prompt = sdk_types.evals.InstanceData(contents=sdk_types.evals.InstanceDataContents(contents=[]))
    return sdk_types.EvaluationInstance(prompt=empty_prompt, agent_data=agent_data)


def dataset_instance(sdk_types: Any, instance: DatasetInstance) -> Any:
    """The SDK's ``PredefinedMetricHandler._build_request_payload`` and ``_build_evaluation_instance`` on a dataset
    case: its first response, its prompt (with its conversation history first for a multi-turn metric), reference,
    context, rubric groups and agent data (its own, else one turn of the prompt, intermediate events and response)."""
    case = sdk_types.EvalCase.model_validate_json(instance.case)
    response = case.responses[0].response if case.responses else None
    if response is None and not case.agent_data and not case.interactions_data_source:
        raise MissingInput("Response content missing for candidate 0.")
    prompt = starting_prompt(case)
    prompt_data = _instance_data(sdk_types, prompt)
    if instance.metric.startswith("multi_turn"):
        contents = [message.content for message in case.conversation_history or []] + ([prompt] if prompt else [])
        prompt_data = sdk_types.evals.InstanceData(contents=sdk_types.evals.InstanceDataContents(contents=contents))
    context = getattr(case, "context", None)
    other = None
    if context:
        data = (
            sdk_types.evals.InstanceData(text=context)
            if isinstance(context, str)
            else sdk_types.evals.InstanceData(
                contents=sdk_types.evals.InstanceDataContents(contents=_contents(sdk_types, context))
            )
        )
        other = sdk_types.MapInstance(map_instance={"context": data})
    return sdk_types.EvaluationInstance(
        prompt=prompt_data,
        response=_instance_data(sdk_types, response),
        reference=_instance_data(sdk_types, case.reference.response) if case.reference else None,
        rubric_groups=case.rubric_groups,
        other_data=other,
        agent_data=case.agent_data or _one_turn(sdk_types, case, prompt, response),
    )


def _one_turn(sdk_types: Any, case: Any, prompt: genai_types.Content | None, response: Any) -> Any:
    """The SDK's ``_eval_case_to_agent_data`` for a case without agent data."""
    if not case.agent_info and not case.intermediate_events and not prompt and not response:
        return None
    events = [sdk_types.evals.AgentEvent(author="user", content=prompt)] if prompt else []
    events += [
        sdk_types.evals.AgentEvent(author=event.author, content=event.content, event_time=event.creation_timestamp)
        for event in case.intermediate_events or []
    ]
    if response:
        events.append(sdk_types.evals.AgentEvent(author="model", content=response))
    turns = [sdk_types.evals.ConversationTurn(turn_index=0, turn_id="turn_0", events=events)] if events else None
    return sdk_types.evals.AgentData(agents=case.agent_info.agents if case.agent_info else None, turns=turns)


def sdk_instance(sdk_types: Any, instance: PlatformInstance, *, prompt_template: str | None = None) -> Any:
    if isinstance(instance, RowInstance):
        return _row_instance(sdk_types, instance, prompt_template=prompt_template)
    if isinstance(instance, DatasetInstance):
        return dataset_instance(sdk_types, instance)
    return _conversation_instance(sdk_types, instance)

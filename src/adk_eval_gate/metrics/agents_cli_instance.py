"""What agents-cli's metrics are given about one run of a dataset case, built as agents-cli and the evaluation SDK
build it (google-agents-cli 1.11, google-cloud-aiplatform 2.7; ``tests/metrics/test_agents_cli_instance.py`` checks
it against the SDK's own code):

* ``trace_case``: the case as ``agents-cli eval generate`` leaves it after the agent answered
  (``merge_events_into_case``): the agent's events appended to the last turn of ``agent_data`` (a new ``turn_0``
  for a prompt), the agents that answered in ``agent_data.agents``, the final text added to ``responses``; then, as
  ``eval grade`` does, the events without content dropped. A recorded case is its own trace (with its trace's final
  text as its response when it has no ``responses``).
* ``function_instance``: the ``instance`` dict a ``custom_function`` receives (the SDK's ``CustomMetricHandler``):
  every field of the case but ``responses``, ``response`` the first response, ``prompt`` the prompt (or the user
  scenario's starting prompt), each as JSON.
* ``template_values``: the text of each ``{placeholder}`` of a ``prompt_template`` (the SDK's
  ``_build_evaluation_instance``: ``prompt``, ``response``, ``reference``, ``context``, ``agent_data``, and any other
  field of the case by its name).

Where the gate's record of a run is thinner than agents-cli's, the instance is too: an event keeps its author and
content (not its time or state delta), and an agent its name, instruction and tools as sent to its model.
"""

from __future__ import annotations

import json
import re
from typing import Any

from google.genai import types as genai_types

from adk_eval_gate.judge.invocation_text import agents_of
from adk_eval_gate.judge.platform_instances import STANDARD_FIELDS, starting_prompt
from adk_eval_gate.metrics.metric import CaseRun, NotEvaluated
from adk_eval_gate.model import platform_cases as pc
from adk_eval_gate.model.evalset import Invocation, InvocationEvents, tool_calls

PLACEHOLDER = re.compile(r"\{([_a-zA-Z][_a-zA-Z0-9]*)\}")  # the SDK's PromptTemplate._VARIABLE_NAME_REGEX


def _without_signatures(content: genai_types.Content) -> genai_types.Content:
    """agents-cli's ``strip_thought_signatures``."""
    if not any(part.thought_signature for part in content.parts or []):
        return content
    parts = [part.model_copy(update={"thought_signature": None}) for part in content.parts or []]
    return content.model_copy(update={"parts": parts})


def _events(invocation: Invocation) -> list[pc.AgentEvent]:
    """The agent's events of one turn as agents-cli records them (the final response where the gate keeps it once)."""
    data = invocation.intermediate_data
    found: list[pc.AgentEvent] = []
    if isinstance(data, InvocationEvents):
        for event in data.invocation_events:
            content = event.content if event.content is not None else invocation.final_response
            if content is not None:
                found.append(pc.AgentEvent(author=event.author, content=_without_signatures(content)))
    else:
        calls = tool_calls(data)
        if calls:
            parts = [genai_types.Part(function_call=call) for call in calls]
            found.append(pc.AgentEvent(author="agent", content=genai_types.Content(role="model", parts=parts)))
    if (
        not any(event.content is not None and pc.text_of(event.content) for event in found)
        and invocation.final_response
    ):
        found.append(pc.AgentEvent(author="agent", content=_without_signatures(invocation.final_response)))
    return found


def _agents(invocations: list[Invocation]) -> dict[str, pc.AgentConfig]:
    agents: dict[str, pc.AgentConfig] = {}
    for name, details in agents_of(invocations):
        if name in agents:
            continue
        tools = []
        for declaration in details.tool_declarations:
            try:
                tools.append(genai_types.Tool.model_validate(declaration))
            except ValueError:
                continue
        agents[name] = pc.AgentConfig(
            agent_id=name, agent_type="LlmAgent", instruction=details.instructions or None, tools=tools or None
        )
    return agents


def _with_content_only(case: pc.PlatformEvalCase) -> pc.PlatformEvalCase:
    """``eval grade``'s ``_drop_content_less_events``."""
    if case.agent_data is None or not case.agent_data.turns:
        return case
    turns = [
        turn.model_copy(update={"events": [event for event in turn.events or [] if event.content is not None]})
        if turn.events
        else turn
        for turn in case.agent_data.turns
    ]
    return case.model_copy(update={"agent_data": case.agent_data.model_copy(update={"turns": turns})})


def trace_case(run: CaseRun) -> pc.PlatformEvalCase:
    """The case after the run, as agents-cli grades it; ``NotEvaluated`` for a case of another kind of eval file."""
    case = pc.platform_case_of(run.eval_case)
    if case is None:
        raise NotEvaluated("agents-cli's metrics grade Agent Platform dataset cases, and this case is not one")
    if pc.case_shape(case) == "recorded":
        if not case.responses and run.actual and run.actual[-1].final_response is not None:
            case = case.model_copy(update={"responses": [pc.ResponseCandidate(response=run.actual[-1].final_response)]})
        return _with_content_only(case)
    new_events = [event for invocation in run.actual for event in _events(invocation)]
    agent_data = case.agent_data.model_copy(deep=True) if case.agent_data else pc.AgentData(turns=[])
    agents = _agents(run.actual)
    if agents:
        agent_data.agents = agents
    turns = list(agent_data.turns or [])
    if turns:
        turns[-1] = turns[-1].model_copy(update={"events": [*(turns[-1].events or []), *new_events]})
    elif new_events:
        turns.append(pc.ConversationTurn(turn_index=0, turn_id="turn_0", events=new_events))
    agent_data.turns = turns
    final = pc.final_response_of(new_events)
    responses = list(case.responses or [])
    if final is not None:
        responses.append(pc.ResponseCandidate(response=final))
    return _with_content_only(case.model_copy(update={"agent_data": agent_data, "responses": responses or None}))


def _response_of(case: pc.PlatformEvalCase, eval_id: str) -> genai_types.Content:
    """The first response, or ``NotEvaluated`` with the SDK's words."""
    response = case.responses[0].response if case.responses else None
    if response is None:
        raise NotEvaluated(f"No response found for candidate 0 in EvalCase {case.eval_case_id or eval_id}.")
    return response


def function_instance(case: pc.PlatformEvalCase, eval_id: str) -> dict[str, Any]:
    """What a ``custom_function`` is called with (the SDK's ``CustomMetricHandler.get_metric_result``)."""
    response = _response_of(case, eval_id)
    instance = case.model_dump(mode="json", exclude={"responses"}, exclude_none=True)
    instance["response"] = response.model_dump(mode="json", exclude_none=True)
    prompt = starting_prompt(case)
    if prompt is not None:
        instance["prompt"] = prompt.model_dump(mode="json", exclude_none=True)
    return instance


def _as_text(value: Any) -> str:
    """A value as the judge reads it (the SDK's ``_value_to_content_list``: a content's text, JSON for data)."""
    if isinstance(value, genai_types.Content):
        return pc.text_of(value) or ""
    if isinstance(value, pc.ResponseCandidate):
        return pc.text_of(value.response) or ""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_none=True)
    elif isinstance(value, list) and value and all(hasattr(item, "model_dump") for item in value):
        value = [item.model_dump(mode="json", exclude_none=True) for item in value]
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def template_values(case: pc.PlatformEvalCase, template: str, eval_id: str) -> dict[str, str]:
    """The text of each placeholder of ``template``; ``NotEvaluated`` naming one the case has no value for."""
    values: dict[str, str] = {}
    extra = case.model_extra or {}
    for name in dict.fromkeys(PLACEHOLDER.findall(template)):
        if name == "prompt":
            value: Any = starting_prompt(case)
        elif name == "response":
            value = _response_of(case, eval_id)
        elif name == "reference":
            value = case.reference.response if case.reference else None
        elif name == "agent_data":
            value = case.agent_data
        elif name in pc.PlatformEvalCase.model_fields:
            value = getattr(case, name)
        else:
            value = extra.get(name)
        if value is None:
            raise NotEvaluated(
                f"the prompt_template has {{{name}}}, which case {case.eval_case_id or eval_id} has no value for"
                + (": add it to the case" if name not in STANDARD_FIELDS[:2] else "")
            )
        values[name] = _as_text(value)
    return values


def fill(template: str, values: dict[str, str]) -> str:
    """Each ``{name}`` replaced by its value in one pass (a value's own braces are never read as placeholders)."""
    return PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), template)

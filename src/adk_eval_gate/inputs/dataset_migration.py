"""``migrate`` between ADK's eval sets and Agent Platform datasets (agents-cli's ``*-dataset.json``), both ways.

An eval set's case becomes a dataset case as agents-cli's own migrator (``migrate_legacy_evalsets``) makes it, with
what that migrator drops kept: one turn per invocation (the user's message, the expected tool calls and responses,
the expected answer, authored ``model``, which agents-cli seeds as the root agent's), the last user message left
to run, its expected answer as ``reference`` and its expected tool calls as ``reference_trajectory`` (Vertex AI's
column, a custom field); the session state as a ``state_delta`` of the first user message (the state the run starts
from); rubrics as a ``rubric_groups`` group; a ``conversation_scenario`` as ``user_scenario``. As in agents-cli, the
turns before the last are the conversation so far when the dataset runs, not turns the agent answers again.

A dataset case becomes an eval set case the other way: each user message starts an invocation, the state deltas of
the user's events are its ``session_input.state`` (app ``app``, user ``eval-cli-user``, agents-cli's defaults), its
recorded ``responses`` are left out (an eval set holds no answers) and said so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.genai import types as genai_types

from adk_eval_gate.inputs.load import LoadedEvalSet
from adk_eval_gate.model import platform_cases as pc
from adk_eval_gate.model.evalset import (
    ConversationScenario,
    EvalCase,
    EvalSet,
    IntermediateData,
    Invocation,
    Rubric,
    RubricContent,
    SessionInput,
    tool_calls,
    tool_responses,
)

MODEL_AUTHOR = "model"
RUBRIC_GROUP = "rubrics"
DEFAULT_APP, DEFAULT_USER = "app", "eval-cli-user"  # agents-cli's --app-name and user id


def _content(content: genai_types.Content | None, role: str) -> genai_types.Content | None:
    if content is None:
        return None
    return content.model_copy(update={"role": content.role or role})


def _event(author: str, content: genai_types.Content | None, **extra: Any) -> pc.AgentEvent:
    return pc.AgentEvent(author=author, content=content, **extra)


def _turn_events(invocation: Invocation, *, last: bool, state: dict[str, Any] | None) -> list[pc.AgentEvent]:
    events = [_event(pc.USER_AUTHOR, _content(invocation.user_content, "user"), state_delta=state or None)]
    if last:
        return events
    for call in tool_calls(invocation.intermediate_data):
        part = genai_types.Part(function_call=call)
        events.append(_event(MODEL_AUTHOR, genai_types.Content(role="model", parts=[part])))
    for response in tool_responses(invocation.intermediate_data):
        part = genai_types.Part(function_response=response)
        events.append(_event(MODEL_AUTHOR, genai_types.Content(role="user", parts=[part])))
    if invocation.final_response is not None:
        events.append(_event(MODEL_AUTHOR, _content(invocation.final_response, "model")))
    return events


def _trajectory(invocation: Invocation) -> list[dict[str, Any]] | None:
    calls = tool_calls(invocation.intermediate_data)
    return [{"tool_name": call.name or "", "tool_input": dict(call.args or {})} for call in calls] or None


def _to_dataset_case(case: EvalCase, notes: list[str]) -> pc.PlatformEvalCase:
    """One eval set case as a dataset case."""
    data: dict[str, Any] = {"eval_case_id": case.eval_id, **(case.model_extra or {})}
    if case.rubrics:
        rubrics = [
            pc.Rubric(
                rubric_id=rubric.rubric_id,
                content=pc.RubricContent(
                    property=pc.RubricContentProperty(description=rubric.rubric_content.text_property)
                ),
                type=rubric.type,
            )
            for rubric in case.rubrics
        ]
        data["rubric_groups"] = {RUBRIC_GROUP: pc.RubricGroup(rubrics=rubrics)}
    if case.conversation_scenario is not None:
        scenario = case.conversation_scenario
        data["user_scenario"] = pc.UserScenario(
            starting_prompt=scenario.starting_prompt, conversation_plan=scenario.conversation_plan
        )
        notes.append(
            f"{case.eval_id}: its conversation_scenario is written as user_scenario, which the gate runs only in an "
            "eval set"
        )
        return pc.PlatformEvalCase.model_validate(data)
    conversation = case.conversation or []
    state = case.session_input.state if case.session_input else None
    last = conversation[-1]
    if len(conversation) == 1 and not state:
        data["prompt"] = _content(last.user_content, "user")
    else:
        turns = [
            pc.ConversationTurn(
                turn_index=index,
                events=_turn_events(
                    invocation, last=index == len(conversation) - 1, state=state if index == 0 else None
                ),
            )
            for index, invocation in enumerate(conversation)
        ]
        data["agent_data"] = pc.AgentData(turns=turns)
    if last.final_response is not None:
        data["reference"] = pc.ResponseCandidate(response=_content(last.final_response, "model"))
    if (trajectory := _trajectory(last)) is not None:
        data["reference_trajectory"] = trajectory
    return pc.PlatformEvalCase.model_validate(data)


def to_dataset(eval_set: EvalSet, notes: list[str]) -> pc.EvaluationDataset:
    return pc.EvaluationDataset(eval_cases=[_to_dataset_case(case, notes) for case in eval_set.eval_cases])


def _invocations(case: pc.PlatformEvalCase) -> tuple[list[Invocation], dict[str, Any]]:
    """The case's user messages as invocations (the events after each: its tool calls and answer), and the state
    its user events set."""
    state: dict[str, Any] = {}
    invocations: list[Invocation] = []
    for event in pc.trace_events(case):
        if event.author == pc.USER_AUTHOR:
            state.update(event.state_delta or {})
            if event.content is not None:
                invocations.append(Invocation(user_content=event.content, intermediate_data=IntermediateData()))
            continue
        if not invocations or event.content is None:
            continue
        turn = invocations[-1]
        data = turn.intermediate_data
        assert isinstance(data, IntermediateData)
        for part in event.content.parts or []:
            if part.function_call is not None:
                data.tool_uses.append(part.function_call)
            elif part.function_response is not None:
                data.tool_responses.append(part.function_response)
        if pc.text_of(event.content):
            turn.final_response = _content(event.content, "model")
    return invocations, state


def _to_eval_case(case: EvalCase, notes: list[str]) -> EvalCase:
    """One case of a loaded dataset as an eval set case."""
    platform = pc.platform_case_of(case)
    assert platform is not None
    extra = {key: value for key, value in (platform.model_extra or {}).items() if key != "reference_trajectory"}
    rubrics = [
        Rubric(rubric_id=rubric.rubric_id or f"rubric_{index}", rubric_content=RubricContent(text_property=description))
        for group in (platform.rubric_groups or {}).values()
        for index, rubric in enumerate(group.rubrics or [])
        if (description := rubric.content.property.description if rubric.content and rubric.content.property else None)
    ] or None
    if platform.user_scenario is not None and platform.prompt is None and not pc.trace_events(platform):
        scenario = ConversationScenario(
            starting_prompt=platform.user_scenario.starting_prompt or "",
            conversation_plan=platform.user_scenario.conversation_plan or "",
        )
        return EvalCase(eval_id=case.eval_id, conversation_scenario=scenario, rubrics=rubrics, **extra)
    if platform.responses:
        notes.append(f"{case.eval_id}: its recorded responses are left out (an eval set holds no answers)")
    state: dict[str, Any] = {}
    if platform.prompt is not None:
        invocations = [Invocation(user_content=platform.prompt, intermediate_data=IntermediateData())]
    else:
        invocations, state = _invocations(platform)
        if pc.case_shape(platform) == "recorded":  # the trace's answer to the last message is not expected data
            invocations[-1] = invocations[-1].model_copy(update={"final_response": None})
            invocations[-1].intermediate_data = IntermediateData()
    last = invocations[-1]
    last.final_response = platform.reference.response if platform.reference else last.final_response
    calls = (case.conversation or [Invocation(user_content=last.user_content)])[0].intermediate_data
    last.intermediate_data = calls if calls is not None else last.intermediate_data
    for invocation in invocations:
        if invocation.intermediate_data == IntermediateData():
            invocation.intermediate_data = None
    session = SessionInput(app_name=DEFAULT_APP, user_id=DEFAULT_USER, state=state) if state else None
    return EvalCase(eval_id=case.eval_id, conversation=invocations, session_input=session, rubrics=rubrics, **extra)


def to_eval_set(loaded: LoadedEvalSet, notes: list[str]) -> EvalSet:
    cases = []
    for case in loaded.eval_set.eval_cases:
        platform = pc.platform_case_of(case)
        scenario_only = platform is not None and platform.user_scenario is not None and platform.prompt is None
        if case.eval_id in loaded.row_errors and not scenario_only:
            notes.append(f"{case.eval_id}: left out: {loaded.row_errors[case.eval_id]}")
            continue
        cases.append(_to_eval_case(case, notes))
    return EvalSet(
        eval_set_id=Path(loaded.display).name.removesuffix(".json").removesuffix("-dataset"), eval_cases=cases
    )

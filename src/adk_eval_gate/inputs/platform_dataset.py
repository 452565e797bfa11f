"""Agent Platform evaluation datasets (``EvaluationDataset`` JSON, agents-cli's ``*-dataset.json``) as eval files.

Each ``eval_cases`` item is a case of the gate's eval set, keeping its own data (``model.platform_cases``: the
agents-cli metrics build their ``instance`` from it):

* a ``prompt``, or ``agent_data.turns`` whose last event is the user's, runs through the agent: its expected turn
  is that message, with the case's ``reference`` as the expected answer; the earlier events of the turns are the
  conversation so far, seeded into the session before the agent answers, as ``agents-cli eval generate`` seeds
  them (``model.platform_cases.history_of``);
* a case with ``responses``, or whose trace goes on after its last user event, is scored as recorded (no agent
  runs): its actual turn is the last user message, the events after it and the first response (or the trace's final
  text when it has no ``responses``).

A case's id is its ``eval_case_id``; without one it is derived from its user message (stable while the message is
unchanged). Invalid fields are errors of the file, each with its line and path, as for ADK's eval sets; a case
that is valid but cannot be run (neither a prompt nor turns) is an error of that case, and the others run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.inputs import formats
from adk_eval_gate.inputs.formats import FileFormat
from adk_eval_gate.inputs.load import LoadedEvalSet, load_parsed, read_json
from adk_eval_gate.inputs.vertex_dataset import derived_id, unique_id
from adk_eval_gate.model import platform_cases
from adk_eval_gate.model.evalset import (
    EvalCase,
    EvalSet,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
)
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.errors import EvalFileError, first_of
from adk_eval_gate.support.jsonpos import JsonPositions, format_path
from adk_eval_gate.support.pydantic_errors import every_error, locate

FORMAT: FileFormat = "agent_platform_dataset"
_EVAL_SET_KEYS = {"eval_set_id", "evalSetId"}
_CASES_KEYS = ("eval_cases", "evalCases")


def is_platform_dataset(data: Any) -> bool:
    """Whether parsed JSON is an ``EvaluationDataset``: an object with ``eval_cases`` and without ADK's
    ``eval_set_id``, whose cases (if any) carry none of ADK's case keys."""
    if not isinstance(data, dict) or _EVAL_SET_KEYS & data.keys():
        return False
    cases = next((data[key] for key in _CASES_KEYS if key in data), None)
    if not isinstance(cases, list):
        return False
    adk_keys = {"eval_id", "evalId", "conversation", "conversation_scenario", "conversationScenario"}
    return not any(isinstance(case, dict) and adk_keys & case.keys() for case in cases)


def _validated(data: dict[str, Any], *, text: str, display: str) -> platform_cases.EvaluationDataset:
    try:
        return platform_cases.EvaluationDataset.model_validate(data)
    except pydantic.ValidationError as error:
        found, unlisted = every_error(error, data, model=platform_cases.EvaluationDataset)
        positions = JsonPositions(text)
        problems = (
            EvalFileError(
                message.replace("ADK rejects", "the evaluation SDK rejects"),
                file=display,
                line=locate(positions, path),
                field=format_path(path),
            )
            for path, message in found
        )
        raise first_of(problems, unlisted=unlisted) from None


def _user_message(case: platform_cases.PlatformEvalCase) -> genai_types.Content | None:
    """What the user says in the turn the gate runs or scores: the prompt, else the last user event's content."""
    if case.prompt is not None:
        return case.prompt
    events = platform_cases.trace_events(case)
    user = [event for event in events if event.author == platform_cases.USER_AUTHOR and event.content is not None]
    return user[-1].content if user else None


def _expected(case: platform_cases.PlatformEvalCase, user: genai_types.Content) -> Invocation:
    reference = case.reference.response if case.reference else None
    trajectory = (case.model_extra or {}).get("reference_trajectory")
    calls = _trajectory_calls(trajectory)
    return Invocation(
        user_content=user,
        final_response=reference,
        intermediate_data=IntermediateData(tool_uses=calls) if calls is not None else None,
    )


def _trajectory_calls(value: Any) -> list[genai_types.FunctionCall] | None:
    """A ``reference_trajectory`` custom field (Vertex AI's column, which ``migrate`` writes) as tool calls."""
    if not isinstance(value, list):
        return None
    calls = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("tool_name"), str):
            return None
        arguments = item.get("tool_input")
        calls.append(
            genai_types.FunctionCall(name=item["tool_name"], args=arguments if isinstance(arguments, dict) else {})
        )
    return calls


def _recorded(case: platform_cases.PlatformEvalCase, user: genai_types.Content) -> Invocation:
    """The recorded answer: the events after the last user event, and the first response (or the final text)."""
    events = platform_cases.trace_events(case)
    last_user = max((i for i, e in enumerate(events) if e.author == platform_cases.USER_AUTHOR), default=-1)
    after = [event for event in events[last_user + 1 :] if event.content is not None]
    response = case.responses[0].response if case.responses else platform_cases.final_response_of(after)
    return Invocation(
        user_content=user,
        final_response=response,
        intermediate_data=InvocationEvents(
            invocation_events=[
                InvocationEvent(author=event.author or "agent", content=event.content) for event in after
            ]
        ),
    )


class _Ids:
    def __init__(self) -> None:
        self.seen: set[str] = set()

    def derive(self, case: platform_cases.PlatformEvalCase, index: int) -> str:
        user = _user_message(case)
        text = platform_cases.text_of(user) if user is not None else None
        base = derived_id(text) if text and text.strip() else f"eval_cases[{index}]"
        candidate = unique_id(base, self.seen)
        self.seen.add(candidate)
        return candidate


def load_platform_dataset(path: Path, *, display: str, text: str, data: Any) -> LoadedEvalSet:
    """The dataset (its text and parsed JSON given) as an eval set; ``EvalFileError`` for what spoils the file."""
    if not isinstance(data, dict):
        raise EvalFileError("must be an EvaluationDataset object with eval_cases", file=display, line=1)
    dataset = _validated(data, text=text, display=display)
    cases = dataset.eval_cases or []
    if not cases:
        raise EvalFileError(
            "has no eval cases", file=display, line=1, field="eval_cases", hint="add cases or delete the file"
        )
    key = next(name for name in _CASES_KEYS if name in data)
    positions = JsonPositions(text)
    loaded = LoadedEvalSet(
        path, display, EvalSet(eval_set_id=Path(display).name.removesuffix(".json"), eval_cases=[]), FORMAT
    )
    if dataset.gcs_source or dataset.bigquery_source:
        loaded.warnings.append(
            f"{display}: gcs_source and bigquery_source are read by the evaluation SDK only; the gate uses eval_cases"
        )
    ids = _Ids()
    own: dict[str, int] = {}
    for index, case in enumerate(cases):
        line = locate(positions, [key, index]) or 1
        eval_id = case.eval_case_id
        if eval_id is not None:
            if eval_id in own:
                raise EvalFileError(
                    f"duplicate eval_case_id {eval_id!r} (also {key}[{own[eval_id]}])",
                    file=display,
                    line=locate(positions, [key, index, "eval_case_id"]) or line,
                    field=f"{key}[{index}].eval_case_id",
                    hint="case ids must be unique within a file",
                )
            own[eval_id] = index
            ids.seen.add(eval_id)
    for index, case in enumerate(cases):
        line = locate(positions, [key, index]) or 1
        eval_id = case.eval_case_id if case.eval_case_id is not None else ids.derive(case, index)
        _add_case(loaded, case, eval_id=eval_id, line=line, field=f"{key}[{index}]")
    return loaded


def _add_case(
    loaded: LoadedEvalSet, case: platform_cases.PlatformEvalCase, *, eval_id: str, line: int, field: str
) -> None:
    shape = platform_cases.case_shape(case)
    user = _user_message(case)
    stored = case.model_dump(mode="json", exclude_none=True)
    if shape not in ("prompt", "continued", "recorded") or user is None:
        problem = (
            shape if user is not None or shape not in ("prompt", "continued", "recorded") else "has no user message"
        )
        error = EvalFileError(problem, file=loaded.display, line=line, field=field)
        loaded.eval_set.eval_cases.append(
            EvalCase(eval_id=eval_id, conversation=[], **{platform_cases.CASE_KEY: stored})
        )
        loaded.row_errors[eval_id] = error.one_line()
    else:
        extra = {platform_cases.CASE_KEY: stored}
        loaded.eval_set.eval_cases.append(EvalCase(eval_id=eval_id, conversation=[_expected(case, user)], **extra))
        if shape == "recorded":
            loaded.recorded[eval_id] = _recorded(case, user)
        if case.responses and len(case.responses) > 1:
            loaded.warnings.append(
                f"{loaded.display}:{line}: {field}.responses has {len(case.responses)} responses; the gate scores the "
                "first, as agents-cli's grading does for one candidate"
            )
    loaded.case_lines[eval_id] = line


def load_json_eval_file(path: Path, *, display: str) -> LoadedEvalSet:
    """A JSON eval file of either kind: an Agent Platform dataset when its top level is one, else ADK's."""
    text, data = read_json(path, display, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    if formats.is_platform_dataset_name(path.name) or is_platform_dataset(data):
        return load_platform_dataset(path, display=display, text=text, data=data)
    return load_parsed(path, display=display, text=text, data=data)

"""ADK's legacy eval formats and their conversion to EvalSet, as ADK 2.13 converts them.

* the query list (``[{"query": ..., "expected_tool_use": [...], "reference": ...}, ...]``): the whole file is
  ONE case whose rows are consecutive turns (``AgentEvaluator``'s conversion);
* the named list (``[{"name": ..., "data": [rows], "initial_session": {...}}, ...]``): one case per element
  (``load_eval_set_from_file``'s conversion).
"""

from __future__ import annotations

import difflib
import time
import uuid
from collections.abc import Callable
from typing import Any

from google.genai import types as genai_types

from adk_eval_gate.model.evalset import EvalCase, EvalSet, IntermediateData, Invocation, SessionInput


class LegacyFormatError(ValueError):
    def __init__(self, message: str, path: list[str | int]) -> None:
        super().__init__(message)
        self.path = path


IdFactory = Callable[[], str]


ROW_KEYS = ("query", "reference", "expected_tool_use", "expected_intermediate_agent_responses")
NAMED_KEYS = ("name", "data", "initial_session")


def unknown_keys(data: list[Any]) -> list[tuple[list[str | int], str | None]]:
    """Keys ADK's legacy converters ignore, with their paths and the known key each is likely a misspelling of."""
    found: list[tuple[list[str | int], str | None]] = []

    def check(item: Any, path: list[str | int], known: tuple[str, ...]) -> None:
        for key in item if isinstance(item, dict) else []:
            if key not in known:
                close = difflib.get_close_matches(str(key), known, n=1)
                found.append(([*path, key], close[0] if close else None))

    for index, item in enumerate(data):
        if is_named_list(data):
            check(item, [index], NAMED_KEYS)
            for row_index, row in enumerate(item.get("data") or [] if isinstance(item, dict) else []):
                check(row, [index, "data", row_index], ROW_KEYS)
        else:
            check(item, [index], ROW_KEYS)
    return found


def is_query_list(data: Any) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(row, dict) for row in data)
        and any("query" in row for row in data)
    )


def is_named_list(data: Any) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(item, dict) and "data" in item and "name" in item for item in data)
    )


def tool_calls_of(tool_uses: Any, path: list[str | int]) -> list[genai_types.FunctionCall]:
    """``[{"tool_name": ..., "tool_input": {...}}, ...]`` (a legacy row's expected tool use, a Vertex AI
    trajectory) as function calls."""
    if not isinstance(tool_uses, list):
        raise LegacyFormatError('must be a list of {"tool_name": ..., "tool_input": {...}} objects', path)
    calls: list[genai_types.FunctionCall] = []
    for index, tool_use in enumerate(tool_uses):
        where: list[str | int] = [*path, index]
        if not isinstance(tool_use, dict) or "tool_name" not in tool_use:
            raise LegacyFormatError('each tool use needs "tool_name" and "tool_input"', where)
        if not isinstance(tool_use["tool_name"], str):
            raise LegacyFormatError('"tool_name" must be a string', [*where, "tool_name"])
        if "tool_input" not in tool_use:
            raise LegacyFormatError(
                '"tool_input" is required (use {} for a call without arguments)', [*where, "tool_input"]
            )
        args = tool_use["tool_input"]
        if args is not None and not isinstance(args, dict):
            raise LegacyFormatError('"tool_input" must be an object', [*where, "tool_input"])
        calls.append(genai_types.FunctionCall(name=tool_use["tool_name"], args=args))
    return calls


def _row_to_invocation(row: Any, path: list[str | int], *, new_id: IdFactory, now: float) -> Invocation:
    if not isinstance(row, dict):
        raise LegacyFormatError('each row must be an object with a "query"', path)
    if "query" not in row:
        raise LegacyFormatError('"query" is required', [*path, "query"])
    if not isinstance(row["query"], str):
        raise LegacyFormatError('"query" must be a string', [*path, "query"])
    reference = row.get("reference", "")
    if reference is not None and not isinstance(reference, str):  # null: an empty expected response, as in ADK
        raise LegacyFormatError('"reference" must be a string', [*path, "reference"])
    tool_uses = tool_calls_of(row.get("expected_tool_use", []) or [], [*path, "expected_tool_use"])
    intermediate: list[tuple[str, list[genai_types.Part]]] = []
    for index, response in enumerate(row.get("expected_intermediate_agent_responses", []) or []):
        where: list[str | int] = [*path, "expected_intermediate_agent_responses", index]
        if not isinstance(response, dict) or "author" not in response or "text" not in response:
            raise LegacyFormatError(
                'each intermediate response must be an object with "author" and "text" '
                "(ADK cannot convert plain strings)",
                where,
            )
        intermediate.append((response["author"], [genai_types.Part.from_text(text=response["text"])]))
    return Invocation(
        invocation_id=new_id(),
        user_content=genai_types.Content(parts=[genai_types.Part.from_text(text=row["query"])], role="user"),
        final_response=genai_types.Content(parts=[genai_types.Part(text=reference)], role="model"),
        intermediate_data=IntermediateData(tool_uses=tool_uses, intermediate_responses=intermediate),
        creation_timestamp=now,
    )


def session_input_from(initial_session: Any, path: list[str | int]) -> SessionInput | None:
    """A legacy initial session (any object with app_name, user_id, state) as a SessionInput; None when empty."""
    if not initial_session:
        return None
    if not isinstance(initial_session, dict):
        raise LegacyFormatError("the initial session must be an object", path)
    return SessionInput(
        app_name=initial_session.get("app_name", ""),
        user_id=initial_session.get("user_id", ""),
        state=initial_session.get("state", {}),
    )


def convert_query_list(
    rows: list[Any],
    *,
    eval_id: str,
    eval_set_id: str,
    initial_session: dict[str, Any] | None,
    new_id: IdFactory | None = None,
    now: float | None = None,
) -> EvalSet:
    """The whole query list becomes one multi-turn case (``AgentEvaluator._get_eval_set_from_old_format``)."""
    make_id = new_id or (lambda: str(uuid.uuid4()))
    stamp = time.time() if now is None else now
    invocations = [_row_to_invocation(row, [index], new_id=make_id, now=stamp) for index, row in enumerate(rows)]
    case = EvalCase(
        eval_id=eval_id,
        conversation=invocations,
        session_input=session_input_from(initial_session, []),
        creation_timestamp=stamp,
    )
    return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=[case], creation_timestamp=stamp)


def convert_named_list(
    items: list[Any],
    *,
    eval_set_id: str,
    new_id: IdFactory | None = None,
    now: float | None = None,
) -> EvalSet:
    """One case per element (``convert_eval_set_to_pydantic_schema``)."""
    make_id = new_id or (lambda: str(uuid.uuid4()))
    stamp = time.time() if now is None else now
    cases: list[EvalCase] = []
    for index, item in enumerate(items):
        rows = item["data"]
        if not isinstance(rows, list):
            raise LegacyFormatError('"data" must be a list of rows', [index, "data"])
        invocations = [
            _row_to_invocation(row, [index, "data", row_index], new_id=make_id, now=stamp)
            for row_index, row in enumerate(rows)
        ]
        if not isinstance(item["name"], str):
            raise LegacyFormatError('"name" must be a string', [index, "name"])
        cases.append(
            EvalCase(
                eval_id=item["name"],
                conversation=invocations,
                session_input=session_input_from(item.get("initial_session"), [index, "initial_session"]),
                creation_timestamp=stamp,
            )
        )
    return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=cases, creation_timestamp=stamp)

"""Load one eval file into an EvalSet, whatever ADK shape it has, with clear errors.

A bad file raises ``EvalFileError`` naming the file, the JSON path, and the line (and column for syntax
errors); the caller records it and goes on with the other files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic

from adk_eval_gate.inputs import legacy
from adk_eval_gate.inputs.formats import FileFormat
from adk_eval_gate.model.evalset import EvalCase, EvalSet, Invocation, known_field_names
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.errors import EvalFileError, GateError, UnknownField
from adk_eval_gate.support.jsonpos import JsonPositions, format_path
from adk_eval_gate.support.pydantic_errors import best_error, file_problems, locate

INITIAL_SESSION_NAME = "initial.session.json"


@dataclass
class LoadedEvalSet:
    path: Path
    display: str  # repository-relative path, used in ids and reports
    eval_set: EvalSet
    format: FileFormat
    case_lines: dict[str, int] = field(default_factory=dict)
    initial_session_file: str | None = None
    warnings: list[str] = field(default_factory=list)  # what ADK ignores in the file (unknown legacy keys)
    # Vertex-style datasets: the rows with the agent's answer (eval_id -> the actual invocation, scored as a
    # recorded run), and the rows that cannot be used (eval_id -> the one-line error, the case's error).
    recorded: dict[str, Invocation] = field(default_factory=dict)
    row_errors: dict[str, str] = field(default_factory=dict)


def read_text(path: Path, display: str, error_type: type[GateError] = EvalFileError, *, what: str = "") -> str:
    """The file's text (UTF-8, a byte-order mark dropped), or ``error_type`` naming the file and line (``what``: how
    the message names the file, such as "the config")."""
    subject = f"{what} " if what else ""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise error_type(f"{subject}cannot be read: {error.strerror}", file=display) from None
    return decoded(raw, display, error_type, what=what)


def decoded(raw: bytes, display: str, error_type: type[GateError] = EvalFileError, *, what: str = "") -> str:
    """A file's bytes as UTF-8 text (a byte-order mark dropped), or ``error_type`` naming the file and the line of
    the first byte that is not UTF-8."""
    subject = f"{what} " if what else ""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise error_type(
            f"{subject}is not UTF-8 (byte 0x{raw[error.start]:02x} at offset {error.start})",
            file=display,
            line=line,
            hint="save the file as UTF-8",
        ) from None


def read_json(
    path: Path, display: str, error_type: type[GateError] = EvalFileError, *, max_depth: int = sanitize.MAX_FILE_DEPTH
) -> tuple[str, Any]:
    text = read_text(path, display, error_type)
    return text, parsed_json(text, display, error_type, max_depth=max_depth)


def parsed_json(
    text: str, display: str, error_type: type[GateError] = EvalFileError, *, max_depth: int = sanitize.MAX_FILE_DEPTH
) -> Any:
    """A file's JSON text parsed through ``sanitize`` (depth, non-finite numbers), or ``error_type`` naming the file,
    line and column."""
    try:
        return sanitize.loads(text, max_depth=max_depth)
    except json.JSONDecodeError as error:
        raise error_type(
            f"invalid JSON: {error.msg}",
            file=display,
            line=error.lineno,
            column=error.colno,
            hint="fix the JSON syntax",
        ) from None
    except sanitize.UnsafeJson as error:
        raise error_type(f"cannot be used: {error}", file=display, line=error.line) from None


def load_eval_file(path: Path, *, display: str) -> LoadedEvalSet:
    text, data = read_json(path, display, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    return load_parsed(path, display=display, text=text, data=data)


def load_parsed(path: Path, *, display: str, text: str, data: Any) -> LoadedEvalSet:
    """An ADK eval file from its text and parsed JSON."""
    if isinstance(data, dict):
        eval_set = _validate_eval_set(data, text=text, display=display)
        loaded = LoadedEvalSet(path, display, eval_set, "evalset")
    elif isinstance(data, list):
        loaded = _load_legacy(path, data, text=text, display=display)
    else:
        raise EvalFileError(
            "must be an EvalSet object or a legacy list of queries",
            file=display,
            line=1,
            hint="see ADK's eval file format",
        )
    _check_cases(loaded, text=text)
    loaded.case_lines = _case_lines(loaded, text)
    return loaded


# Keys of a legacy query-list row, and where an EvalSet invocation keeps the same thing.
LEGACY_ROW_KEYS = {
    "query": "user_content",
    "reference": "final_response",
    "expected_tool_use": "intermediate_data.tool_uses",
    "expected_intermediate_agent_responses": "intermediate_data.intermediate_responses",
}


def _validate_eval_set(data: dict[str, Any], *, text: str, display: str) -> EvalSet:
    if not {"eval_set_id", "evalSetId", "eval_cases", "evalCases"} & data.keys():
        keys = ", ".join(json.dumps(key, ensure_ascii=False)[:40] for key in list(data)[:8])
        raise EvalFileError(
            f"is not an ADK eval set: it has neither eval_set_id nor eval_cases (its top-level keys: {keys or 'none'})",
            file=display,
            line=1,
            field="eval_set_id",
            hint="an eval set is an object with eval_set_id and eval_cases, or a legacy list of queries",
        )
    try:
        return EvalSet.model_validate(data)
    except pydantic.ValidationError as error:
        raise file_problems(error, data, model=EvalSet, text=text, display=display, hint=_legacy_key_hint) from None


def _legacy_key_hint(path: list[str | int]) -> str | None:
    """A legacy query-list key inside an EvalSet invocation: say where the EvalSet format keeps it."""
    if len(path) == 5 and path[0] == "eval_cases" and path[2] == "conversation" and path[4] in LEGACY_ROW_KEYS:
        key = str(path[4])
        return f"{key} is a key of the legacy query list; an EvalSet invocation uses {LEGACY_ROW_KEYS[key]}"
    return None


def _load_legacy(path: Path, data: list[Any], *, text: str, display: str) -> LoadedEvalSet:
    loaded = _convert_legacy(path, data, text=text, display=display)
    positions = JsonPositions(text)
    for key_path, close in legacy.unknown_keys(data):
        suggestion = f"; did you mean {close!r}?" if close else ""
        loaded.warnings.append(
            UnknownField(
                f"{display}:{locate(positions, key_path) or 1}: {format_path(key_path)} is not a key ADK reads in a "
                f"legacy file and is ignored (as ADK does){suggestion}"
            )
        )
    return loaded


def _convert_legacy(path: Path, data: list[Any], *, text: str, display: str) -> LoadedEvalSet:
    if not data:
        raise EvalFileError(
            "is an empty list: there are no eval cases",
            file=display,
            line=1,
            hint="add cases or delete the file",
        )
    try:
        if legacy.is_named_list(data):
            return LoadedEvalSet(
                path,
                display,
                legacy.convert_named_list(data, eval_set_id=display, new_id=sequential_ids(display), now=0.0),
                "legacy_named_list",
            )
        if legacy.is_query_list(data):
            eval_set = legacy.convert_query_list(
                data,
                eval_id=display,
                eval_set_id=display,
                initial_session=None,
                new_id=sequential_ids(display),
                now=0.0,
            )
            return LoadedEvalSet(path, display, eval_set, "legacy_query_list")
    except legacy.LegacyFormatError as error:
        raise legacy_file_error(error, text=text, display=display) from None
    except pydantic.ValidationError as error:
        where, message = best_error(error, data, known_fields=known_field_names())
        raise EvalFileError(
            message, file=display, line=locate(JsonPositions(text), where), field=format_path(where)
        ) from None
    raise EvalFileError(
        'a list must be a legacy query list (objects with "query") or a named list (objects with "name" and "data")',
        file=display,
        line=1,
    )


def legacy_file_error(error: legacy.LegacyFormatError, *, text: str, display: str) -> EvalFileError:
    """A legacy file's problem with the file, line and field it is at."""
    return EvalFileError(
        str(error), file=display, line=locate(JsonPositions(text), error.path), field=format_path(error.path)
    )


def sequential_ids(prefix: str) -> legacy.IdFactory:
    counter = iter(range(1_000_000_000))
    return lambda: f"{prefix}#{next(counter)}"


def with_session_beside(loaded: LoadedEvalSet, *, read: bool) -> LoadedEvalSet:
    """A legacy query list's session. ADK 2.13 reads no file beside it (``adk eval`` none at all, AgentEvaluator
    only its ``initial_session_file=``), so neither does the gate unless ``read`` (``--legacy-session-file``): then
    the ``initial.session.json`` beside the file seeds the case's session; else one is only named in a warning."""
    if loaded.format != "legacy_query_list" or not (loaded.path.parent / INITIAL_SESSION_NAME).is_file():
        return loaded
    if not read:
        loaded.warnings.append(
            f"{loaded.display}: the {INITIAL_SESSION_NAME} beside it is not read, as ADK does not read it; "
            "pass --legacy-session-file (input legacy-session-file) to seed the session from it"
        )
        return loaded
    initial_session, initial_file = initial_session_beside(loaded.path, loaded.display)
    try:
        session_input = legacy.session_input_from(initial_session, [])
    except legacy.LegacyFormatError as error:
        raise EvalFileError(str(error), file=initial_file, line=1) from None
    except pydantic.ValidationError as error:
        where, message = best_error(error, initial_session)
        raise EvalFileError(message, file=initial_file, line=1, field=format_path(where)) from None
    (case,) = loaded.eval_set.eval_cases
    loaded.eval_set.eval_cases[0] = case.model_copy(update={"session_input": session_input})
    loaded.initial_session_file = initial_file
    return loaded


def initial_session_beside(path: Path, display: str) -> tuple[dict[str, Any] | None, str | None]:
    """The ``initial.session.json`` next to a legacy file, and where it is (``--legacy-session-file``)."""
    session_path = path.parent / INITIAL_SESSION_NAME
    if not session_path.is_file():
        return None, None
    session_display = str(Path(display).parent / INITIAL_SESSION_NAME)
    _, data = read_json(session_path, session_display, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    if not isinstance(data, dict):
        raise EvalFileError("must be a JSON object (app_name, user_id, state)", file=session_display, line=1)
    return data, session_display


def _check_cases(loaded: LoadedEvalSet, *, text: str) -> None:
    cases = loaded.eval_set.eval_cases
    if not cases:
        raise EvalFileError(
            "has no eval cases",
            file=loaded.display,
            line=1,
            field="eval_cases",
            hint="add cases or delete the file",
        )
    seen: dict[str, int] = {}
    for index, case in enumerate(cases):
        if case.eval_id in seen:
            raise EvalFileError(
                f"duplicate eval_id {case.eval_id!r} (also eval_cases[{seen[case.eval_id]}])",
                file=loaded.display,
                line=_eval_id_line(text, case.eval_id, occurrence=2),
                field=f"eval_cases[{index}].eval_id",
                hint="eval ids must be unique within a file",
            )
        seen[case.eval_id] = index
        _check_rubric_ids(case, index, loaded.display, text)


def _check_rubric_ids(case: EvalCase, index: int, display: str, text: str) -> None:
    case_ids = {rubric.rubric_id for rubric in case.rubrics or []}
    for turn, invocation in enumerate(case.conversation or []):
        for position, rubric in enumerate(invocation.rubrics or []):
            if rubric.rubric_id in case_ids:
                path: list[str | int] = ["eval_cases", index, "conversation", turn, "rubrics", position]
                raise EvalFileError(
                    f"rubric_id {rubric.rubric_id!r} is also a case-level rubric",
                    file=display,
                    line=locate(JsonPositions(text), path),
                    field=format_path(path),
                    hint="rubric ids must be unique across the case and its invocations (ADK raises otherwise)",
                )


def _eval_id_line(text: str, eval_id: str, occurrence: int = 1) -> int | None:
    pattern = re.compile(r'"(?:eval_id|evalId)"\s*:\s*' + _quoted(eval_id))
    matches = list(pattern.finditer(text))
    if len(matches) < occurrence:
        return None
    return text.count("\n", 0, matches[occurrence - 1].start()) + 1


def _case_lines(loaded: LoadedEvalSet, text: str) -> dict[str, int]:
    if loaded.format == "legacy_query_list":
        return {case.eval_id: 1 for case in loaded.eval_set.eval_cases}
    if loaded.format == "legacy_named_list":
        lines = {}
        for case in loaded.eval_set.eval_cases:
            match = re.search(r'"name"\s*:\s*' + _quoted(case.eval_id), text)
            lines[case.eval_id] = text.count("\n", 0, match.start()) + 1 if match else 1
        return lines
    first = _eval_id_lines(text)
    return {case.eval_id: first.get(case.eval_id, 1) for case in loaded.eval_set.eval_cases}


_EVAL_ID = re.compile(r'"(?:eval_id|evalId)"\s*:\s*("(?:[^"\\]|\\.)*")')


def _eval_id_lines(text: str) -> dict[str, int]:
    """The line of each eval id's first ``eval_id`` key, in one pass over the text (a search per case made large
    files quadratic: minutes for 10,000 cases)."""
    lines: dict[str, int] = {}
    line, counted = 1, 0
    for match in _EVAL_ID.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        try:
            eval_id = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(eval_id, str):
            lines.setdefault(eval_id, line)
    return lines


def _quoted(value: str) -> str:
    """A regex for a JSON string literal of ``value``, written with or without escapes."""
    forms = {json.dumps(value), json.dumps(value, ensure_ascii=False)}
    return "(?:" + "|".join(re.escape(form) for form in sorted(forms)) + ")"

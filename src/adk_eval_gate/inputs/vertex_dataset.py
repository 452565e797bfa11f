"""Vertex AI-style datasets (JSONL or CSV) as eval files: one single-turn case per row.

The columns are those of Vertex AI's agent evaluation datasets: ``prompt`` (required), ``reference`` (the
expected final response), ``reference_trajectory`` (the expected tool calls, ``[{"tool_name": ...,
"tool_input": {...}}]``), and the agent's recorded answer: ``response``, ``predicted_trajectory`` and
``latency_in_seconds``. In CSV the trajectories are JSON text. A row with a ``response`` or a
``predicted_trajectory`` is scored as a recorded run (no agent runs); a row with neither is run through the
agent like any single-turn case.

A case's id is the row's ``eval_id`` (or ``id``) column; without one it is derived from the prompt
(``what_is_the_weather_in_paris-1a2b3c4d``), so it stays the same from run to run and the baseline comparison
matches the row. A bad row is an error for that row, with its file and line; the other rows still run.
"""

from __future__ import annotations

import contextlib
import csv
import difflib
import hashlib
import io
import json
import math
import re
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.genai import types as genai_types

from adk_eval_gate.inputs import formats, legacy
from adk_eval_gate.inputs.load import LoadedEvalSet, read_text
from adk_eval_gate.model.evalset import EvalCase, EvalSet, IntermediateData, Invocation
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.errors import EvalFileError, UnknownField
from adk_eval_gate.support.jsonpos import format_path

ID_COLUMNS = ("eval_id", "id")
COLUMNS = (
    *ID_COLUMNS,
    "prompt",
    "reference",
    "reference_trajectory",
    "response",
    "predicted_trajectory",
    "latency_in_seconds",
)
_SLUG_LENGTH = 40


@dataclass
class _Rows:
    """A dataset's rows as (line, column values), the rows that are not even records, and the columns."""

    values: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    broken: list[EvalFileError] = field(default_factory=list)
    columns: set[str] = field(default_factory=set)


def _is_csv(path: Path, text: str) -> bool:
    name = path.name.lower()
    if name.endswith(formats.VERTEX_CSV.named_suffixes):
        return True
    if name.endswith(formats.VERTEX_JSONL.named_suffixes):
        return False
    return not text.lstrip().startswith("{")  # a --dataset FILE of any name: JSON Lines start with an object


def _jsonl_rows(text: str, display: str) -> _Rows:
    rows = _Rows()
    for number, line in enumerate(text.split("\n"), start=1):  # not splitlines: U+2028 may sit inside a string
        if not line.strip():
            continue
        try:
            value = sanitize.loads(line, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
        except json.JSONDecodeError as error:
            rows.broken.append(
                EvalFileError(f"invalid JSON: {error.msg}", file=display, line=number, column=error.colno)
            )
            continue
        except sanitize.UnsafeJson as error:
            rows.broken.append(EvalFileError(f"cannot be used: {error}", file=display, line=number))
            continue
        if not isinstance(value, dict):
            rows.broken.append(EvalFileError("a row must be a JSON object with a prompt", file=display, line=number))
            continue
        rows.values.append((number, value))
        rows.columns.update(value)
    return rows


def _csv_rows(text: str, display: str) -> _Rows:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            return _Rows()
        columns = [name.strip() for name in header]
        if "prompt" not in columns:
            raise EvalFileError(
                f"has no prompt column (its columns: {', '.join(columns)[:200] or 'none'})",
                file=display,
                line=1,
                field="prompt",
                hint="the first line names the columns: prompt, reference, response, reference_trajectory, ...",
            )
        rows = _Rows(columns=set(columns))
        start = reader.line_num + 1  # the line a record starts on: a quoted cell may span lines
        for record in reader:
            if len(record) > len(columns):
                rows.broken.append(
                    EvalFileError(
                        f"has {len(record)} cells but the header names {len(columns)} columns",
                        file=display,
                        line=start,
                        hint="quote cells that hold commas",
                    )
                )
            elif any(cell.strip() for cell in record):
                cells = zip(columns, record, strict=False)  # a short record leaves its last columns out
                rows.values.append((start, {name: cell for name, cell in cells if cell != ""}))
            start = reader.line_num + 1
    except csv.Error as error:
        raise EvalFileError(f"is not valid CSV: {error}", file=display, line=reader.line_num or 1) from None
    return rows


def _text(row: dict[str, Any], column: str, *, required: bool = False) -> str | None:
    value = row.get(column)
    if value is None:
        if required:
            raise legacy.LegacyFormatError("is required", [column])
        return None
    if not isinstance(value, str):
        raise legacy.LegacyFormatError(f"must be a string, got {json.dumps(value)[:60]}", [column])
    if required and not value.strip():
        raise legacy.LegacyFormatError("is empty", [column])
    return value


def _trajectory(row: dict[str, Any], column: str) -> list[genai_types.FunctionCall] | None:
    value = row.get(column)
    if value is None:
        return None
    if isinstance(value, str):  # CSV cells (and some JSONL writers) hold the trajectory as JSON text
        try:
            value = sanitize.loads(value, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
        except json.JSONDecodeError as error:
            raise legacy.LegacyFormatError(f"is not valid JSON: {error.msg} (column {error.colno})", [column]) from None
        except sanitize.UnsafeJson as error:
            raise legacy.LegacyFormatError(f"cannot be used: {error}", [column]) from None
    return legacy.tool_calls_of(value, [column])


def _latency(row: dict[str, Any]) -> float | None:
    value = row.get("latency_in_seconds")
    if value is None:
        return None
    seconds = math.nan
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        with contextlib.suppress(ValueError):
            seconds = float(value)
    if not math.isfinite(seconds) or seconds < 0:
        raise legacy.LegacyFormatError(f"must be a number of seconds, got {str(value)[:60]!r}", ["latency_in_seconds"])
    return seconds


def _content(text: str | None, role: str) -> genai_types.Content | None:
    return None if text is None else genai_types.Content(role=role, parts=[genai_types.Part(text=text)])


def _expected_and_recorded(row: dict[str, Any]) -> tuple[Invocation, Invocation | None]:
    """The row's expected turn, and its recorded actual turn when it carries the agent's answer."""
    user = genai_types.Content(role="user", parts=[genai_types.Part(text=_text(row, "prompt", required=True))])
    reference_calls = _trajectory(row, "reference_trajectory")
    expected = Invocation(
        user_content=user,
        final_response=_content(_text(row, "reference"), "model"),
        intermediate_data=IntermediateData(tool_uses=reference_calls) if reference_calls is not None else None,
    )
    response, predicted_calls, latency = _text(row, "response"), _trajectory(row, "predicted_trajectory"), _latency(row)
    if response is None and predicted_calls is None:
        return expected, None
    recorded = Invocation(
        user_content=user,
        final_response=_content(response, "model"),
        intermediate_data=IntermediateData(tool_uses=predicted_calls or []),
        duration=latency,
    )
    return expected, recorded


def derived_id(prompt: str) -> str:
    """A case id from the prompt: its first words and a digest of it (stable while the prompt is unchanged)."""
    slug = re.sub(r"\W+", "_", prompt.lower()).strip("_")[:_SLUG_LENGTH].rstrip("_")
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else digest


def unique_id(base: str, taken: Container[str]) -> str:
    """``base``, or ``base-2``, ``base-3``... whichever is not ``taken`` first (the same prompt again)."""
    candidate, number = base, 1
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _own_id(row: dict[str, Any]) -> str | None:
    for column in ID_COLUMNS:
        value = row.get(column)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    return None


class _Ids:
    """Unique case ids: the row's own, else derived from its prompt (``-2``, ``-3`` for the same prompt again)."""

    def __init__(self) -> None:
        self.lines: dict[str, int] = {}

    def take(self, row: dict[str, Any], line: int) -> tuple[str, str | None]:
        """(the id, why the row cannot use its own id)."""
        own = _own_id(row)
        if own is not None:
            if own not in self.lines:
                self.lines[own] = line
                return own, None
            return self.fresh(f"line-{line}", line), f"duplicate eval_id {own!r} (also line {self.lines[own]})"
        prompt = row.get("prompt")
        base = derived_id(prompt) if isinstance(prompt, str) and prompt.strip() else f"line-{line}"
        return self.fresh(base, line), None

    def fresh(self, base: str, line: int) -> str:
        candidate = unique_id(base, self.lines)
        self.lines[candidate] = line
        return candidate


def _misspelt_columns(columns: set[str], display: str) -> list[str]:
    warnings: list[str] = []
    for column in sorted(columns - set(COLUMNS)):
        close = difflib.get_close_matches(column, COLUMNS, n=1, cutoff=0.8)
        if close and close[0] not in columns:
            warnings.append(UnknownField(f"{display}: column {column!r} is not read; did you mean {close[0]!r}?"))
    return warnings


def load_dataset(path: Path, *, display: str) -> LoadedEvalSet:
    """The dataset as an eval set; raises ``EvalFileError`` only for what spoils the whole file."""
    text = read_text(path, display)
    is_csv = _is_csv(path, text)
    rows = _csv_rows(text, display) if is_csv else _jsonl_rows(text, display)
    loaded = LoadedEvalSet(
        path,
        display,
        EvalSet(eval_set_id=path.name.split(".")[0] or display, eval_cases=[]),
        "vertex_csv" if is_csv else "vertex_jsonl",
        warnings=_misspelt_columns(rows.columns, display),
    )
    ids = _Ids()
    for error in rows.broken:
        _add_bad_row(loaded, ids.fresh(f"line-{error.line}", error.line or 0), error)
    for line, row in rows.values:
        eval_id, id_problem = ids.take(row, line)
        if id_problem:
            field_name = next(column for column in ID_COLUMNS if column in row)
            _add_bad_row(loaded, eval_id, EvalFileError(id_problem, file=display, line=line, field=field_name))
            continue
        try:
            expected, recorded = _expected_and_recorded(row)
        except legacy.LegacyFormatError as error:
            problem = EvalFileError(str(error), file=display, line=line, field=format_path(error.path))
            _add_bad_row(loaded, eval_id, problem)
            continue
        loaded.eval_set.eval_cases.append(EvalCase(eval_id=eval_id, conversation=[expected]))
        loaded.case_lines[eval_id] = line
        if recorded is not None:
            loaded.recorded[eval_id] = recorded
    if not loaded.eval_set.eval_cases:
        raise EvalFileError("has no rows", file=display, line=1, hint="add rows or delete the file")
    loaded.eval_set.eval_cases.sort(key=lambda case: loaded.case_lines[case.eval_id])
    return loaded


def _add_bad_row(loaded: LoadedEvalSet, eval_id: str, error: EvalFileError) -> None:
    loaded.eval_set.eval_cases.append(EvalCase(eval_id=eval_id, conversation=[]))
    loaded.case_lines[eval_id] = error.line or 1
    loaded.row_errors[eval_id] = error.one_line()

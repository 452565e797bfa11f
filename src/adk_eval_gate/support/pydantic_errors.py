"""One-line messages for pydantic validation errors, with the JSON path and its line in the file."""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection, Sequence
from typing import Any

import pydantic
from pydantic import alias_generators

from adk_eval_gate.support.jsonpos import JsonPositions


def clean_loc(loc: Sequence[Any], data: Any, *, names_field: bool = True) -> list[str | int]:
    """An error location as a path into ``data``, without pydantic's union-member and validator markers.

    A location item that is not a key (or index) of the data at that point is a marker, except the last one
    of a "missing" or "extra" error (``names_field``), which names the field.
    """
    out: list[str | int] = []
    node = data
    items = list(loc)
    for position, item in enumerate(items):
        if isinstance(node, dict) and isinstance(item, str):
            key = item if item in node else _alias_in(node, item)
            if key is not None:
                out.append(key)
                node = node[key]
                continue
        elif isinstance(node, list) and isinstance(item, int) and 0 <= item < len(node):
            out.append(item)
            node = node[item]
            continue
        if names_field and position == len(items) - 1 and isinstance(item, str) and isinstance(node, dict):
            out.append(alias_generators.to_snake(item))  # pydantic names a missing field by its camelCase alias
    return out


def _alias_in(node: dict[str, Any], name: str) -> str | None:
    camel = alias_generators.to_camel(name)
    return camel if camel in node else None


def _describe(error: Any, known_fields: Collection[str] = ()) -> str:
    kind = error.get("type", "")
    msg = str(error.get("msg", "invalid value"))
    value = error.get("input")
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        loc = error.get("loc", ())
        close = difflib.get_close_matches(str(loc[-1]), sorted(known_fields), n=1) if loc else []
        spelling = f"did you mean {close[0]!r}?" if close else "check the spelling"
        return f"is not a known field here (ADK rejects unknown keys in this object; {spelling})"
    if kind in {"float_parsing", "float_type", "int_parsing", "int_type"}:
        return f"must be a number, got {_short(value)}"
    if kind in {"string_type"}:
        return f"must be a string, got {_short(value)}"
    if kind in {"list_type"}:
        return f"must be a list, got {_short(value)}"
    if kind in {"dict_type", "model_type", "model_attributes_type"}:
        return f"must be an object, got {_short(value)}"
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    return f"{msg} (got {_short(value)})"


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def best_error(
    exc: pydantic.ValidationError,
    data: Any,
    *,
    prefix: Sequence[str | int] = (),
    known_fields: Collection[str] = (),
) -> tuple[list[str | int], str]:
    """The most specific error (deepest location) of a validation error, as (path, message)."""
    errors = exc.errors(include_url=False)

    def path_of(error: Any) -> list[str | int]:
        names_field = error.get("type") in {"missing", "extra_forbidden"}
        return clean_loc(error.get("loc", ()), data, names_field=names_field)

    # the deepest; at equal depth an unknown key before a missing one: a misspelt key is usually why one is missing
    best = max(errors, key=lambda e: (len(path_of(e)), e.get("type") == "extra_forbidden"))
    path = [*prefix, *path_of(best)]
    others = {tuple(path_of(e)) for e in errors if e is not best}
    more = len([p for p in others if list(p) != path_of(best)[: len(p)]])  # union alternatives are not news
    message = _describe(best, known_fields)
    if best.get("type") == "missing":
        message += _misspelt_as(path_of(best), data)
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return path, message


def _misspelt_as(path: list[str | int], data: Any) -> str:
    """For a missing field: the key of the same object that looks like a misspelling of it, if there is one."""
    node = data
    for item in path[:-1]:
        try:
            node = node[item]
        except (KeyError, IndexError, TypeError):
            return ""
    if not isinstance(node, dict) or not path:
        return ""
    close = difflib.get_close_matches(str(path[-1]), [str(key) for key in node], n=1, cutoff=0.75)
    return f" (this object has {close[0]!r}: did you mean {str(path[-1])!r}?)" if close else ""


def locate(positions: JsonPositions | None, path: Sequence[str | int]) -> int | None:
    if positions is None:
        return None
    found = positions.locate(path)
    return found[0] if found else None


def first_error(exc: pydantic.ValidationError) -> tuple[str, str]:
    """The first error of a validation error as (dotted location, pydantic's message), for one-line reports."""
    first = exc.errors(include_url=False)[0]
    return ".".join(str(item) for item in first.get("loc", ())), str(first.get("msg", "invalid value"))

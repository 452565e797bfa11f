"""One-line messages for pydantic validation errors, with the JSON path and its line in the file."""

from __future__ import annotations

import difflib
import json
import types
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import pydantic
from pydantic import alias_generators

from adk_eval_gate.support.errors import EvalFileError, GateError, first_of
from adk_eval_gate.support.jsonpos import JsonPositions, format_path


def _clean_loc(loc: Sequence[Any], data: Any, *, names_field: bool = True) -> list[str | int]:
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


MAX_LISTED = 50  # problems of one file listed at once (``every_error``); the others are only counted
_FIELDS_SHOWN = 20


def _describe(error: Any, known_fields: Collection[str] = (), *, model: type[pydantic.BaseModel] | None = None) -> str:
    kind = error.get("type", "")
    msg = str(error.get("msg", "invalid value"))
    value = error.get("input")
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        loc = error.get("loc", ())
        allowed = _fields_at(model, loc[:-1]) if model is not None else None
        candidates = sorted(known_fields) if allowed is None else [name for pair in allowed.items() for name in pair]
        close = difflib.get_close_matches(str(loc[-1]), candidates, n=1) if loc else []
        if close and allowed is not None:  # the field's own name, whichever spelling matched
            close = [next(name for name, alias in allowed.items() if close[0] in (name, alias))]
        if allowed is None:
            spelling = f"did you mean {close[0]!r}?" if close else "check the spelling"
            return f"is not a known field here (ADK rejects unknown keys in this object; {spelling})"
        spelling = f"; did you mean {close[0]!r}?" if close else ""
        shown = list(allowed)[:_FIELDS_SHOWN]
        listed = ", ".join(shown) + (", ..." if len(allowed) > len(shown) else "")
        return (
            f"is not a known field here (ADK rejects unknown keys in this object{spelling}); the fields allowed "
            f"here: {listed or 'none'}"
        )
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
        return _clean_loc(error.get("loc", ()), data, names_field=names_field)

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


def every_error(
    exc: pydantic.ValidationError, data: Any, *, model: type[pydantic.BaseModel], limit: int = MAX_LISTED
) -> tuple[list[tuple[list[str | int], str]], int]:
    """The problems of a validation error as (path, message), at most ``limit`` of them, and how many more there
    are: one per path, without the union alternatives that failed earlier (a path inside another problem's
    object). ``model``: what was validated, whose field types say which fields each object allows."""
    errors = exc.errors(include_url=False)
    by_path: dict[tuple[str | int, ...], Any] = {}
    for error in errors:
        names_field = error.get("type") in {"missing", "extra_forbidden"}
        key = tuple(_clean_loc(error.get("loc", ()), data, names_field=names_field))
        unknown_key = error.get("type") == "extra_forbidden"
        if key not in by_path or (unknown_key and by_path[key].get("type") != "extra_forbidden"):
            by_path[key] = error  # at one path an unknown key before anything else: it is usually why
    inside = {key[:length] for key in by_path for length in range(len(key))}
    kept = [(list(key), error) for key, error in by_path.items() if key not in inside]
    found = []
    for path, error in kept[:limit]:
        message = _describe(error, model=model)
        if error.get("type") == "missing":
            message += _misspelt_as(path, data)
        found.append((path, message))
    return found, max(0, len(kept) - limit)


def _fields_at(model: type[pydantic.BaseModel] | None, loc: Sequence[Any]) -> dict[str, str] | None:
    """The fields (name: alias) of the object at pydantic's location ``loc`` inside ``model``, found through the
    field types (a union's member as pydantic names it in the location); None when it is not a model."""
    current: Any = model
    for item in loc:
        current = _inside(current, item)
        if current is None:
            return None
    current = _one_member(current)
    if isinstance(current, type) and issubclass(current, pydantic.BaseModel):
        return {name: info.alias or name for name, info in current.model_fields.items()}
    return None


def _one_member(annotation: Any) -> Any:
    """``X | None`` as ``X`` (pydantic names no member for an optional field); ``Annotated[X, ...]`` as ``X``."""
    while True:
        if typing.get_origin(annotation) is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
            continue
        members = _members(annotation)
        if members is not None and len(members) == 1:
            annotation = members[0]
            continue
        return annotation


def _members(annotation: Any) -> list[Any] | None:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [member for member in typing.get_args(annotation) if member is not type(None)]
    return None


def _inside(annotation: Any, item: Any) -> Any:
    """The type at ``item`` (a field, an index, a key, or a union member's name) inside ``annotation``."""
    annotation = _one_member(annotation)
    members = _members(annotation)
    if members is not None:
        return next((member for member in members if getattr(member, "__name__", str(member)) == item), None)
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        fields = annotation.model_fields
        return next((info.annotation for name, info in fields.items() if item in (name, info.alias)), None)
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if isinstance(item, int) and origin in (list, tuple, Sequence) and arguments:
        return arguments[0]
    if isinstance(item, str) and origin in (dict, Mapping) and len(arguments) == 2:
        return arguments[1]
    return None


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


def _no_hint(path: list[str | int]) -> str | None:
    return None


def file_problems(
    error: pydantic.ValidationError,
    data: Any,
    *,
    model: type[pydantic.BaseModel],
    text: str,
    display: str,
    kind: type[GateError] = EvalFileError,
    hint: Callable[[list[str | int]], str | None] = _no_hint,
) -> GateError:
    """Every problem pydantic found in one file's ``data``, each naming the file (``display``), its line in
    ``text`` and the field, as ``kind``; ``hint``: what to do about the field at a path. The first problem (by
    line) carries the others: raised, it reports them all at once."""
    found, unlisted = every_error(error, data, model=model)
    positions = JsonPositions(text)
    problems = (
        kind(message, file=display, line=locate(positions, path), field=format_path(path), hint=hint(path))
        for path, message in found
    )
    return first_of(problems, unlisted=unlisted)

"""Untrusted data made safe where it enters: eval files, results files, baselines, HTTP answers, agent output.

Three things crash or mislead the stages after the agents ran, so they are settled at the edge:

* lone surrogates (``"\\ud800"`` in JSON, or a broken string from an agent) cannot be written as UTF-8: they
  become U+FFFD;
* nesting without bound (a 5,000-deep baseline, tool arguments nested hundreds deep) exhausts recursion in the
  JSON parser, in pydantic's serializer (about 250 levels) and in the renderers: a file nested deeper than
  ``MAX_FILE_DEPTH`` is refused with a clear error, and an agent's value nested deeper than ``MAX_VALUE_DEPTH``
  is cut there, with a note on the case run;
* ``NaN`` and ``Infinity`` are not JSON, and a NaN score compares false with everything, which would hide a
  regression: they are refused, and so are numbers too large for a float (``1e400`` parses as infinity; an
  integer of 400 digits cannot be added to a float): every number that enters is finite.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

MAX_FILE_DEPTH = 200  # a results.json (ours adds about 15 levels around an eval file's or an agent's values)
MAX_EVAL_FILE_DEPTH = 120  # an eval file or config: its values nest inside results.json, under MAX_FILE_DEPTH
MAX_VALUE_DEPTH = 100  # one value from an agent (a tool call's arguments, a tool's response, the session state)
CUT_MARK = f"… (cut: nested deeper than {MAX_VALUE_DEPTH} levels)"

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONSTANT = re.compile(r"(?<![\w\"])(-?Infinity|NaN)(?![\w\"])")
_NUMBER = re.compile(r"(?<![\w\".])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w\".])")
_LARGEST = int(sys.float_info.max)


class UnsafeJson(ValueError):
    """JSON that parses but cannot be used safely (the message says why; ``line`` where, when known)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class _Constant(ValueError):
    pass


class _Overflow(ValueError):
    pass


def clean_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (the same string object when there are none)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _reject_constant(name: str) -> Any:
    raise _Constant(name)


def loads(text: str, *, max_depth: int = MAX_FILE_DEPTH) -> Any:
    """``json.loads`` for untrusted text: no NaN/Infinity or numbers too large for a float, at most ``max_depth``
    levels, no lone surrogates."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except _Constant as constant:
        match = _CONSTANT.search(text)
        line = text.count("\n", 0, match.start()) + 1 if match else None
        raise UnsafeJson(f"{constant} is not a JSON number (write null for a missing value)", line) from None
    except RecursionError:
        raise UnsafeJson(f"nested more than {max_depth} levels deep") from None
    try:
        cleaned, cut = _bounded(data, max_depth, finite=True)
    except _Overflow:
        literal, line = _overflowing_literal(text)
        raise UnsafeJson(
            f"{literal} is too large for a number (the largest is about 1.8e308; write null for a missing value)", line
        ) from None
    if cut:
        raise UnsafeJson(f"nested more than {max_depth} levels deep")
    return cleaned


def is_finite_number(value: float) -> bool:
    """Whether ``value`` (an int or a float) is a finite number a float can hold."""
    if isinstance(value, float):
        return not value - value  # inf - inf and nan - nan are nan (true); a finite number gives 0.0
    return -_LARGEST <= value <= _LARGEST


def shown_number(value: float) -> str:
    """A number for a message: ``inf``, ``nan``, ``1e+308``, or how long an integer too large for a float is (its
    decimal text may be longer than Python agrees to write)."""
    if isinstance(value, int) and not is_finite_number(value):
        return f"an integer of {value.bit_length() * 3 // 10}+ digits"
    return repr(value)


def _overflowing_literal(text: str) -> tuple[str, int | None]:
    """The first number in ``text`` too large for a float, and its line (only called once one was found)."""
    for match in _NUMBER.finditer(text):
        literal = match.group()
        number = float(literal) if any(c in literal for c in ".eE") else int(literal)
        if not is_finite_number(number):
            shown = literal if len(literal) <= 24 else f"{literal[:20]}… ({len(literal)} characters)"
            return shown, text.count("\n", 0, match.start()) + 1
    return "a number", None


def bounded(value: Any, *, max_depth: int = MAX_VALUE_DEPTH) -> tuple[Any, bool]:
    """(``value`` with lone surrogates replaced and containers below ``max_depth`` levels cut, whether it was cut).

    Returns the same objects where nothing changed, so clean data costs one walk and no copies.
    """
    return _bounded(value, max_depth, finite=False)


def _bounded(value: Any, depth_left: int, *, finite: bool) -> tuple[Any, bool]:
    """``finite``: raise ``_Overflow`` at a number too large for a float (parsed JSON holds no NaN or infinity
    otherwise: ``1e400`` parses as infinity)."""
    if isinstance(value, str):
        return clean_text(value), False
    if isinstance(value, dict):
        if depth_left <= 0:
            return CUT_MARK, True
        changed = cut = False
        items = []
        for key, item in value.items():
            new_key = clean_text(key) if isinstance(key, str) else key
            new_item, item_cut = _bounded(item, depth_left - 1, finite=finite)
            cut = cut or item_cut
            changed = changed or new_key is not key or new_item is not item
            items.append((new_key, new_item))
        return (dict(items) if changed else value), cut
    if isinstance(value, list | tuple):
        if depth_left <= 0:
            return CUT_MARK, True
        changed = cut = False
        elements = []
        for item in value:
            new_item, item_cut = _bounded(item, depth_left - 1, finite=finite)
            cut = cut or item_cut
            changed = changed or new_item is not item
            elements.append(new_item)
        return (elements if changed else value), cut
    if finite:  # exact types, as the JSON parser makes them (a bool is not an int here): this runs for every value
        kind = type(value)
        if (kind is float and value - value) or (kind is int and not -_LARGEST <= value <= _LARGEST):
            raise _Overflow
    return value, False

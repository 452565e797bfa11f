"""Untrusted data made safe where it enters: eval files, results files, baselines, HTTP answers, agent output.

Three things crash or mislead the stages after the agents ran, so they are settled at the edge:

* lone surrogates (``"\\ud800"`` in JSON, or a broken string from an agent) cannot be written as UTF-8: they
  become U+FFFD;
* nesting without bound (a 5,000-deep baseline, tool arguments nested hundreds deep) exhausts recursion in the
  JSON parser, in pydantic's serializer (about 250 levels) and in the renderers: a file nested deeper than
  ``MAX_FILE_DEPTH`` is refused with a clear error, and an agent's value nested deeper than ``MAX_VALUE_DEPTH``
  is cut there, with a note on the case run;
* ``NaN`` and ``Infinity`` are not JSON, and a NaN score compares false with everything, which would hide a
  regression: they are refused.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_FILE_DEPTH = 200  # a results.json (ours adds about 15 levels around an eval file's or an agent's values)
MAX_EVAL_FILE_DEPTH = 120  # an eval file or config: its values nest inside results.json, under MAX_FILE_DEPTH
MAX_VALUE_DEPTH = 100  # one value from an agent (a tool call's arguments, a tool's response, the session state)
CUT_MARK = f"… (cut: nested deeper than {MAX_VALUE_DEPTH} levels)"

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONSTANT = re.compile(r"(?<![\w\"])(-?Infinity|NaN)(?![\w\"])")


class UnsafeJson(ValueError):
    """JSON that parses but cannot be used safely (the message says why; ``line`` where, when known)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class _Constant(ValueError):
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
    """``json.loads`` for untrusted text: no NaN/Infinity, at most ``max_depth`` levels, no lone surrogates."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except _Constant as constant:
        match = _CONSTANT.search(text)
        line = text.count("\n", 0, match.start()) + 1 if match else None
        raise UnsafeJson(f"{constant} is not a JSON number (write null for a missing value)", line) from None
    except RecursionError:
        raise UnsafeJson(f"nested more than {max_depth} levels deep") from None
    cleaned, cut = bounded(data, max_depth=max_depth)
    if cut:
        raise UnsafeJson(f"nested more than {max_depth} levels deep")
    return cleaned


def bounded(value: Any, *, max_depth: int = MAX_VALUE_DEPTH) -> tuple[Any, bool]:
    """(``value`` with lone surrogates replaced and containers below ``max_depth`` levels cut, whether it was cut).

    Returns the same objects where nothing changed, so clean data costs one walk and no copies.
    """
    return _bounded(value, max_depth)


def _bounded(value: Any, depth_left: int) -> tuple[Any, bool]:
    if isinstance(value, str):
        return clean_text(value), False
    if isinstance(value, dict):
        if depth_left <= 0:
            return CUT_MARK, True
        changed = cut = False
        items = []
        for key, item in value.items():
            new_key = clean_text(key) if isinstance(key, str) else key
            new_item, item_cut = _bounded(item, depth_left - 1)
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
            new_item, item_cut = _bounded(item, depth_left - 1)
            cut = cut or item_cut
            changed = changed or new_item is not item
            elements.append(new_item)
        return (elements if changed else value), cut
    return value, False

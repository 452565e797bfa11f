"""JSON objects in a judge's answer, found in time linear in the answer (``parsing`` reads verdicts from them).

Each ``{`` that can start an object is tried with the standard decoder, outermost first, as a judge's JSON may
sit in prose or a fenced block. Answers are untrusted, so the search has a budget: failed attempts may scan the
answer ``SCAN_FACTOR`` times over in all, then it stops (the caller's patterns still read the answer). Without
it an answer of nested or unterminated objects costs one scan per brace, and nesting past the interpreter's
recursion limit raised ``RecursionError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

SCAN_FACTOR = 8  # failed attempts may scan this many times the answer's length in all
_WINDOW = 256  # an attempt decodes a slice this long first, four times longer while it is cut short
_ATTEMPT_COST = 1024  # the least an attempt counts against the budget (a slice, an exception)
_DECODER = json.JSONDecoder()
_OBJECT_START = re.compile(r'\{[ \t\n\r]*["}]')  # where a JSON object can begin: '{', whitespace, a key or '}'
_END = object()


def objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in the text, outermost first, in order of appearance (within the budget)."""
    budget = SCAN_FACTOR * len(text) + 65536
    start = _OBJECT_START.search(text)
    while start is not None and budget > 0:
        value, end, cost = _decode_at(text, start.start())
        budget -= cost
        if isinstance(value, dict):
            yield value
            start = _OBJECT_START.search(text, end)
        else:
            start = _OBJECT_START.search(text, start.start() + 1)


def _decode_at(text: str, index: int) -> tuple[Any, int, int]:
    """(the JSON value at ``index`` or None, where it ends, what the attempt cost).

    The decoder runs on slices: its error message counts the lines up to the error, so on the whole text every
    failed attempt would cost the length of the text before it (quadratic in an answer full of braces).
    """
    window = _WINDOW
    while True:
        piece = text[index : index + window]
        cut = index + window < len(text)
        try:
            value, end = _DECODER.raw_decode(piece)
        except json.JSONDecodeError as error:
            if cut and (error.pos >= len(piece) - 8 or error.msg.startswith("Unterminated string")):
                window *= 4  # the slice ended inside the value: it may still decode
                continue
            return None, index, max(error.pos, _ATTEMPT_COST)
        except RecursionError:  # nested deeper than the interpreter's recursion limit
            return None, index, max(len(piece), _ATTEMPT_COST)
        return value, index + end, max(end, _ATTEMPT_COST)


def lookup(obj: dict[str, Any], key: str) -> Any:
    """The value of ``key`` in ``obj``, else in its nested objects, depth first (an object whose own ``key`` is
    null is not searched further); without recursion, so any depth the decoder allows is fine."""
    pending: list[Iterator[Any]] = [iter([obj])]
    while pending:
        node = next(pending[-1], _END)
        if node is _END:
            pending.pop()
            continue
        if not isinstance(node, dict):
            continue
        names = (value for name, value in node.items() if isinstance(name, str) and name.strip().lower() == key)
        matched = next(names, _END)
        if matched is _END:
            pending.append(iter(node.values()))
        elif matched is not None:
            return matched
    return None

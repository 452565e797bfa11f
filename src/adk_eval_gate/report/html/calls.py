"""Expected and actual tool calls of a turn side by side, with the differences marked argument by argument.

Calls are paired by position, as the trajectory metric compares them. In a pair, a name that differs is marked
on both sides; an argument only expected is ``missing``, one only in the actual call ``extra``, and one with
another value ``changed``. A call without a partner is missing or extra as a whole.
"""

from __future__ import annotations

import json
from itertools import zip_longest
from typing import Any

from adk_eval_gate.report.html.parts import element, table, text
from adk_eval_gate.report.views import JSON_TEXT

VALUE_LIMIT = 2_000
_COMPARED = json.JSONEncoder(sort_keys=True, default=str)  # json.dumps's options, the encoder made once


def _value(value: Any) -> str:
    try:
        shown = JSON_TEXT.encode(value)
    except (TypeError, ValueError):
        shown = str(value)
    return text(shown, limit=VALUE_LIMIT)


def _same(left: Any, right: Any) -> bool:
    if type(left) is str and type(right) is str:  # their JSON is equal exactly when they are
        return left == right
    try:
        return _COMPARED.encode(left) == _COMPARED.encode(right)
    except (TypeError, ValueError):
        return bool(left == right)


def _argument(name: str, value: Any, mark: str) -> str:
    return element("div", f"{element('span', text(name), cls='key')}: <code>{_value(value)}</code>", cls=f"arg {mark}")


def _mark(value: Any, other: dict[str, Any] | None, *, name: str, absent: str) -> str:
    if other is None or name not in other:
        return absent
    return "same" if _same(value, other[name]) else "changed"


def _arguments(own: dict[str, Any], other: dict[str, Any] | None, *, absent: str) -> str:
    """One side's arguments, each marked against the other side's (``absent``: the mark of a key it lacks)."""
    lines = [_argument(str(name), own[name], _mark(own[name], other, name=name, absent=absent)) for name in sorted(own)]
    return "".join(lines) or element("div", "no arguments", cls="arg none")


Call = tuple[str, Any]  # a tool call's name and arguments (``model.compact.tool_calls``)


def _args(call: Call) -> dict[str, Any]:
    return dict(call[1]) if isinstance(call[1], dict) else {}


def _call_cell(call: Call | None, partner: Call | None, *, absent: str) -> str:
    if call is None:
        return element("span", "—", cls="nocall")
    name_mark = absent if partner is None else "same" if partner[0] == call[0] else "changed"
    partner_args = None if partner is None else _args(partner)
    arguments = _arguments(_args(call), partner_args, absent=absent)
    return element("div", text(call[0] or "?"), cls=f"call-name {name_mark}") + arguments


def calls_table(expected: list[Call] | None, actual: list[Call] | None) -> str:
    """The calls of a turn, expected (left) against actual (right); None: that side is unknown."""
    if not expected and not actual:
        sides = ("none expected" if expected is not None else "no expectation", "none" if actual is not None else "—")
        return element("p", f"Tool calls: {sides[0]} / {sides[1]}", cls="muted")
    rows = []
    for number, (want, got) in enumerate(zip_longest(expected or [], actual or []), start=1):
        rows.append(
            [
                str(number),
                _call_cell(want, got, absent="missing") if expected is not None else "no expectation",
                _call_cell(got, want, absent="extra"),
            ]
        )
    return table(["#", "Expected tool call", "Actual tool call"], rows, cls="calls")

"""What an expression of a test module evaluates to when it is made of literals, ``__file__``, names bound once
and path functions, worked out with ``ast`` and never run.

A test module is the repository's and untrusted: names are followed through a memo (each expression is evaluated
once per scope), every call's evaluation has a step budget, and a text or path longer than ``MAX_VALUE_CHARS`` is
over budget, so 20 f-strings each repeating the one before ten times, or a literal doubled through names, are
``OverBudget`` at once instead of a hang or gigabytes of memory.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_STEPS = 20_000  # expressions one call's arguments may take to evaluate (memoised ones count once each time)
MAX_VALUE_CHARS = 16_384  # a text longer than this is no path, module or agent name
_DEPTH = 40  # how deep an expression (and the names it reads) is followed


@dataclass(frozen=True)
class Relative:
    """A relative path literal: relative to the folder pytest runs from (or else to the test file's folder)."""

    path: PurePosixPath


Value = Path | Relative | str | int | None


class OverBudget(Exception):
    """Evaluating a call's arguments took more steps, or made a longer text, than the budget allows."""


class ValueReader:
    """Evaluates expressions of one test module; ``start_call`` gives each call a fresh step budget."""

    def __init__(self, test_file: Path) -> None:
        self.test_file = test_file
        self._memo: dict[tuple[int, int], Value] = {}
        self._scopes: dict[int, dict[str, ast.expr]] = {}  # kept alive, so no other scope takes a memoised id
        self._steps = 0

    def start_call(self) -> None:
        self._steps = 0

    def value(self, node: ast.expr | None, names: dict[str, ast.expr], depth: int = 0) -> Value:
        """What ``node`` evaluates to; None when it is known only when the test runs. Raises ``OverBudget``."""
        if node is None or depth > _DEPTH:
            return None
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise OverBudget(f"takes more than {MAX_STEPS:,} steps to evaluate")
        self._scopes.setdefault(id(names), names)
        key = (id(node), id(names))
        if key not in self._memo:
            self._memo[key] = _bounded(self._evaluate(node, names, depth))
        return self._memo[key]

    def _evaluate(self, node: ast.expr, names: dict[str, ast.expr], depth: int) -> Value:
        def value(child: ast.expr | None) -> Value:
            return self.value(child, names, depth + 1)

        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return literal(_bounded_text(node.value))
            return node.value if isinstance(node.value, int) else None
        if isinstance(node, ast.Name):
            return self.test_file if node.id == "__file__" else value(names.get(node.id))
        if isinstance(node, ast.JoinedStr):
            parts = [value(part.value) if isinstance(part, ast.FormattedValue) else value(part) for part in node.values]
            return _concatenated(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return _join(value(node.left), [value(node.right)])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return _concatenated([value(node.left), value(node.right)])
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            return _parent(value(node.value))
        if isinstance(node, ast.Call) and not node.keywords:
            return self._call_value(node, [value(arg) for arg in node.args], value)
        return None

    @staticmethod
    def _call_value(node: ast.Call, args: list[Value], value: Callable[[ast.expr | None], Value]) -> Value:
        function = dotted(node.func)
        if function in {"str", "os.fspath", "Path", "pathlib.Path", "PurePath", "pathlib.PurePath"} and len(args) == 1:
            return args[0]
        if function in {"os.path.dirname", "dirname"} and len(args) == 1:
            return _parent(args[0])
        if function in {"os.path.abspath", "os.path.realpath", "os.path.normpath", "abspath", "realpath"}:
            return args[0] if len(args) == 1 else None
        if function in {"os.path.join", "join"} and args:
            return _join(args[0], args[1:])
        if isinstance(node.func, ast.Attribute):
            if node.func.attr in {"resolve", "absolute"} and not args:
                return value(node.func.value)
            if node.func.attr == "joinpath":
                return _join(value(node.func.value), args)
        return None


def literal(text: str) -> Value:
    path = Path(text)
    return path if path.is_absolute() else Relative(PurePosixPath(text))


def is_text(value: Value) -> bool:
    return isinstance(value, (str, Path, Relative)) or (isinstance(value, int) and not isinstance(value, bool))


def text(value: Value) -> str:
    return value.path.as_posix() if isinstance(value, Relative) else str(value)


def _bounded_text(given: str) -> str:
    if len(given) > MAX_VALUE_CHARS:
        raise OverBudget(f"makes a text longer than {MAX_VALUE_CHARS:,} characters")
    return given


def _bounded(value: Value) -> Value:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        raise OverBudget("makes a number too large to be a count")
    if isinstance(value, (Path, Relative)):
        _bounded_text(text(value))
    return value


def _concatenated(parts: list[Value]) -> Value:
    if not all(is_text(part) for part in parts):
        return None
    if sum(len(text(part)) for part in parts) > MAX_VALUE_CHARS:
        raise OverBudget(f"makes a text longer than {MAX_VALUE_CHARS:,} characters")
    return literal("".join(text(part) for part in parts))


def _parent(value: Value) -> Value:
    if isinstance(value, Path):
        return value.parent
    if isinstance(value, Relative):
        return Relative(value.path.parent)
    return None


def _join(first: Value, rest: list[Value]) -> Value:
    if not isinstance(first, (Path, Relative)) or not all(isinstance(part, Relative) for part in rest):
        return None
    if len(text(first)) + sum(len(text(part)) + 1 for part in rest) > MAX_VALUE_CHARS:
        raise OverBudget(f"makes a path longer than {MAX_VALUE_CHARS:,} characters")
    tail = PurePosixPath(*(part.path for part in rest if isinstance(part, Relative)))
    if isinstance(first, Path):
        return first / tail
    return Relative(first.path / tail)


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = dotted(node.value)
        return f"{owner}.{node.attr}" if owner else ""
    return ""


def expressions(node: ast.expr, names: dict[str, ast.expr]) -> Iterator[ast.expr]:
    """``node``'s sub-expressions, outermost first, following the names they read to what those are bound to
    (each name once)."""
    followed: set[str] = set()
    pending = [node]
    while pending:
        for child in ast.walk(pending.pop(0)):
            if isinstance(child, ast.expr):
                yield child
            if isinstance(child, ast.Name) and child.id in names and child.id not in followed:
                followed.add(child.id)
                pending.append(names[child.id])

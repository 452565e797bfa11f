"""The code stays readable as it grows: no function longer than 60 lines under src/."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "adk_eval_gate"
MAX_FUNCTION_LINES = 60


def _long_functions(source: str) -> list[tuple[str, int]]:
    tree = ast.parse(source)
    return [
        (node.name, (node.end_lineno or node.lineno) - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_no_function_is_longer_than_60_lines() -> None:
    found = {
        f"{path.relative_to(SRC)}:{name}": length
        for path in sorted(SRC.rglob("*.py"))
        for name, length in _long_functions(path.read_text(encoding="utf-8"))
    }
    assert found == {}, f"split these functions: {found}"


def test_the_check_sees_a_long_function() -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(MAX_FUNCTION_LINES))
    assert _long_functions(f"def long() -> None:\n{body}\n") == [("long", MAX_FUNCTION_LINES + 1)]
    assert _long_functions("def short() -> None:\n    pass\n") == []

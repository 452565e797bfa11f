"""The package's source files, each read and parsed once per test process: the whole-package checks
(``test_architecture.py``, ``test_code_shape.py``, ``test_names_and_dead_code.py``, ``test_test_tree.py``) walk the
same 200-odd modules, and parsing them took about half a second each time."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "adk_eval_gate"


@functools.cache
def source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@functools.cache
def parsed(text: str) -> ast.Module:
    """``text`` parsed, the same tree for the same text: the checks only read it."""
    return ast.parse(text)


def package_files() -> list[Path]:
    """Every module of the package, in path order."""
    return sorted(SRC.rglob("*.py"))


@functools.cache
def nodes(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of ``tree``, in ``ast.walk``'s order, walked once: each check walks the same trees."""
    return tuple(ast.walk(tree))

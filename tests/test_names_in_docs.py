"""The modules the docstrings and ARCHITECTURE.md name exist: a module that moves or goes takes its name with it
(``adk_eval_gate.x.y`` and ``x.y`` for a package ``x`` of ours, and a path ``x/y.py`` under one of our folders)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.package_sources import nodes, package_files, parsed, source

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "adk_eval_gate"
PACKAGES = frozenset(path.name for path in SRC.iterdir() if (path / "__init__.py").is_file())
TOP_FOLDERS = frozenset(("src", "tests", "docs", "bench", "scripts", "examples", "schema", ".github", ".ci"))
FILE_SUFFIXES = frozenset(("ini", "toml", "json", "jsonl", "yaml", "yml", "md", "py", "cfg", "txt", "xml", "html"))
DOTTED = re.compile(r"\badk_eval_gate((?:\.[A-Za-z_]+)+)|``([a-z_]+(?:\.[A-Za-z_]+)+)``")
PATH = re.compile(r"(?<![\w/.-])((?:\.?[a-z_]+/)+[a-z_]+\.py)\b")


def _docstrings(tree: ast.AST) -> list[str]:
    return [
        text
        for node in nodes(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and (text := ast.get_docstring(node, clean=False))
    ]


def _module_file(parts: list[str]) -> Path | None:
    where = SRC.joinpath(*parts)
    for candidate in (where.with_suffix(".py"), where / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defines(module: Path, name: str) -> bool:
    """Whether the module binds ``name`` at its top: a function, a class, an assignment or an import."""
    for node in parsed(source(module)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (alias.asname or alias.name).split(".")[0] == name for alias in node.names
        ):
            return True
    return False


def _names_something(dotted: str) -> bool:
    """A module of ours, or a name its longest module prefix defines."""
    parts = dotted.split(".")
    if _module_file(parts) is not None:
        return True
    for end in range(len(parts) - 1, 0, -1):
        module = _module_file(parts[:end])
        if module is not None:
            return _defines(module, parts[end])
    return False


def stale_names(text: str) -> list[str]:
    """The modules (and names in them) ``text`` mentions that do not exist."""
    stale = []
    for prefixed, quoted in DOTTED.findall(text):
        dotted = prefixed.lstrip(".") or quoted
        first, last = dotted.split(".")[0], dotted.rsplit(".", 1)[-1]
        if (prefixed or (first in PACKAGES and last not in FILE_SUFFIXES)) and not _names_something(dotted):
            stale.append(dotted)
    for path in PATH.findall(text):
        first = path.split("/")[0]
        root = SRC if first in PACKAGES else REPO if first in TOP_FOLDERS else None
        if root is not None and not (root / path).is_file():
            stale.append(path)
    return stale


def test_every_module_a_docstring_names_exists() -> None:
    stale = [
        f"{path.relative_to(SRC)}: {name}"
        for path in package_files()
        for text in _docstrings(parsed(source(path)))
        for name in stale_names(text)
    ]
    assert stale == []


def test_every_module_architecture_md_names_by_its_dotted_name_exists() -> None:
    assert stale_names((REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")) == []


def test_the_check_sees_a_module_or_a_name_that_is_gone() -> None:
    text = (
        "``commands.pipeline`` and ``adk_eval_gate.verdict.decide`` and ``verdict.Policy`` and ``verdict.nothing``;"
        " ``pytest.ini``, ``runners/gone.py``, ``report/writer.py``, ``src/adk_eval_gate/cli.py`` and ADK's"
        " ``evaluation/eval_set.py``"
    )
    assert stale_names(text) == ["commands.pipeline", "verdict.nothing", "runners/gone.py"]

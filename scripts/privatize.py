"""Make private the functions of the package that only their own module uses.

Usage: ``python scripts/privatize.py --check`` lists every public top-level function of ``src/adk_eval_gate`` that
no other file of the repository names, and exits 1 if there is one; ``python scripts/privatize.py --apply``
renames each to ``_name`` in its own module, then lists those it left alone (run ``ruff format`` after it: a
longer name can push a line past the limit). The same tree gives the same list in the same order, and a renamed
function is private, so a second ``--apply`` changes nothing.

A function stays public when its name, as a word, appears in any other file (code, a string, a docstring, the
docs, action.yml, pyproject.toml's entry points): another file may call it, even by its name, and this script
cannot tell a use from a word. A pytest hook (``pytest_*``: pytest finds it by name) and the functions of
``STAYS_PUBLIC`` stay public too. In its own module, an occurrence is renamed where the syntax tree puts a use of
the function, and in its docstrings and comments only where it is written as code (after a backtick, or called:
``name(``). A function that cannot be renamed that way is listed, and exits 1 too, with the reason (its name
bound again in its module, named in a string there, decorated by something that may record its name, ``_name``
taken).
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import stat
import sys
import tokenize
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path("src") / "adk_eval_gate"
# Where another file may name a function of the package: every folder of the repository but the hidden ones (the
# workflows' and the CI scripts' excepted), dependencies and what builds and runs leave, and the files at its top
# (README.md, action.yml, pyproject.toml, the Dockerfile...).
HIDDEN_FOLDERS_READ = frozenset((".github", ".ci"))
SKIPPED_FOLDERS = frozenset(("venv", "node_modules", "__pycache__", "site", "build", "dist", "adk-eval-results"))
LARGEST_FILE = 4 * 1024 * 1024
# Decorators that wrap a function without recording its name anywhere.
PLAIN_DECORATORS = frozenset(("cache", "lru_cache", "contextmanager", "asynccontextmanager"))
# "module path:name" -> why the function stays public although only its module uses it.
STAYS_PUBLIC: dict[str, str] = {}
# Every byte but an ASCII letter, digit or underscore turned into a space: a file's words are then what split()
# gives (twice as fast as a regular expression over the repository's megabytes).
WORDS_ONLY = bytes(
    byte if chr(byte).isascii() and (chr(byte).isalnum() or byte == ord("_")) else 32 for byte in range(256)
)
LINE = re.compile(r".*?(?:\r\n|\r|\n)|.+", re.DOTALL)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# A public top-level definition starts its line (one in a string is found too: its tree says which are real).
TOP_LEVEL_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+((?!pytest_)[A-Za-z]\w*)", re.MULTILINE)


class SourceError(Exception):
    """A module of the package this script cannot read or parse."""


class CannotRename(Exception):
    """Why a function is left as it is."""


@dataclass(frozen=True)
class Found:
    """A public top-level function only its own module uses; ``skipped`` says why it cannot be renamed here."""

    module: str
    name: str
    line: int
    skipped: str = ""

    def __str__(self) -> str:
        where = f"{self.module}:{self.line}: {self.name}"
        return f"{where} (skipped: {self.skipped})" if self.skipped else where


def _regular_files(root: Path) -> Iterator[Path]:
    """The regular files under ``root`` (not links, not FIFOs or devices), in path order."""
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(
            name
            for name in folders
            if name not in SKIPPED_FOLDERS and (not name.startswith(".") or name in HIDDEN_FOLDERS_READ)
        )
        for name in sorted(files):
            path = Path(folder, name)
            mode = path.lstat()
            if stat.S_ISREG(mode.st_mode) and mode.st_size <= LARGEST_FILE:
                yield path


def _words_by_file(repo: Path) -> dict[str, set[bytes]]:
    """Every word of every text file of the repository (one without a NUL byte), by path relative to it."""
    words = {}
    for path in _regular_files(repo):
        data = path.read_bytes()
        if b"\0" not in data:
            words[path.relative_to(repo).as_posix()] = set(data.translate(WORDS_ONLY).split())
    return words


def _module_tree(text: str, where: str, parse: Callable[[str], ast.Module]) -> ast.Module:
    try:
        return parse(text)
    except SyntaxError as error:
        raise SourceError(f"{where}:{error.lineno}: does not parse ({error.msg}): fix the module first") from None


def found(repo: Path = REPO, *, parse: Callable[[str], ast.Module] = ast.parse) -> list[Found]:
    """The public top-level functions of the package that no other file names, in path and line order (``parse``
    turns a module's text into its tree: the tests pass theirs, which parses each text once)."""
    words = _words_by_file(repo)
    files_naming = Counter(word for named in words.values() for word in named)
    results = []
    for where in sorted(name for name in words if name.startswith(f"{PACKAGE.as_posix()}/") and name.endswith(".py")):
        try:
            text = (repo / where).read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise SourceError(f"{where}: not UTF-8 (byte {error.start}): fix the module first") from None
        # Only the module names them (a top-level definition starts its line): most modules need no parsing.
        alone = {
            name
            for name in TOP_LEVEL_DEF.findall(text)
            if files_naming[name.encode()] == 1 and f"{where}:{name}" not in STAYS_PUBLIC
        }
        if not alone:
            continue
        module = _Module(text, _module_tree(text, where, parse))
        for definition in module.tree.body:
            if isinstance(definition, FUNCTIONS) and definition.name in alone:
                try:
                    module.spots(definition.name)
                except CannotRename as reason:
                    results.append(Found(where, definition.name, definition.lineno, skipped=str(reason)))
                else:
                    results.append(Found(where, definition.name, definition.lineno))
    return results


def _binds(node: ast.AST, name: str) -> bool:
    """Whether ``node`` binds ``name`` (an assignment, a parameter, an import, a definition, ...)."""
    if isinstance(node, ast.Name):
        return node.id == name and not isinstance(node.ctx, ast.Load)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name in node.names
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0]) == name
    if isinstance(node, ast.arg):
        return node.arg == name
    if isinstance(node, ast.MatchMapping):
        return node.rest == name
    bound = getattr(node, "name", None)
    return isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.ClassDef, *FUNCTIONS)) and (
        bound == name
    )


def _names_as_code(value: object, name: str) -> bool:
    """Whether a string names ``name`` as code: the name alone, dotted (``module.name``, ``module:name``) or
    quoted as code."""
    return isinstance(value, str) and (
        value.strip() == name or re.search(rf"[.:`]{re.escape(name)}(?!\w)", value) is not None
    )


def _mentions_as_code(name: str) -> re.Pattern[str]:
    """``name`` written as code in prose: after a backtick, or called (``name(``) and not another thing's
    attribute."""
    escaped = re.escape(name)
    return re.compile(rf"(?<=`){escaped}(?!\w)|(?<![\w.]){escaped}(?=\()")


class _Module:
    """A module's text and tree, walked once for every function renamed in it."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text, self.tree = text, tree
        self.nodes = list(ast.walk(tree))
        self.docstrings = [
            node.body[0].value
            for node in self.nodes
            if isinstance(node, (ast.Module, ast.ClassDef, *FUNCTIONS))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
            and isinstance(node.body[0].value.value, str)
        ]
        # Lines as Python counts them: \n, \r\n or \r ends one (str.splitlines would end one at \f too).
        self.lines = [*LINE.findall(text), ""]
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, column: int) -> int:
        """Where a line (from 1) and a column in UTF-8 bytes, as the syntax tree counts them, are in the text."""
        return self.starts[line - 1] + len(self.lines[line - 1].encode()[:column].decode(errors="replace"))

    def problem(self, definition: ast.AST, name: str) -> str:
        """Why ``name`` cannot be renamed by the syntax tree alone, or an empty string."""
        if re.search(rf"(?<!\w)_{re.escape(name)}(?!\w)", self.text):
            return f"_{name} is taken in its module"
        for decorator in getattr(definition, "decorator_list", []):
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if getattr(target, "attr", getattr(target, "id", "")) not in PLAIN_DECORATORS:
                return f"decorated with @{ast.unparse(decorator)}, which may record its name"
        docstrings = {id(node) for node in self.docstrings}
        for node in self.nodes:
            line = getattr(node, "lineno", 0)
            if node is not definition and _binds(node, name):
                return f"{name} is bound again in its module (line {line})"
            if isinstance(node, ast.Attribute) and node.attr == name:
                return f"{name} is also an attribute's name in its module (line {line})"
            if isinstance(node, ast.Constant) and id(node) not in docstrings and _names_as_code(node.value, name):
                return f"named in a string of its module (line {line}): it may be called by that name"
        return ""

    def comments(self, name: str) -> list[tuple[int, int]]:
        """Where the comments that may mention ``name`` are in the text (the tokenizer counts columns in
        characters)."""
        if not re.search(rf"#[^\n]*{re.escape(name)}", self.text):
            return []
        tokens = tokenize.generate_tokens(io.StringIO(self.text, newline="").readline)
        return [
            (self.starts[token.start[0] - 1] + token.start[1], self.starts[token.end[0] - 1] + token.end[1])
            for token in tokens
            if token.type == tokenize.COMMENT
        ]

    def spots(self, name: str) -> list[int]:
        """Where the top-level function ``name`` starts at each place it is renamed: its definition, its uses,
        and its mentions as code in the docstrings and comments; raises ``CannotRename`` with the reason when
        that is not certain."""
        definitions = [node for node in self.tree.body if isinstance(node, FUNCTIONS) and node.name == name]
        if not definitions:
            raise CannotRename(f"no top-level function {name} in its module")
        problem = self.problem(definitions[0], name)
        if problem:
            raise CannotRename(problem)
        header = re.compile(rf"(?:async\s+)?def\s+({re.escape(name)})\b")
        spots = [
            self.offset(node.lineno, node.col_offset)
            for node in self.nodes
            if isinstance(node, ast.Name) and node.id == name
        ]
        for definition in definitions:
            line = definition.lineno
            match = header.match(self.lines[line - 1])
            spots.append(self.starts[line - 1] + match.start(1) if match else -1)
        prose = [
            (self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno or 0, node.end_col_offset or 0))
            for node in self.docstrings
        ]
        mention = _mentions_as_code(name)
        for begin, end in [*prose, *self.comments(name)]:
            spots.extend(match.start() for match in mention.finditer(self.text, begin, end))
        if any(self.text[spot : spot + len(name)] != name for spot in spots):
            raise CannotRename(f"the syntax tree's places of {name} are not where its text is")
        return sorted(set(spots))


def privatized(text: str, name: str) -> str:
    """``text``, a module, with its top-level function ``name`` renamed ``_name`` wherever the module means it;
    raises ``CannotRename`` with the reason when that is not certain."""
    renamed = text
    for spot in reversed(_Module(text, ast.parse(text)).spots(name)):
        renamed = f"{renamed[:spot]}_{renamed[spot:]}"
    if any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(ast.parse(renamed))):
        raise CannotRename(f"a use of {name} was left where the syntax tree did not put it")
    return renamed


def apply(repo: Path, listed: list[Found]) -> int:
    """Renames each function of ``listed`` that is not skipped in its module; returns how many it renamed."""
    renamed = 0
    for module in sorted({item.module for item in listed if not item.skipped}):
        path = repo / module
        text = path.read_text(encoding="utf-8")
        for item in listed:
            if item.module == module and not item.skipped:
                text = privatized(text, item.name)
                renamed += 1
        path.write_text(text, encoding="utf-8")
    return renamed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="list them; exit 1 if there is one")
    mode.add_argument("--apply", action="store_true", help="rename each to _name in its module")
    parser.add_argument("--repo", type=Path, default=REPO, help="the repository (default: this script's)")
    arguments = parser.parse_args(argv)
    try:
        listed = found(arguments.repo)
    except SourceError as error:
        print(f"privatize: {error}", file=sys.stderr)
        return 2
    if arguments.apply:
        print(f"renamed {apply(arguments.repo, listed)} functions; run ruff format")
        listed = [item for item in listed if item.skipped]
    for item in listed:
        print(item)
    skipped = sum(1 for item in listed if item.skipped)
    print(f"{len(listed)} public functions only their own module uses ({skipped} skipped)")
    return 1 if listed else 0


if __name__ == "__main__":
    sys.exit(main())

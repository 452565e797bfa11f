"""The ``AgentEvaluator.evaluate(...)`` and ``evaluate_eval_set(...)`` calls of a repository's Python tests, read
statically with ``ast``: a test module is never imported or run.

From each call: the agent module (a string literal, or a name bound once to one), ``agent_name``, the eval path and
``num_runs``. The path may be a literal (relative to the project, the folder pytest runs from, or else to the test
file's folder), ``os.path.join(os.path.dirname(__file__), ...)``, ``pathlib.Path(__file__).parent / ...`` and the
like, wrapped in ``str()``, or a name bound once to such an expression; a folder stands for the ``*.test.json``
files under it, as in ADK's ``AgentEvaluator``. A call whose arguments are computed, or whose path does not exist
or leaves the repository, is skipped with a note that says why.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from adk_eval_gate.support.atomic import read_regular, unread

MAX_MODULE_BYTES = 1_000_000  # a test module larger than this is not read (a note says so)
ADK_DEFAULT_RUNS = 2  # AgentEvaluator's num_runs when a call gives none
MAX_RUNS = 100  # as --num-runs
MARKERS = (b"AgentEvaluator", b"evaluate_eval_set")
_EVAL_ARGUMENT = {"evaluate": "eval_dataset_file_path_or_dir", "evaluate_eval_set": "eval_set"}
# ADK 2.13's parameters in order (agent_evaluator.py): evaluate(agent_module, eval_dataset_file_path_or_dir,
# num_runs, agent_name, ...), evaluate_eval_set(agent_module, eval_set, criteria, eval_config, num_runs, agent_name)
_POSITIONAL = {
    "evaluate": ("agent_module", "eval_dataset_file_path_or_dir", "num_runs", "agent_name"),
    "evaluate_eval_set": ("agent_module", "eval_set", "criteria", "eval_config", "num_runs", "agent_name"),
}
_DEPTH = 40  # how deep a path expression (and the names it reads) is followed


@dataclass(frozen=True)
class EvaluatorCall:
    """One call that names an agent for eval files."""

    test_file: Path
    line: int
    method: str  # "evaluate" or "evaluate_eval_set"
    agent_module: str
    agent_name: str | None
    path: Path  # absolute and resolved: an existing file, or a folder (its *.test.json files)
    num_runs: int  # ADK's default when the call gives none
    num_runs_given: bool


@dataclass(frozen=True)
class SkippedCall:
    """A call (or a whole test module, ``line`` 0) that could not be read."""

    test_file: Path
    line: int
    reason: str


@dataclass(frozen=True)
class _Relative:
    """A relative path literal: relative to the project, or else to the test file's folder."""

    path: PurePosixPath


_Value = Path | _Relative | str | int | None


def mentions_evaluator(data: bytes) -> bool:
    return any(marker in data for marker in MARKERS)


def read_calls(test_file: Path, *, project: Path, root: Path) -> tuple[list[EvaluatorCall], list[SkippedCall]]:
    """The calls of ``test_file`` (absolute) with their paths resolved: ``project`` is the folder pytest runs
    from, ``root`` the repository (a path outside it is refused). Never raises for what the file holds."""
    data = read_regular(test_file, max_bytes=MAX_MODULE_BYTES)  # a FIFO named like a test module never blocks
    if isinstance(data, str):
        return [], [SkippedCall(test_file, 0, unread(test_file, data, max_bytes=MAX_MODULE_BYTES))]
    if not mentions_evaluator(data):
        return [], []
    try:
        tree = ast.parse(data, filename=test_file.name)
    except SyntaxError as error:
        return [], [SkippedCall(test_file, 0, f"does not parse (line {error.lineno}): {error.msg}")]
    except (ValueError, RecursionError, MemoryError) as error:  # null bytes, nesting too deep for the parser
        return [], [SkippedCall(test_file, 0, f"cannot be parsed ({type(error).__name__})")]
    try:
        return _ModuleReader(test_file, project=project, root=root, tree=tree).read()
    except (RecursionError, MemoryError):
        return [], [SkippedCall(test_file, 0, "is nested too deeply to be read")]


class _ModuleReader:
    def __init__(self, test_file: Path, *, project: Path, root: Path, tree: ast.Module) -> None:
        self.test_file = test_file
        self.project = project
        self.root = root.resolve()
        self.tree = tree
        self.evaluator_names = {"AgentEvaluator"} | _aliases(tree)

    def read(self) -> tuple[list[EvaluatorCall], list[SkippedCall]]:
        calls: list[EvaluatorCall] = []
        skipped: list[SkippedCall] = []
        module_names, _ = _single_assignments(self.tree.body)
        for node, names in _calls_with_scopes(self.tree, module_names):
            method = self._method(node)
            if method is None:
                continue
            found = self._call(node, method, names)
            if isinstance(found, EvaluatorCall):
                calls.append(found)
            else:
                skipped.append(found)
        return calls, skipped

    def _method(self, node: ast.Call) -> str | None:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _EVAL_ARGUMENT:
            return None
        owner = func.value
        owner_name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
        return func.attr if owner_name in self.evaluator_names else None

    def _call(self, node: ast.Call, method: str, names: dict[str, ast.expr]) -> EvaluatorCall | SkippedCall:
        def skip(reason: str) -> SkippedCall:
            return SkippedCall(self.test_file, node.lineno, f"AgentEvaluator.{method}(...) {reason}")

        if any(isinstance(arg, ast.Starred) for arg in node.args) or any(kw.arg is None for kw in node.keywords):
            return skip("unpacks its arguments with * or **, so they are known only when it runs")
        arguments = {name: arg for name, arg in zip(_POSITIONAL[method], node.args, strict=False)}
        arguments.update({keyword.arg: keyword.value for keyword in node.keywords if keyword.arg})
        agent = self._value(arguments.get("agent_module"), names)
        if not isinstance(agent, (str, _Relative)) or not _text(agent):
            return skip("computes its agent module instead of naming it with a string")
        agent_name = self._value(arguments.get("agent_name"), names)
        if "agent_name" in arguments and not isinstance(agent_name, (str, _Relative)):
            return skip("computes its agent_name instead of naming it with a string")
        num_runs_node = arguments.get("num_runs")
        num_runs = self._value(num_runs_node, names) if num_runs_node is not None else ADK_DEFAULT_RUNS
        if not isinstance(num_runs, int) or isinstance(num_runs, bool) or not 1 <= num_runs <= MAX_RUNS:
            return skip(f"has a num_runs that is not a whole number from 1 to {MAX_RUNS} written in the file")
        path = self._path(arguments.get(_EVAL_ARGUMENT[method]), method, names)
        if isinstance(path, str):
            return skip(path)
        return EvaluatorCall(
            test_file=self.test_file,
            line=node.lineno,
            method=method,
            agent_module=_text(agent),
            agent_name=_text(agent_name) if isinstance(agent_name, (str, _Relative)) else None,
            path=path,
            num_runs=num_runs,
            num_runs_given=num_runs_node is not None,
        )

    def _path(self, node: ast.expr | None, method: str, names: dict[str, ast.expr]) -> Path | str:
        """The existing file or folder the call's eval argument names, or why it is not known."""
        if node is None:
            return "names no eval file"
        if method == "evaluate":
            value = self._value(node, names)
            if not isinstance(value, (Path, _Relative)):
                return "computes its eval path instead of writing it in the file"
            return self._existing(value)
        for candidate in _expressions(node, names):  # evaluate_eval_set: the file its eval set is read from
            value = self._value(candidate, names)
            if isinstance(value, (Path, _Relative)):
                found = self._existing(value)
                if isinstance(found, Path) and found.is_file():
                    return found
        return "builds its eval set in code instead of reading it from a file named in the call"

    def _existing(self, value: Path | _Relative) -> Path | str:
        if isinstance(value, Path):
            candidates = [value]
        else:  # pytest runs from the project; a path beside the test file is the other reading
            candidates = [self.project / value.path, self.test_file.parent / value.path]
        for candidate in candidates:
            try:
                resolved = candidate.resolve()
            except (OSError, RuntimeError):  # a symbolic link loop
                continue
            if not resolved.exists():
                continue
            if resolved != self.root and self.root not in resolved.parents:
                return f"names {_shown(value)!r}, which is outside the repository"
            return resolved
        return f"names {_shown(value)!r}, which does not exist"

    def _value(self, node: ast.expr | None, names: dict[str, ast.expr], depth: int = 0) -> _Value:
        """What ``node`` evaluates to when it is made of literals, ``__file__``, names bound once and path
        functions; None when it is known only when the test runs."""
        if node is None or depth > _DEPTH:
            return None

        def value(child: ast.expr | None) -> _Value:
            return self._value(child, names, depth + 1)

        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return _literal(node.value)
            return node.value if isinstance(node.value, int) else None
        if isinstance(node, ast.Name):
            return self.test_file if node.id == "__file__" else value(names.get(node.id))
        if isinstance(node, ast.JoinedStr):
            parts = [value(part.value) if isinstance(part, ast.FormattedValue) else value(part) for part in node.values]
            return _literal("".join(_text(part) for part in parts)) if all(_is_text(p) for p in parts) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return _join(value(node.left), [value(node.right)])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = value(node.left), value(node.right)
            return _literal(_text(left) + _text(right)) if _is_text(left) and _is_text(right) else None
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            return _parent(value(node.value))
        if isinstance(node, ast.Call) and not node.keywords:
            return self._call_value(node, [value(arg) for arg in node.args], value)
        return None

    @staticmethod
    def _call_value(node: ast.Call, args: list[_Value], value: Callable[[ast.expr | None], _Value]) -> _Value:
        function = _dotted(node.func)
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


def _literal(text: str) -> _Value:
    path = Path(text)
    return path if path.is_absolute() else _Relative(PurePosixPath(text))


def _is_text(value: _Value) -> bool:
    return isinstance(value, (str, Path, _Relative)) or (isinstance(value, int) and not isinstance(value, bool))


def _text(value: _Value) -> str:
    return value.path.as_posix() if isinstance(value, _Relative) else str(value)


def _shown(value: Path | _Relative) -> str:
    return value.path.as_posix() if isinstance(value, _Relative) else value.name


def _parent(value: _Value) -> _Value:
    if isinstance(value, Path):
        return value.parent
    if isinstance(value, _Relative):
        return _Relative(value.path.parent)
    return None


def _join(first: _Value, rest: list[_Value]) -> _Value:
    if not isinstance(first, (Path, _Relative)) or not all(isinstance(part, _Relative) for part in rest):
        return None
    tail = PurePosixPath(*(part.path for part in rest if isinstance(part, _Relative)))
    if isinstance(first, Path):
        return first / tail
    return _Relative(first.path / tail)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else ""
    return ""


def _expressions(node: ast.expr, names: dict[str, ast.expr], depth: int = 0) -> Iterator[ast.expr]:
    """``node``'s sub-expressions, outermost first, following the names they read to what those are bound to."""
    for child in ast.walk(node):
        if isinstance(child, ast.expr):
            yield child
        if isinstance(child, ast.Name) and child.id in names and depth < _DEPTH:
            yield from _expressions(names[child.id], names, depth + 1)


def _aliases(tree: ast.Module) -> set[str]:
    """The names ``AgentEvaluator`` is imported as (``from ... import AgentEvaluator as Evaluator``)."""
    return {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name == "AgentEvaluator" and alias.asname
    }


def _scope_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what it holds, without the bodies of the functions and classes defined in it."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield from _scope_nodes(child)


def _single_assignments(body: list[ast.stmt]) -> tuple[dict[str, ast.expr], set[str]]:
    """(the names bound exactly once, by a plain ``NAME = expression`` among ``body``'s statements, with their
    expressions; every name bound in ``body`` however it is bound)."""
    plain: dict[str, ast.expr] = {}
    stores: Counter[str] = Counter()
    for statement in body:
        for node in _scope_nodes(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stores[node.id] += 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stores[node.name] += 1
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                plain[target.id] = statement.value
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
            plain[statement.target.id] = statement.value
    return {name: value for name, value in plain.items() if stores[name] == 1}, set(stores)


def _function_scope(
    function: ast.FunctionDef | ast.AsyncFunctionDef, outer: dict[str, ast.expr]
) -> dict[str, ast.expr]:
    """The names a call in ``function`` can read: its own plain assignments, then the enclosing ones it does not
    bind itself (a parameter or any other binding hides an outer name)."""
    own, bound = _single_assignments(function.body)
    arguments = function.args
    parameters = {arg.arg for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    parameters |= {arg.arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None}
    hidden = bound | parameters
    return {**{name: value for name, value in outer.items() if name not in hidden}, **own}


def _calls_with_scopes(node: ast.AST, scope: dict[str, ast.expr]) -> Iterator[tuple[ast.Call, dict[str, ast.expr]]]:
    """Every call under ``node`` with the names it can read, each call once."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in child.decorator_list:
                yield from _calls_with_scopes(decorator, scope)
            inner = _function_scope(child, scope)
            for statement in child.body:
                yield from _calls_with_scopes(statement, inner)
            continue
        if isinstance(child, ast.Call):
            yield child, scope
        yield from _calls_with_scopes(child, scope)

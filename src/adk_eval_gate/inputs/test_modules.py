"""The ``AgentEvaluator.evaluate(...)`` and ``evaluate_eval_set(...)`` calls of a repository's Python tests, read
statically with ``ast``: a test module is never imported or run.

From each call: the agent module (a string literal, or a name bound once to one), ``agent_name``, the eval path and
``num_runs``. The path may be a literal (relative to the folder pytest runs from, else to the test file's folder),
``os.path.join(os.path.dirname(__file__), ...)``, ``pathlib.Path(__file__).parent / ...`` and the like, wrapped in
``str()``, or a name bound once to such an expression (``inputs.test_module_values`` evaluates them within a
budget); a folder stands for the ``*.test.json`` files under it, as in ADK's ``AgentEvaluator``. A call whose
arguments are computed, over the budget, or whose path does not exist, cannot be a path or leaves the repository,
is skipped with a note that says why. A sync test that calls the async ``AgentEvaluator`` without awaiting it is
noted too: under pytest it passes without evaluating anything.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from adk_eval_gate.inputs.test_module_values import (
    OverBudget,
    Relative,
    ValueReader,
    expressions,
    text,
)
from adk_eval_gate.support.atomic import read_regular, unread
from adk_eval_gate.support.repository_paths import MAX_PART_BYTES, OUTSIDE, is_inside, path_value_problem, real_path

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
_SHOWN_CHARS = 80  # of a path or name a message quotes


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
class ModuleCalls:
    """What one test module says: its calls, those that could not be read, and the lines of the sync tests'
    calls that are never awaited (such a test passes under pytest without evaluating anything)."""

    test_file: Path
    calls: list[EvaluatorCall] = field(default_factory=list)
    skipped: list[SkippedCall] = field(default_factory=list)
    unawaited: list[int] = field(default_factory=list)


def _mentions_evaluator(data: bytes) -> bool:
    return any(marker in data for marker in MARKERS)


def read_calls(test_file: Path, *, project: Path, root: Path) -> ModuleCalls:
    """The calls of ``test_file`` (absolute) with their paths resolved: ``project`` is the folder pytest runs
    from, ``root`` the repository (a path outside it is refused). Never raises for what the file holds."""
    data = read_regular(test_file, max_bytes=MAX_MODULE_BYTES)  # a FIFO named like a test module never blocks
    if isinstance(data, str):
        return _unreadable(test_file, unread(test_file, data, max_bytes=MAX_MODULE_BYTES))
    if not _mentions_evaluator(data):
        return ModuleCalls(test_file)
    try:
        tree = ast.parse(data, filename=test_file.name)
    except SyntaxError as error:
        return _unreadable(test_file, f"does not parse (line {error.lineno}): {error.msg}")
    except (ValueError, RecursionError, MemoryError) as error:  # null bytes, nesting too deep for the parser
        return _unreadable(test_file, f"cannot be parsed ({type(error).__name__})")
    try:
        return _ModuleReader(test_file, project=project, root=root, tree=tree).read()
    except (RecursionError, MemoryError):
        return _unreadable(test_file, "is nested too deeply to be read")


def _unreadable(test_file: Path, reason: str) -> ModuleCalls:
    return ModuleCalls(test_file, skipped=[SkippedCall(test_file, 0, reason)])


class _ModuleReader:
    def __init__(self, test_file: Path, *, project: Path, root: Path, tree: ast.Module) -> None:
        self.test_file = test_file
        self.project = project
        self.root = root.resolve()
        self.tree = tree
        self.evaluator_names = {"AgentEvaluator"} | _aliases(tree)
        self.values = ValueReader(test_file)

    def read(self) -> ModuleCalls:
        found = ModuleCalls(self.test_file)
        module_names, _ = _single_assignments(self.tree.body)
        for node, names in _calls_with_scopes(self.tree, module_names):
            method = self._method(node)
            if method is None:
                continue
            self.values.start_call()
            try:
                call = self._call(node, method, names)
            except OverBudget as error:
                call = SkippedCall(self.test_file, node.lineno, f"AgentEvaluator.{method}(...) {error}: not read")
            if isinstance(call, EvaluatorCall):
                found.calls.append(call)
            else:
                found.skipped.append(call)
        found.unawaited.extend(self._unawaited())
        return found

    def _unawaited(self) -> Iterator[int]:
        """The lines of calls a sync test makes as a statement of its own: a coroutine nobody awaits."""
        for function in ast.walk(self.tree):
            if not isinstance(function, ast.FunctionDef) or not function.name.startswith("test"):
                continue
            for statement in function.body:
                for node in _scope_nodes(statement):
                    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and self._method(node.value):
                        yield node.value.lineno

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
        agent = self.values.value(arguments.get("agent_module"), names)
        if not isinstance(agent, (str, Relative)) or not text(agent):
            return skip("computes its agent module instead of naming it with a string")
        if not _is_dotted(text(agent)):
            return skip(f"names agent module {_shown(text(agent))}, which is not a dotted module name")
        agent_name = self.values.value(arguments.get("agent_name"), names)
        if "agent_name" in arguments and not isinstance(agent_name, (str, Relative)):
            return skip("computes its agent_name instead of naming it with a string")
        if isinstance(agent_name, (str, Relative)) and not text(agent_name).isidentifier():
            return skip(f"has agent_name {_shown(text(agent_name))}, which is not an agent's name (an identifier)")
        num_runs_node = arguments.get("num_runs")
        num_runs = self.values.value(num_runs_node, names) if num_runs_node is not None else ADK_DEFAULT_RUNS
        if not isinstance(num_runs, int) or isinstance(num_runs, bool) or not 1 <= num_runs <= MAX_RUNS:
            return skip(f"has a num_runs that is not a whole number from 1 to {MAX_RUNS} written in the file")
        path = self._path(arguments.get(_EVAL_ARGUMENT[method]), method, names)
        if isinstance(path, str):
            return skip(path)
        return EvaluatorCall(
            test_file=self.test_file,
            line=node.lineno,
            method=method,
            agent_module=text(agent),
            agent_name=text(agent_name) if isinstance(agent_name, (str, Relative)) else None,
            path=path,
            num_runs=num_runs,
            num_runs_given=num_runs_node is not None,
        )

    def _path(self, node: ast.expr | None, method: str, names: dict[str, ast.expr]) -> Path | str:
        """The existing file or folder the call's eval argument names, or why it is not known."""
        if node is None:
            return "names no eval file"
        if method == "evaluate":
            value = self.values.value(node, names)
            if not isinstance(value, (Path, Relative)):
                return "computes its eval path instead of writing it in the file"
            return self._existing(value)
        for candidate in expressions(node, names):  # evaluate_eval_set: the file its eval set is read from
            value = self.values.value(candidate, names)
            if isinstance(value, (Path, Relative)):
                found = self._existing(value)
                if isinstance(found, Path) and found.is_file():
                    return found
        return "builds its eval set in code instead of reading it from a file named in the call"

    def _existing(self, value: Path | Relative) -> Path | str:
        problem = path_value_problem(text(value))
        if problem is not None:
            return f"names {_shown_path(value)}, which {problem}"
        if isinstance(value, Path):
            candidates = [value]
        else:  # pytest runs from the project; a path beside the test file is the other reading
            candidates = [self.project / value.path, self.test_file.parent / value.path]
        for candidate in candidates:
            resolved = real_path(candidate)
            if isinstance(resolved, str) or not resolved.exists():
                continue
            if not is_inside(resolved, self.root):
                return f"names {_shown_path(value)}, which {OUTSIDE}"
            return resolved
        return f"names {_shown_path(value)}, which does not exist"


def _is_dotted(name: str) -> bool:
    return len(name) <= MAX_PART_BYTES and all(part.isidentifier() for part in name.split("."))


def _shown_path(value: Path | Relative) -> str:
    return _shown(value.name if isinstance(value, Path) else text(value))  # never a path of the machine


def _shown(given: str) -> str:
    """A path or name as a message quotes it: bounded, control characters escaped."""
    quoted = repr(given[:_SHOWN_CHARS])
    return quoted + (f" (and {len(given) - _SHOWN_CHARS:,} more characters)" if len(given) > _SHOWN_CHARS else "")


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

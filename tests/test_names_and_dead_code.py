"""Names a reader can trust: every module of the package has a name of its own (``junit.py`` says which JUnit only
with its folder), and every function in src/ is referenced by the package itself (a function only tests call is
dead code kept alive by its tests)."""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

from tests.package_sources import nodes, package_files, parsed, source

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "adk_eval_gate"
# A package's own files, whose names are Python's and not ours.
PACKAGE_FILES = {"__init__.py", "__main__.py"}


def duplicate_basenames(paths: list[Path]) -> dict[str, list[str]]:
    """Each module file name used more than once, with where (relative to ``SRC``)."""
    counts = Counter(path.name for path in paths if path.name not in PACKAGE_FILES)
    return {
        name: sorted(str(path.relative_to(SRC)) for path in paths if path.name == name)
        for name, count in sorted(counts.items())
        if count > 1
    }


def test_every_module_name_is_used_once_in_the_package() -> None:
    assert duplicate_basenames(package_files()) == {}


def test_the_name_check_sees_a_module_name_used_twice() -> None:
    paths = [SRC / "report" / "junit.py", SRC / "pytest" / "junit.py", SRC / "report" / "__init__.py", SRC / "x.py"]
    assert duplicate_basenames([*paths, SRC / "pytest" / "__init__.py"]) == {
        "junit.py": ["pytest/junit.py", "report/junit.py"]
    }


# Methods the package defines for a library to call, and what each overrides there: nothing of ours names them.
OVERRIDES = {
    "judge/provider_clients.py:JudgeHandler.create_client": "LiteLLM's AsyncHTTPHandler.create_client",
    "pytest/case_session.py:CurrentStdout.writable": "io.TextIOBase.writable",
    "pytest/plugin.py:EvalCaseItem.setup": "pytest.Item.setup",
    "pytest/plugin.py:EvalCaseItem.runtest": "pytest.Item.runtest",
    "pytest/plugin.py:EvalCaseItem.reportinfo": "pytest.Item.reportinfo",
    "pytest/plugin.py:BrokenEvalFile.runtest": "pytest.Item.runtest",
    "pytest/plugin.py:BrokenEvalFile.reportinfo": "pytest.Item.reportinfo",
    "runners/adk_plugins.py:RequestRecorder.before_model_callback": "ADK's BasePlugin.before_model_callback",
    "runners/adk_plugins.py:RequestRecorder.after_model_callback": "ADK's BasePlugin.after_model_callback",
    "runners/adk_plugins.py:EnsureRetryOptions.before_model_callback": "ADK's BasePlugin.before_model_callback",
    "runners/runlog.py:_Formatter.formatException": "logging.Formatter.formatException",
    "runners/runlog.py:_Handler.emit": "logging.Handler.emit",
    "runners/workers/observe_events.py:_ProbingFinder.invalidate_caches": "importlib's finders' invalidate_caches",
    "support/console.py:MaskingStream.writable": "io.TextIOBase.writable",
}
# Decorators that hand a function to pydantic, which calls it.
FRAMEWORK_DECORATORS = {"field_validator", "model_validator", "field_serializer", "model_serializer"}


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def _functions(where: str, tree: ast.Module) -> list[tuple[str, str]]:
    """(``where:name`` or ``where:Class.name``, name) of every function and method in the module, but those Python or
    pydantic call by themselves (``__init__``, validators)."""
    owners = {
        id(item): node.name
        for node in nodes(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    found = []
    for node in nodes(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        dunder = node.name.startswith("__") and node.name.endswith("__")
        if dunder or _decorator_names(node) & FRAMEWORK_DECORATORS:
            continue
        owner = owners.get(id(node))
        found.append((f"{where}:{owner + '.' if owner else ''}{node.name}", node.name))
    return found


def unreferenced_functions(sources: dict[str, str], *, allowed: set[str]) -> list[str]:
    """The functions and methods of ``sources`` (path -> code) whose name no code among them uses (as a name or an
    attribute: a call, a callback handed on, a decorator), except those ``allowed`` (by ``where:name``, or by
    name): tests do not count, so a function only tests call is found too."""
    trees = {where: parsed(code) for where, code in sources.items()}
    used = {
        node.id if isinstance(node, ast.Name) else node.attr
        for tree in trees.values()
        for node in nodes(tree)
        if isinstance(node, (ast.Name, ast.Attribute))
    }
    return sorted(
        key
        for where, tree in trees.items()
        for key, name in _functions(where, tree)
        if name not in used and key not in allowed and name not in allowed
    )


def _entry_points() -> set[str]:
    """The functions the package's entry points name (the console script), and the pytest plugin's hooks."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    scripts = {target.partition(":")[2] for target in project["scripts"].values()}
    plugins = [
        SRC.parent / (module.replace(".", "/") + ".py") for module in project["entry-points"]["pytest11"].values()
    ]
    hooks = {
        node.name
        for path in plugins
        for node in nodes(parsed(source(path)))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("pytest_")
    }
    return scripts | hooks


def _public_faces() -> set[str]:
    """The names a package's face lists in its ``__all__``."""
    names: set[str] = set()
    for path in SRC.rglob("__init__.py"):
        for node in parsed(source(path)).body:
            if isinstance(node, ast.Assign) and any(getattr(target, "id", "") == "__all__" for target in node.targets):
                names |= {item.value for item in getattr(node.value, "elts", []) if isinstance(item, ast.Constant)}
    return names


def test_every_function_in_src_is_referenced_by_the_package() -> None:
    sources = {str(path.relative_to(SRC)): source(path) for path in package_files()}
    assert unreferenced_functions(sources, allowed={*OVERRIDES, *_entry_points(), *_public_faces()}) == []


def test_every_override_listed_is_still_defined() -> None:
    defined = {
        key for path in SRC.rglob("*.py") for key, _ in _functions(str(path.relative_to(SRC)), parsed(source(path)))
    }
    assert sorted(set(OVERRIDES) - defined) == []


def test_the_reference_check_sees_a_function_nothing_calls_and_one_only_tests_call() -> None:
    sources = {
        "a.py": "def used():\n    pass\n\n\ndef unused():\n    pass\n\n\nclass C:\n    def m(self):\n        used()\n",
        "b.py": "from a import C\n\n\ndef main():\n    C().m()\n",
    }
    assert unreferenced_functions(sources, allowed={"main"}) == ["a.py:unused"]
    assert unreferenced_functions(sources, allowed=set()) == ["a.py:unused", "b.py:main"]

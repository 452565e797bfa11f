"""Names a reader can trust: every module of the package has a name of its own (``junit.py`` says which JUnit only
with its folder), and every function in src/ is referenced by the package itself (a function only tests call is
dead code kept alive by its tests)."""

from __future__ import annotations

import ast
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

from scripts import privatize
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


def test_every_public_function_in_src_is_used_outside_its_own_module() -> None:
    """A public function says other modules use it; one only its own module uses is private
    (``python scripts/privatize.py --apply`` renames each)."""
    assert [str(item) for item in privatize.found(REPO, parse=parsed)] == []


def _repository(root: Path, files: dict[str, str | bytes]) -> Path:
    for where, content in files.items():
        path = root / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return root


MODULE = "src/adk_eval_gate/a.py"
A_MODULE = (
    "def alone():\n    return shared() + tested() + documented() + _private()\n\n\n"
    "def shared():\n    return 1\n\n\ndef tested():\n    return 2\n\n\ndef documented():\n    return 3\n\n\n"
    "def _private():\n    return 4\n\n\ndef pytest_configure(config):\n    alone()\n"
)


def test_the_privatize_check_finds_a_public_function_no_other_file_names(tmp_path: Path) -> None:
    repo = _repository(
        tmp_path,
        {
            MODULE: A_MODULE,
            "src/adk_eval_gate/b.py": "from adk_eval_gate import a\n\nprint(a.shared())\n",
            "tests/test_a.py": "def test_it(monkeypatch):\n    monkeypatch.setattr(a, 'tested', None)\n",
            "docs/a.md": "`documented` is the way in.\n",
        },
    )
    assert privatize.found(repo) == [privatize.Found(MODULE, "alone", 1)]


def test_the_privatize_check_reads_no_link_special_file_binary_or_huge_file(tmp_path: Path) -> None:
    outside = _repository(tmp_path / "outside", {"names.md": "alone"}) / "names.md"
    repo = _repository(
        tmp_path / "repo",
        {MODULE: A_MODULE.replace("shared() + tested() + documented() + ", ""), "docs/binary.bin": b"alone\0"},
    )
    (repo / "docs" / "huge.md").write_text("alone " * (privatize.LARGEST_FILE // 6 + 1))
    (repo / "docs" / "linked.md").symlink_to(outside)
    (repo / "linked_folder").symlink_to(outside.parent)
    os.mkfifo(repo / "docs" / "fifo.md")  # read, it would never end
    names = [item.name for item in privatize.found(repo)]
    assert names == ["alone", "shared", "tested", "documented"]


def test_privatize_renames_the_uses_and_the_mentions_as_code_and_leaves_the_prose(tmp_path: Path) -> None:
    text = (
        '"""``vote`` counts; the vote of a judge."""\n\n\n'
        "def vote(counts):\n"
        '    """A vote: ``vote(counts)``, not ``other.vote``."""\n'
        "    return len(counts)  # vote() of each; a vote\n\n\n"
        'LABELS = {"ünïcödé": vote, "a vote": 1}\r\n'
        "async def main():\n    return [vote([1]) for _ in f'{vote}'], dict(vote=2)\n"
    )
    assert privatize.privatized(text, "vote") == (
        '"""``_vote`` counts; the vote of a judge."""\n\n\n'
        "def _vote(counts):\n"
        '    """A vote: ``_vote(counts)``, not ``other.vote``."""\n'
        "    return len(counts)  # _vote() of each; a vote\n\n\n"
        'LABELS = {"ünïcödé": _vote, "a vote": 1}\r\n'
        "async def main():\n    return [_vote([1]) for _ in f'{_vote}'], dict(vote=2)\n"
    )


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("def g(vote):\n    return vote\n", "vote is bound again in its module (line 4)"),
        ("for vote in []:\n    pass\n", "vote is bound again in its module (line 4)"),
        ("class C:\n    def vote(self):\n        pass\n", "vote is bound again in its module (line 5)"),
        ("x = C().vote\n", "vote is also an attribute's name in its module (line 4)"),
        ("f = getattr(sys.modules[__name__], 'vote')\n", "named in a string of its module (line 4): it may be called"),
        ("TARGET = 'adk_eval_gate.a:vote'\n", "named in a string of its module (line 4): it may be called"),
        ("def _vote():\n    pass\n", "_vote is taken in its module"),
    ],
)
def test_privatize_skips_a_function_it_cannot_rename_by_the_syntax_tree_alone(code: str, reason: str) -> None:
    with pytest.raises(privatize.CannotRename) as raised:
        privatize.privatized(f"def vote():\n    pass\n\n{code}", "vote")
    assert str(raised.value).startswith(reason)


def test_privatize_skips_a_function_a_decorator_may_record_and_renames_a_cached_one() -> None:
    with pytest.raises(privatize.CannotRename, match=r"decorated with @app\.route\('/'\)"):
        privatize.privatized("@app.route('/')\ndef vote():\n    pass\n", "vote")
    cached = "@functools.cache\ndef vote():\n    pass\n\r\rvote()\r"
    assert privatize.privatized(cached, "vote") == "@functools.cache\ndef _vote():\n    pass\n\r\r_vote()\r"


def test_privatize_applies_once_and_a_second_run_finds_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repository(tmp_path, {MODULE: A_MODULE, "tests/test_a.py": "shared tested documented"})
    assert privatize.main(["--check", "--repo", str(repo)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{MODULE}:1: alone",
        "1 public functions only their own module uses (0 skipped)",
    ]
    assert privatize.main(["--apply", "--repo", str(repo)]) == 0
    applied = (repo / MODULE).read_text()
    assert applied == A_MODULE.replace("alone", "_alone")
    assert privatize.main(["--apply", "--repo", str(repo)]) == 0
    assert (repo / MODULE).read_text() == applied


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"def alone(:\n", f"privatize: {MODULE}:1: does not parse ("),
        (b"def alone():\n    return '\xff'\n", f"privatize: {MODULE}: not UTF-8 (byte 25): fix the module first"),
    ],
)
def test_privatize_says_in_one_line_which_module_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    repo = _repository(tmp_path, {MODULE: content})
    assert privatize.main(["--check", "--repo", str(repo)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(message) and error.count("\n") == 1

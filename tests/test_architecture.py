"""The layout is the design: the package root holds the command line only, its folders are the pipeline's stages,
every import points down the layers (a hand-off type lives with the stage that produces it), and
ARCHITECTURE.md names only modules that exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.package_sources import nodes, package_files, parsed, source

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "adk_eval_gate"

# The layers, lowest first: a module may import its own layer and the layers below it, never one above.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("support",),  # the console, errors, untrusted JSON, retries, cache files, masking, words, numbers
    ("model",),  # ADK's eval file and config models, results.json's models, the hand-off types
    ("config",),  # the options, the settings, the GitHub Actions context
    ("verdict",),  # every rule that can fail a case or the run: results.json's types in, statuses out
    ("judge",),  # the LLM judge
    ("metrics",),  # one module per metric family, and scoring a run
    ("inputs",),  # discover, load, plan
    ("runners",),  # infer: the runners, their worker processes, the execution of the work items
    ("aggregate",),  # scored runs into results.json's records, usage and prices
    ("selection",),  # which work items run: the cases a change can touch, the cases to run again
    ("compare",),  # this run against the baseline
    ("report",),  # the renderers
    ("github",),  # GitHub: the client, the baseline's artifacts, the comment, the outputs
    ("finish",),  # the end run and report share: compared and decided, written, published, the exit code
    ("pytest", "commands"),  # the pytest plugin; the commands, each wiring its stages
    ("cli", "__main__", "__init__"),  # the package root
)
ROOT_MODULES_AT_MOST = 8
# Packages that may import fewer layers than those below them: the verdict decides on results.json's types alone.
# Packages with one public face: a module outside imports the package, never a module behind its face.
FACES = ("model.results", "verdict")
STANDS_ON = {"verdict": {"verdict", "model", "config", "support"}}
FROM_A_FACE = re.compile(
    r"^\s*from\s+adk_eval_gate\.(" + "|".join(re.escape(face) for face in FACES) + r")\s+import\s+(\([^)]*\)|.*)",
    re.MULTILINE,
)


def _layer(module: str) -> int:
    first = module.split(".", maxsplit=1)[0]
    return next(index for index, names in enumerate(LAYERS) if first in names)


def _imports(path: Path) -> list[str]:
    """The package's modules that a module imports, at any place in it (a lazy import is still a dependency)."""
    found = []
    for node in nodes(parsed(source(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("adk_eval_gate"):
            if node.module == "adk_eval_gate":
                found += [alias.name for alias in node.names if alias.name != "__version__"]
            else:
                module = (node.module or "").removeprefix("adk_eval_gate.")
                found.append(module)
                found += [f"{module}.{alias.name}" for alias in node.names if _is_module(f"{module}.{alias.name}")]
        elif isinstance(node, ast.Import):
            found += [a.name.removeprefix("adk_eval_gate.") for a in node.names if a.name.startswith("adk_eval_gate.")]
    return found


def _is_module(dotted: str) -> bool:
    """A module or package of adk_eval_gate (``from adk_eval_gate.verdict import rules`` imports one), unless its
    package's face lists the name (``verdict.decide`` is the function its face exports)."""
    where = SRC.joinpath(*dotted.split("."))
    return (where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()) and where.name not in _face_names(
        where.parent / "__init__.py"
    )


def _face_names(init: Path) -> set[str]:
    """The names a package's ``__init__`` lists in its ``__all__``."""
    return {
        item.value
        for node in (parsed(source(init)).body if init.is_file() else [])
        if isinstance(node, ast.Assign) and any(getattr(target, "id", "") == "__all__" for target in node.targets)
        for item in getattr(node.value, "elts", [])
        if isinstance(item, ast.Constant)
    }


def _modules() -> list[tuple[str, Path]]:
    modules = []
    for path in package_files():
        parts = path.relative_to(SRC).with_suffix("").parts
        modules.append((".".join(parts) if parts != ("__init__",) else "__init__", path))
    return modules


def test_every_import_points_down_the_layers() -> None:
    upward = [
        f"{module} imports {target}"
        for module, path in _modules()
        for target in _imports(path)
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def test_the_verdict_stands_on_the_model_the_config_and_support_only() -> None:
    beyond = [
        f"{module} imports {target}"
        for module, path in _modules()
        for target in _imports(path)
        if module.split(".")[0] in STANDS_ON and target.split(".")[0] not in STANDS_ON[module.split(".")[0]]
    ]
    assert beyond == []


def _outside_modules() -> list[tuple[str, Path]]:
    """The package's modules, and the tests', benches' and scripts' (named by their path), to check faces in."""
    others = [
        (str(path.relative_to(REPO)), path)
        for folder in ("tests", "bench", "scripts")
        for path in sorted((REPO / folder).rglob("*.py"))
        if "fixtures" not in path.parts
    ]
    return [*_modules(), *others]


def _behind_a_face(module: str, target: str) -> bool:
    """A module behind a face, imported from outside it (a face's own unit tests, under its folder in tests/, are
    inside it)."""
    return any(
        target.startswith(f"{face}.")
        and not module.startswith(f"{face}.")
        and not module.startswith(f"tests/{face.replace('.', '/')}/")
        for face in FACES
    )


def _may_reach_behind_a_face(text: str) -> bool:
    """A cheap look before parsing: a dotted path behind a face, or a module imported by name from a face."""
    return any(f"adk_eval_gate.{face}." in text for face in FACES) or any(
        _is_module(f"{face}.{name}") for face, names in FROM_A_FACE.findall(text) for name in re.findall(r"\w+", names)
    )


def test_a_package_with_one_face_is_imported_through_it() -> None:
    deep = [
        f"{module} imports {target}"
        for module, path in _outside_modules()
        if _may_reach_behind_a_face(source(path))  # parses only the files that might
        for target in _imports(path)
        if _behind_a_face(module, target)
    ]
    assert deep == []
    assert _behind_a_face("report.writer", "model.results.vocabulary")
    assert not _behind_a_face("report.writer", "model.results")
    assert not _behind_a_face("model.results.document", "model.results.vocabulary")
    assert _behind_a_face("report.junit", "verdict.rules") and _behind_a_face("bench/x.py", "verdict.sequential")
    assert not _behind_a_face("verdict.decide", "verdict.rules")
    assert not _behind_a_face("tests/verdict/test_rules.py", "verdict.rules")


def test_the_face_rule_sees_a_module_imported_by_name_from_its_package(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from adk_eval_gate.verdict import Policy, stability\n", encoding="utf-8")
    assert [_behind_a_face("report.m", target) for target in _imports(module)] == [False, True]
    assert _may_reach_behind_a_face(module.read_text(encoding="utf-8"))
    assert not _may_reach_behind_a_face("from adk_eval_gate.verdict import (\n    Policy,\n    decide,\n)\n")


def test_every_package_is_a_layer_and_the_root_holds_the_command_line_only() -> None:
    packages = {path.name for path in SRC.iterdir() if path.is_dir() and (path / "__init__.py").is_file()}
    assert packages == {name for names in LAYERS for name in names} - {"cli", "__main__", "__init__"}
    root = sorted(path.name for path in SRC.glob("*.py"))
    assert len(root) <= ROOT_MODULES_AT_MOST and root == ["__init__.py", "__main__.py", "cli.py"]


def test_the_layer_rule_sees_an_import_that_points_up(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from adk_eval_gate.report import junit\n", encoding="utf-8")
    assert [_layer(target) > _layer("model.results") for target in _imports(module)] == [True, True]


def test_every_module_named_in_architecture_md_exists() -> None:
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b((?:[a-z_]+/)*[a-z_]+\.py)\b", text))
    missing = [name for name in sorted(named) if not (SRC / name).is_file() and not (REPO / name).is_file()]
    assert named and missing == []


# The verdict is decided before anything is rendered or posted: the outputs render the document they are given.
OUTPUTS = ("report", "github")
DECIDERS = {"decide", "redecide", "decide_case"}


def _called(tree: ast.AST) -> list[str]:
    """The names of the functions a module calls (``f(...)`` and ``x.f(...)``)."""
    return [
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in nodes(tree)
        if isinstance(node, ast.Call)
    ]


def test_no_report_or_github_module_decides_the_verdict() -> None:
    deciding = [
        f"{module} calls {name}"
        for module, path in _modules()
        if module.split(".")[0] in OUTPUTS
        for name in _called(parsed(source(path)))
        if name in DECIDERS
    ]
    assert deciding == []
    assert _called(ast.parse("verdict.decide(doc, None, policy)\nredecide(doc)")) == ["decide", "redecide"]

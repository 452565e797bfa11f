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
FACES = ("model.results",)
STANDS_ON = {"verdict": {"verdict", "model", "config", "support"}}


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
                found.append((node.module or "").removeprefix("adk_eval_gate."))
        elif isinstance(node, ast.Import):
            found += [a.name.removeprefix("adk_eval_gate.") for a in node.names if a.name.startswith("adk_eval_gate.")]
    return found


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
    return any(target.startswith(f"{face}.") and not module.startswith(f"{face}.") for face in FACES)


def test_a_package_with_one_face_is_imported_through_it() -> None:
    deep = [
        f"{module} imports {target}"
        for module, path in _outside_modules()
        if any(f"{face}." in source(path) for face in FACES)  # only such a file can name a module behind a face
        for target in _imports(path)
        if _behind_a_face(module, target)
    ]
    assert deep == []
    assert _behind_a_face("report.writer", "model.results.vocabulary")
    assert not _behind_a_face("report.writer", "model.results")
    assert not _behind_a_face("model.results.document", "model.results.vocabulary")


def test_every_package_is_a_layer_and_the_root_holds_the_command_line_only() -> None:
    packages = {path.name for path in SRC.iterdir() if path.is_dir() and (path / "__init__.py").is_file()}
    assert packages == {name for names in LAYERS for name in names} - {"cli", "__main__", "__init__"}
    root = sorted(path.name for path in SRC.glob("*.py"))
    assert len(root) <= ROOT_MODULES_AT_MOST and root == ["__init__.py", "__main__.py", "cli.py"]


def test_the_layer_rule_sees_an_import_that_points_up(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from adk_eval_gate.report import junit\n", encoding="utf-8")
    assert [_layer(target) > _layer("model.results") for target in _imports(module)] == [True]


def test_every_module_named_in_architecture_md_exists() -> None:
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b((?:[a-z_]+/)*[a-z_]+\.py)\b", text))
    missing = [name for name in sorted(named) if not (SRC / name).is_file() and not (REPO / name).is_file()]
    assert named and missing == []

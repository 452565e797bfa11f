"""What a repository holds that tells each eval file's agent: one walk finds its test modules, its ADK agent
folders and its agents-cli projects; the repository's ``pyproject.toml`` holds the gate's own table.

An agents-cli project is a folder with ``agents-cli-manifest.yaml`` (agents-cli 0.3 and later), or a
``pyproject.toml`` with a ``[tool.agents-cli]`` or ``[tool.agent-starter-pack]`` table (older scaffolds); its
``agent_directory`` (default ``app``) is the agent of the eval files under its ``tests/eval/``. Every file read here
is the user's and untrusted: size-limited, parsed without running anything, a problem kept as one line.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adk_eval_gate.inputs.agent_sources import is_agent_folder
from adk_eval_gate.inputs.discover import SKIPPED_DIRS, display_path, is_virtualenv
from adk_eval_gate.support.atomic import read_regular, unread
from adk_eval_gate.support.repository_paths import repository_path
from adk_eval_gate.support.repository_paths import shown as shown_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MANIFEST = "agents-cli-manifest.yaml"
PYPROJECT = "pyproject.toml"
LEGACY_TABLES = ("agents-cli", "agent-starter-pack")  # [tool.X] tables of agents-cli scaffolds before 0.3
DEFAULT_AGENT_DIRECTORY = "app"
GATE_TABLE = "adk-eval-gate"
MAX_SETTINGS_BYTES = 1_000_000  # a manifest or pyproject.toml larger than this is not read
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "conftest.py")
EVAL_FOLDERS = {"eval", "evals", "evaluation", "evaluations"}  # test-like modules that pytest may not collect


@dataclass(frozen=True)
class AgentsCliProject:
    folder: Path
    origin: Path  # the manifest or pyproject.toml that says it is one
    agent_directory: Path | None  # None: see problem
    problem: str | None = None

    def holds(self, eval_file: Path) -> bool:
        evals = self.folder / "tests" / "eval"
        return evals in eval_file.resolve().parents


@dataclass
class RepositoryIndex:
    root: Path
    test_modules: list[Path] = field(default_factory=list)
    agent_folders: list[Path] = field(default_factory=list)
    agents_cli: list[AgentsCliProject] = field(default_factory=list)

    @classmethod
    def scan(cls, root: Path) -> RepositoryIndex:
        """One walk of the repository (the folders discovery skips are skipped here too)."""
        root = root.resolve()
        index = cls(root)
        for current, dirs, files in os.walk(root):
            folder = Path(current)
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not is_virtualenv(folder / d))
            names = set(files)
            if "__init__.py" in names and is_agent_folder(folder):
                index.agent_folders.append(folder)
            project = agents_cli_project(folder, names, root=root)
            if project is not None:
                index.agents_cli.append(project)
            index.test_modules.extend(folder / name for name in sorted(files) if _test_like(folder, name))
        return index


def _test_like(folder: Path, name: str) -> bool:
    if not name.endswith(".py"):
        return False
    return name.startswith("test_") or name.endswith("_test.py") or folder.name in EVAL_FOLDERS


def pytest_bases(test_file: Path, *, root: Path) -> list[Path]:
    """Where pytest (and an installed project) would import a test module's agent from, nearest first: each
    project folder above the test file (``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``conftest.py``) and its
    ``src/``, the test file's own import base (its first folder up without ``__init__.py``), the repository."""
    root = root.resolve()
    bases: list[Path] = []
    basedir = test_file.parent
    while (basedir / "__init__.py").is_file() and basedir != root:
        basedir = basedir.parent
    for folder in test_file.resolve().parents:
        if root != folder and root not in folder.parents:
            break
        if any((folder / marker).is_file() for marker in PROJECT_MARKERS):
            bases += [folder, folder / "src"]
    return list(dict.fromkeys([*bases, basedir, root, root / "src"]))


def read_settings_file(path: Path, *, root: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the YAML or TOML mapping of ``path``, or the one line that says why it cannot be used)."""
    shown = display_path(path, root)
    data = read_regular(path, max_bytes=MAX_SETTINGS_BYTES)  # a FIFO named like a manifest never blocks
    if isinstance(data, str):
        return None, f"{shown} {unread(path, data, max_bytes=MAX_SETTINGS_BYTES)}"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return None, f"{shown} is not UTF-8 (byte 0x{error.object[error.start]:02x} at offset {error.start})"
    from adk_eval_gate.support import safe_yaml  # yaml loads only when a repository has a manifest

    try:
        parsed = tomllib.loads(text) if path.suffix == ".toml" else safe_yaml.load(text, json_values=False)[0]
    except tomllib.TOMLDecodeError as error:
        return None, f"{shown} is not valid TOML: {error}"
    except safe_yaml.UnsafeYaml as error:  # a syntax error, or aliases or nesting past the bounds
        where = f" (line {error.line})" if error.line is not None else ""
        if str(error).startswith("invalid YAML"):
            return None, f"{shown} is not valid YAML{where}"
        return None, f"{shown} cannot be used{where}: it {error}"
    except (RecursionError, MemoryError, ValueError) as error:
        return None, f"{shown} cannot be read ({type(error).__name__})"
    if not isinstance(parsed, dict):
        return None, f"{shown} is not a {'TOML table' if path.suffix == '.toml' else 'YAML mapping'}"
    return parsed, None


def tool_table(data: dict[str, Any], name: str) -> Any:
    tool = data.get("tool")
    return tool.get(name) if isinstance(tool, dict) else None


def agents_cli_project(folder: Path, names: set[str], *, root: Path) -> AgentsCliProject | None:
    """The agents-cli project of ``folder`` (whose files are ``names``), if it is one."""
    if MANIFEST in names:
        origin = folder / MANIFEST
        data, problem = read_settings_file(origin, root=root)
        table = data
    elif PYPROJECT in names:
        origin = folder / PYPROJECT
        data, problem = read_settings_file(origin, root=root)
        if data is None:
            return None  # a pyproject.toml that cannot be read may not be agents-cli's: the gate's table warns
        table = next((t for t in (tool_table(data, name) for name in LEGACY_TABLES) if t is not None), None)
        if table is None:
            return None
    else:
        return None
    if problem is not None or not isinstance(table, dict):
        return AgentsCliProject(folder, origin, None, problem or f"{display_path(origin, root)} is not a table")
    directory = table.get("agent_directory", DEFAULT_AGENT_DIRECTORY)
    shown = display_path(origin, root)
    if not isinstance(directory, str) or not directory.strip():
        return AgentsCliProject(folder, origin, None, f"{shown}: agent_directory must be a folder name")
    agent = repository_path(directory, base=folder, root=root)
    if isinstance(agent, str):
        problem = f"{shown}: agent_directory {shown_value(directory)} {agent}: name a folder of the project"
        return AgentsCliProject(folder, origin, None, problem)
    if not agent.is_dir():
        problem = f"{shown}: agent_directory {shown_value(directory)} does not exist"
        return AgentsCliProject(folder, origin, None, problem)
    return AgentsCliProject(folder, origin, agent)

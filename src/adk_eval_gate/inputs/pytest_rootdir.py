"""The folder pytest runs a test module from in a CI job, where the relative paths of its ``AgentEvaluator`` calls
are opened (ADK opens them relative to the working folder).

pytest's rootdir rules (``_pytest/config/findpaths.py``): the nearest folder above the tests with a configuration
file (``pytest.toml``, ``pytest.ini``, ``pyproject.toml`` with ``[tool.pytest]`` or ``[tool.pytest.ini_options]``,
``tox.ini`` with ``[pytest]``, ``setup.cfg`` with ``[tool:pytest]``), else the nearest ``pyproject.toml``, else the
nearest ``setup.py``, else the folder pytest is invoked from: the repository root for a plain ``pytest`` in CI.
A plain ``pytest`` in the rootdir runs only what the configuration's ``testpaths`` hold, so a test module outside
them is run from its own project folder (the nearest one with ``pyproject.toml``, ``setup.py`` or ``setup.cfg``),
as ``cd project && pytest`` does. ``conftest.py`` says nothing about where pytest runs. Every file read here is the
user's: size-limited, parsed without running anything, and one that cannot be read is no configuration.
"""

from __future__ import annotations

import configparser
import fnmatch
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from adk_eval_gate.support.atomic import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_CONFIG_BYTES = 1_000_000
_CONFIG_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_INI_SECTIONS = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


@dataclass(frozen=True)
class _Config:
    folder: Path
    testpaths: tuple[str, ...]  # empty: the whole folder


class PytestFolders:
    """The folder pytest runs each test module from, reading each folder's configuration once."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._configs: dict[Path, _Config | None] = {}

    def of(self, test_file: Path) -> Path:
        folders = self._folders_above(test_file)
        config = next((found for found in map(self._config, folders) if found is not None), None)
        if config is None:  # no configuration: the nearest pyproject.toml, then setup.py, then the invocation
            for marker in ("pyproject.toml", "setup.py"):
                found = next((folder for folder in folders if (folder / marker).is_file()), None)
                if found is not None:
                    return found
            return self.root
        if _covers(config, test_file):
            return config.folder
        below = [folder for folder in folders if config.folder in folder.parents]
        return next((f for f in below if any((f / name).is_file() for name in _PROJECT_FILES)), config.folder)

    def _folders_above(self, test_file: Path) -> list[Path]:
        """The folders from the test module's up to the repository root."""
        folders = []
        for folder in test_file.resolve().parents:
            if folder != self.root and self.root not in folder.parents:
                break
            folders.append(folder)
        return folders or [self.root]

    def _config(self, folder: Path) -> _Config | None:
        if folder not in self._configs:
            self._configs[folder] = next(
                (found for name in _CONFIG_FILES if (found := _read_config(folder / name)) is not None), None
            )
        return self._configs[folder]


def _read_config(path: Path) -> _Config | None:
    """The pytest configuration of ``path``, None when it holds none (or cannot be read)."""
    data = read_regular(path, max_bytes=MAX_CONFIG_BYTES)
    if isinstance(data, str):
        return None
    text = data.decode("utf-8", errors="replace")
    if path.suffix == ".toml":
        return _toml_config(path, text)
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except (configparser.Error, RecursionError, MemoryError):
        return None
    section = _INI_SECTIONS[path.name]
    if not parser.has_section(section):
        return _Config(path.parent, ()) if path.name.endswith("pytest.ini") else None
    return _Config(path.parent, tuple(parser.get(section, "testpaths", fallback="").split()))


def _toml_config(path: Path, text: str) -> _Config | None:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, MemoryError):
        return None
    if path.name == "pyproject.toml":
        tool = data.get("tool")
        table = tool.get("pytest") if isinstance(tool, dict) else None
        if not isinstance(table, dict):
            return None
        options = table.get("ini_options", table)
    else:  # pytest.toml is the configuration even when empty
        options = data.get("pytest", {})
    testpaths = options.get("testpaths", []) if isinstance(options, dict) else []
    if isinstance(testpaths, str):
        testpaths = shlex.split(testpaths) if testpaths.strip() else []
    return _Config(path.parent, tuple(str(entry) for entry in testpaths if isinstance(entry, str)))


def _covers(config: _Config, test_file: Path) -> bool:
    """Whether a plain ``pytest`` in the configuration's folder collects ``test_file`` (its ``testpaths``, which
    may be globs)."""
    if not config.testpaths:
        return True
    relative = PurePosixPath(test_file.resolve().relative_to(config.folder).as_posix())
    prefixes = [relative, *relative.parents]
    for entry in config.testpaths:
        pattern = PurePosixPath(entry.replace("\\", "/")).as_posix()
        if pattern == ".":
            return True
        if any(prefix.as_posix() != "." and fnmatch.fnmatchcase(prefix.as_posix(), pattern) for prefix in prefixes):
            return True
    return False

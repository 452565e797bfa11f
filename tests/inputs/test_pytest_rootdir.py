"""The folder pytest runs each test module from, by pytest's rootdir rules and ``testpaths``: where the relative
paths of its AgentEvaluator calls are opened. Configuration files are the repository's, read and never trusted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adk_eval_gate.inputs.pytest_rootdir import PytestFolders


def _write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'),
        ("pyproject.toml", "[tool.pytest]\nminversion = '9.0'\n"),
        ("pytest.ini", ""),
        ("pytest.toml", ""),
        ("tox.ini", "[tox]\n[pytest]\naddopts = -q\n"),
        ("setup.cfg", "[metadata]\nname = x\n[tool:pytest]\ntestpaths = tests\n"),
    ],
)
def test_the_nearest_configuration_above_is_the_folder_pytest_runs_from(tmp_path: Path, name: str, text: str) -> None:
    """A conftest.py or __init__.py on the way says nothing about it (ADK's tests/integration)."""
    _write(tmp_path / name, text)
    test = _write(tmp_path / "tests" / "integration" / "test_agent.py")
    _write(tmp_path / "tests" / "integration" / "conftest.py")
    _write(tmp_path / "tests" / "integration" / "__init__.py")
    assert PytestFolders(tmp_path).of(test) == tmp_path.resolve()


def test_files_without_pytest_s_table_are_no_configuration(tmp_path: Path) -> None:
    """Above them: the nearest pyproject.toml, then setup.py, then the repository root (a plain pytest there)."""
    _write(tmp_path / "tox.ini", "[tox]\n")
    _write(tmp_path / "proj" / "setup.cfg", "[metadata]\nname = x\n")
    _write(tmp_path / "proj" / "inner" / "pyproject.toml", "[project]\nname = 'x'\n")
    _write(tmp_path / "other" / "setup.py")
    folders = PytestFolders(tmp_path)
    assert folders.of(_write(tmp_path / "proj" / "inner" / "tests" / "test_a.py")) == (tmp_path / "proj" / "inner")
    assert folders.of(_write(tmp_path / "other" / "eval" / "test_b.py")) == tmp_path / "other"
    assert folders.of(_write(tmp_path / "proj" / "test_c.py")) == tmp_path.resolve()


def test_a_module_outside_the_testpaths_runs_from_its_own_project(tmp_path: Path) -> None:
    """A plain pytest in the rootdir does not collect it, so the team runs it from its project's folder."""
    _write(tmp_path / "pyproject.toml", '[tool.pytest.ini_options]\ntestpaths = ["tests", "agents/*/unit"]\n')
    _write(tmp_path / "agents" / "bot" / "pyproject.toml", "[project]\nname = 'bot'\n")
    folders = PytestFolders(tmp_path)
    root = tmp_path.resolve()
    assert folders.of(_write(tmp_path / "tests" / "test_a.py")) == root
    assert folders.of(_write(tmp_path / "agents" / "bot" / "unit" / "test_b.py")) == root  # a glob of testpaths
    assert folders.of(_write(tmp_path / "agents" / "bot" / "eval" / "test_eval.py")) == root / "agents" / "bot"
    assert folders.of(_write(tmp_path / "scripts" / "test_c.py")) == root  # no project of its own


@pytest.mark.parametrize(
    "content",
    [
        b"[tool.pytest.ini_options\n",  # not TOML
        b"\xff\xfe[tool.pytest.ini_options]\x00",
        b"[tool.pytest.ini_options]\ntestpaths = " + b"[" * 5_000 + b"]" * 5_000 + b"\n",
        b"[tool.pytest.ini_options]\n" + b"#" * 1_100_000,  # larger than read
    ],
    ids=["broken", "not-utf-8", "deep", "huge"],
)
def test_a_configuration_that_cannot_be_read_is_none(tmp_path: Path, content: bytes) -> None:
    _write(tmp_path / "pytest.ini")
    test = _write(tmp_path / "proj" / "test_a.py")
    (tmp_path / "proj" / "pyproject.toml").write_bytes(content)
    assert PytestFolders(tmp_path).of(test) == tmp_path.resolve()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.timeout(30)
def test_special_files_and_folders_above_the_repository_are_never_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pytest.ini")
    (tmp_path / "tox.ini").symlink_to("/dev/zero")
    repo = tmp_path / "repo"
    test = _write(repo / "tests" / "test_a.py")
    assert PytestFolders(repo).of(test) == repo.resolve()
    assert PytestFolders(tmp_path).of(test) == tmp_path.resolve()  # the FIFO and /dev/zero are not configuration

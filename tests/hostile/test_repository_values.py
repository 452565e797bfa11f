"""A path written in a repository file (a manifest, a ``pyproject.toml`` table, a config) is that file's problem.

A NUL, a name of 300 characters, a path of 5,000, or a folder outside the repository in one agents-cli project's
manifest is one line for that project's eval files: the other files run, every report is written, and nothing
says "internal error". Code outside the repository, a custom metric's file or an agent module, is refused by one
rule whether it is named absolute, with ``../`` or reached through a symbolic link.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # the command line in a process of its own, running a scripted agent

REPORTS = ("results.json", "junit.xml", "summary.md", "report.html")
FUNCTION = "def evaluate(instance):\n    return {'score': 1.0}\n"


def _repo(tmp_path: Path) -> Path:
    """A repository with a working agent and its eval file (``bot``), and an agents-cli project (``other``)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_agent(repo / "bot")
    write_config(repo / "bot", {"response_match_score": 0.5})
    write_evalset(repo / "bot" / "fine.evalset.json", {"fine": [turn("hello", answer="echo: hello")]})
    write_agent(repo / "other" / "app")
    write_evalset(repo / "other" / "tests" / "eval" / "other.evalset.json", {"o": [turn("hi", answer="echo: hi")]})
    write_config(repo / "other" / "tests" / "eval", {"response_match_score": 0.5})
    return repo


def _results(repo: Path) -> dict[str, Any]:
    for name in REPORTS:
        assert (repo / "out" / name).is_file(), f"{name} was not written"
    loaded: dict[str, Any] = json.loads((repo / "out" / "results.json").read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        ('agent_directory: "a\\0b"\n', "holds a NUL character"),
        (f"agent_directory: {'a' * 300}\n", "has a name of 300 bytes"),
        (f"agent_directory: {'a/' * 2500}\n", "is 5,000 bytes long"),
        ("agent_directory: ../..\n", "is outside the repository"),
    ],
    ids=["nul", "long-name", "long-path", "outside"],
)
def test_a_manifest_path_no_file_can_have_is_its_project_s_error_and_the_other_files_run(
    tmp_path: Path, manifest: str, said: str
) -> None:
    repo = _repo(tmp_path)
    (repo / "other" / "agents-cli-manifest.yaml").write_text(manifest, encoding="utf-8")
    result = run_cli("run", ".", "--output-dir", "out", cwd=repo)
    output = result.stdout + result.stderr
    assert "internal error" not in output and "Traceback" not in output, output
    doc = _results(repo)
    statuses = {case["file"]: case["status"] for case in doc["cases"]}
    assert statuses.get("bot/fine.evalset.json") == "passed", output
    errors = [line for line in output.splitlines() if said in line]
    assert errors and all("agents-cli-manifest.yaml: agent_directory" in line for line in errors), output
    assert all(len(line) < 600 for line in errors)
    assert result.returncode != 0


def test_a_pyproject_table_s_agent_of_300_characters_is_one_line_not_an_internal_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "pyproject.toml").write_text(f'[tool.adk-eval-gate.agents]\n"bot/*" = "{"b" * 300}"\n', encoding="utf-8")
    result = run_cli("validate", ".", cwd=repo)
    output = result.stdout + result.stderr
    assert result.returncode == 2 and "internal error" not in output, output
    assert "[tool.adk-eval-gate.agents] in pyproject.toml: 'bbbb" in output
    assert "has a name of 300 bytes, more than the 255" in output


def test_an_agent_module_that_is_a_link_out_of_the_repository_is_refused_and_the_others_run(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    elsewhere = write_agent(tmp_path / "elsewhere" / "linked")
    (repo / "linked").mkdir()
    (repo / "linked" / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (repo / "linked" / "agent.py").symlink_to(elsewhere / "agent.py")
    write_evalset(repo / "linked" / "linked.evalset.json", {"l": [turn("hello", answer="echo: hello")]})
    write_config(repo / "linked", {"response_match_score": 0.5})
    result = run_cli("run", "bot", "linked", "--output-dir", "out", cwd=repo)
    output = result.stdout + result.stderr
    assert "internal error" not in output, output
    doc = _results(repo)
    statuses = {case["file"]: case["status"] for case in doc["cases"]}
    assert statuses.get("bot/fine.evalset.json") == "passed", output
    assert "agent linked: linked/agent.py is outside the repository (symbolic links followed)" in output
    assert result.returncode != 0

"""entrypoint.sh, run for real with bash on this machine (the container test runs it inside the image).

``python`` and ``adk-eval-gate`` come first on PATH from this test environment, as they do from the image's
virtualenv, so pip and the CLI are the real ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from adk_eval_gate import __version__

REPO = Path(__file__).resolve().parents[2]
ENTRYPOINT = REPO / "entrypoint.sh"


def entrypoint(*args: str, cwd: Path, inputs: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(cwd), "PIP_NO_INDEX": "1"})
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    return subprocess.run(
        ["bash", str(ENTRYPOINT), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def error_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith("::error")]


def test_without_requirements_it_hands_over_to_the_cli(tmp_path: Path) -> None:
    result = entrypoint("--version", cwd=tmp_path, inputs={"requirements": ""})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"adk-eval-gate {__version__}"


def test_a_missing_requirements_file_is_one_error_naming_the_input(tmp_path: Path) -> None:
    result = entrypoint("--version", cwd=tmp_path, inputs={"requirements": "  agent/requirements.txt \n"})
    assert result.returncode == 2
    assert error_lines(result) == [
        "::error::input 'requirements': requirements file 'agent/requirements.txt' does not exist (give a path "
        "relative to the repository root, or 'pyproject' to install the repository itself)"
    ]
    assert "adk-eval-gate" not in result.stdout.replace("::error::", "")  # the CLI never started


def test_pyproject_without_a_project_is_one_error_naming_the_input(tmp_path: Path) -> None:
    result = entrypoint("--version", cwd=tmp_path, inputs={"requirements": "pyproject"})
    assert result.returncode == 2
    (line,) = error_lines(result)
    assert line.startswith("::error::input 'requirements': 'pyproject' installs the repository, but")
    assert "no pyproject.toml or setup.py" in line


def test_a_failing_install_is_one_error_naming_the_input_after_pip_s_own_output(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("./vendor/weather-tools\n", encoding="utf-8")
    result = entrypoint("--version", cwd=tmp_path, inputs={"requirements": "requirements.txt"})
    assert result.returncode == 2
    (line,) = error_lines(result)
    assert line.startswith("::error::input 'requirements': installing 'requirements.txt' failed: pip exited with")
    lines = result.stdout.splitlines()
    assert (
        lines.index("::group::Installing the agent's dependencies from requirements.txt")
        < lines.index("::endgroup::")
        < lines.index(line)
    )
    assert "vendor/weather-tools" in result.stdout + result.stderr  # pip said what it could not install


def test_an_installed_requirements_file_then_runs_the_cli(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("pyyaml>=6\n", encoding="utf-8")  # already satisfied: no network
    result = entrypoint("--version", cwd=tmp_path, inputs={"requirements": "requirements.txt"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Requirement already satisfied: pyyaml" in result.stdout
    assert result.stdout.splitlines()[-1] == f"adk-eval-gate {__version__}"
    assert not error_lines(result)


@pytest.mark.parametrize("value", ["zero", "0"])
def test_hyphenated_inputs_survive_the_entrypoint(tmp_path: Path, value: str) -> None:
    """dash would drop INPUT_NUM-RUNS from the CLI's environment; bash keeps it, so the CLI sees the bad value."""
    result = entrypoint(cwd=tmp_path, inputs={"num-runs": value})
    assert result.returncode == 2
    (line,) = error_lines(result)
    assert line.startswith("::error::input 'num-runs' must be")

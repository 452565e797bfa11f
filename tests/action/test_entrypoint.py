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

pytestmark = pytest.mark.slow  # the entrypoint script with real pip installs

REPO = Path(__file__).resolve().parents[2]
ENTRYPOINT = REPO / "entrypoint.sh"


def entrypoint(
    *args: str, cwd: Path, inputs: dict[str, str], extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(cwd), "PIP_NO_INDEX": "1"})
    env.update(extra_env or {})
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


# A build backend inside the repository (PEP 517 backend-path) that needs nothing installed, so pip builds and
# installs the project offline, with build isolation as usual.
BACKEND = """
import base64, hashlib, zipfile

NAME, VERSION = "weather_tools", "1.0"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    info = f"{NAME}-{VERSION}.dist-info"
    files = {
        f"{NAME}.py": open(f"{NAME}.py", "rb").read(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\\nName: weather-tools\\nVersion: {VERSION}\\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    files[f"{info}/RECORD"] = ("\\n".join(record + [f"{info}/RECORD,,"]) + "\\n").encode()
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(f"{wheel_directory}/{name}", "w") as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
    return name
"""


def test_pyproject_installs_the_repository_itself(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    (repository / "_build").mkdir(parents=True)
    (repository / "_build" / "backend.py").write_text(BACKEND, encoding="utf-8")
    (repository / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["_build"]\n\n'
        '[project]\nname = "weather-tools"\nversion = "1.0"\n',
        encoding="utf-8",
    )
    (repository / "weather_tools.py").write_text("FORECAST = 'sunny'\n", encoding="utf-8")
    target = tmp_path / "site-packages"  # pip installs here, not into the test environment
    result = entrypoint(
        "--version", cwd=repository, inputs={"requirements": "pyproject"}, extra_env={"PIP_TARGET": str(target)}
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (target / "weather_tools.py").read_text(encoding="utf-8") == "FORECAST = 'sunny'\n"
    assert (target / "weather_tools-1.0.dist-info" / "METADATA").is_file()
    assert result.stdout.splitlines()[-1] == f"adk-eval-gate {__version__}"


@pytest.mark.parametrize("value", ["zero", "0"])
def test_hyphenated_inputs_survive_the_entrypoint(tmp_path: Path, value: str) -> None:
    """dash would drop INPUT_NUM-RUNS from the CLI's environment; bash keeps it, so the CLI sees the bad value."""
    result = entrypoint(cwd=tmp_path, inputs={"num-runs": value})
    assert result.returncode == 2
    (line,) = error_lines(result)
    assert line.startswith("::error::input 'num-runs' must be")

"""Real ADK result files for the recorded runner: `adk eval` runs the offline example agent once per session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from tests.conftest import EXAMPLES

SHARED_RUNS = 2  # the most runs a test module asks for


def run_adk_eval(workdir: Path, *, runs: int = 1) -> Path:
    """Copies the example agent into ``workdir`` and runs ``adk eval`` on its eval set ``runs`` times.

    Returns the agent's ``.adk/eval_history`` folder.
    """
    agent = workdir / "weather_agent"
    shutil.copytree(EXAMPLES / "weather_agent", agent, ignore=shutil.ignore_patterns("__pycache__", ".adk"))
    adk = Path(sys.executable).with_name("adk")
    env = {**os.environ, "PYTHONPATH": str(workdir)}
    history = agent / ".adk" / "eval_history"
    for run in range(1, runs + 1):
        done = subprocess.run(  # exits 1: the example fails one case on purpose
            [
                str(adk),
                "eval",
                str(agent),
                str(agent / "weather.evalset.json"),
                "--config_file_path",
                str(agent / "test_config.json"),
            ],
            cwd=workdir,
            env=env,
            check=False,
            capture_output=True,
            text=True,
            timeout=180,
        )
        found = list(history.glob("*.evalset_result.json"))
        assert len(found) == run, done.stdout + done.stderr
    return history


def shared_adk_history(tmp_path_factory: pytest.TempPathFactory, *, runs: int) -> Path:
    """The first ``runs`` runs of one ``adk eval`` history made once per test session, shared by the modules that
    replay it and by pytest-xdist's workers (the first to ask makes it, under a lock; each ``adk eval`` is a
    process that imports ADK: seconds of CPU every module and worker paid again). Callers copy it, never change it.
    """
    assert 1 <= runs <= SHARED_RUNS, runs
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base folder sits in the session's own folder; without xdist the base is that folder.
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    shared = session / "adk-history"
    with FileLock(str(session / "adk-history.lock")):
        if not (shared / f"{SHARED_RUNS}-runs").is_dir():
            made = run_adk_eval(Path(tmp_path_factory.mktemp("adk")), runs=SHARED_RUNS)
            for count in range(1, SHARED_RUNS + 1):
                folder = shared / f"{count}-runs"
                folder.mkdir(parents=True)
                for result in sorted(made.glob("*.evalset_result.json"))[:count]:
                    shutil.copy2(result, folder / result.name)
    return shared / f"{runs}-runs"

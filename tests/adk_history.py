"""Real ADK result files for the recorded runner: `adk eval` runs the offline example agent once per session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES


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

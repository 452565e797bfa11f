"""Shared fixtures: example files and a helper to run the CLI in-process or as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m adk_eval_gate`` in a subprocess (a real process: exit code, stdout, no traceback)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "adk_eval_gate", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty repository folder (has .git, so config lookup stops here)."""
    (tmp_path / ".git").mkdir()
    return tmp_path

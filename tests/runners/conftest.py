"""Fixtures of the runner tests: a temporary repository and the CLI run in this process."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import gate_in_process


@dataclass
class GateRun:
    code: int
    out: str
    doc: dict[str, Any] | None

    def case(self, eval_id: str) -> dict[str, Any]:
        assert self.doc is not None
        return next(case for case in self.doc["cases"] if case["eval_id"] == eval_id)

    def scores(self, eval_id: str) -> dict[str, float | None]:
        return {metric["name"]: metric["score"] for metric in self.case(eval_id)["metrics"]}


RunGate = Callable[..., GateRun]


@pytest.fixture
def tmp_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty repository (``.git`` marks its root) that is the working directory."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture
def run_gate(tmp_repo: Path, monkeypatch: pytest.MonkeyPatch) -> RunGate:
    """``adk-eval-gate run ARGS`` in this process (``gate_in_process``); returns the exit code, stdout and
    results.json."""

    def run(*args: str) -> GateRun:
        out_dir = tmp_repo / "out"
        done = gate_in_process(monkeypatch, "run", *args, "--output-dir", str(out_dir), cwd=tmp_repo)
        results = out_dir / "results.json"
        doc = json.loads(results.read_text(encoding="utf-8")) if results.is_file() else None
        if results.is_file():
            results.unlink()
        return GateRun(done.returncode, done.stdout, doc)

    return run

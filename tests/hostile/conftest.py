"""The hostile-input suite uses the GitHub tests' fake server and the example's recorded results."""

from __future__ import annotations

from tests.github.conftest import example_results, fake_github
from tests.runners.conftest import run_gate, tmp_repo

__all__ = ["example_results", "fake_github", "run_gate", "tmp_repo"]

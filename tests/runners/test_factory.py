"""The factory builds the runner named by ``--runner``: one builder per name of the table of what runners can do."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.config.runner_kinds import RUNNER_KINDS
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.runners.factory import BUILDERS, chosen_runner


def test_every_runner_of_the_table_has_a_builder_and_no_other() -> None:
    assert set(BUILDERS) == set(RUNNER_KINDS)


def test_the_runner_built_is_the_one_named(tmp_path: Path) -> None:
    settings = Settings(runner="http", agent_url="http://127.0.0.1:1")
    assert chosen_runner(settings, root=tmp_path).name == "http"

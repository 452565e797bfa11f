"""What each runner can do, by name: the table the stages read instead of comparing the runner's name."""

from __future__ import annotations

import pydantic
import pytest

from adk_eval_gate.config.options import BY_FIELD
from adk_eval_gate.config.runner_kinds import RUNNER_KINDS, RUNNER_NAMES, RunnerKind
from adk_eval_gate.config.settings import Settings


def test_runner_choices_are_the_names_of_the_table() -> None:
    assert BY_FIELD["runner"].choices == RUNNER_NAMES == tuple(RUNNER_KINDS)


def test_each_runner_says_what_it_can_do() -> None:
    adk, http, recorded = RUNNER_KINDS["adk"], RUNNER_KINDS["http"], RUNNER_KINDS["recorded"]
    assert adk.needs_agent and adk.observes_inputs and adk.can_rerun and not adk.runs_remote
    assert http.runs_remote and http.can_rerun and not (http.needs_agent or http.observes_inputs)
    assert recorded.replays and not recorded.can_rerun and not (recorded.needs_agent or recorded.runs_remote)


def test_the_settings_give_the_chosen_runners_kind() -> None:
    assert Settings(runner="http", agent_url="http://127.0.0.1:1").runner_kind == RunnerKind(runs_remote=True)
    assert Settings().runner_kind == RUNNER_KINDS["adk"]


def test_a_runner_outside_the_table_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError, match="the runner must be one of adk, http, a2a, recorded"):
        Settings(runner="docker")

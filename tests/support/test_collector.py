"""The garbage collector of a run (``support.collector``): held while the run starts, on and settled for every case
run, in the worker processes and in the main process alike, and as it was afterwards in a process that goes on."""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from adk_eval_gate.support import collector
from tests.conftest import run_cli
from tests.runners.scripted import turn, write_agent, write_config, write_evalset


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The test process's collector on, whatever a test did to it (the autouse fixture restores the rest)."""
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_settling_freezes_the_heap_and_sweeps_the_youngest_generation_less_often(collector_on: None) -> None:
    before = gc.get_threshold()
    try:
        collector.settle_heap()
        assert gc.get_freeze_count() > 0 and gc.isenabled()
        assert gc.get_threshold() == (collector.YOUNG_GENERATION, before[1], before[2])
        collector.settle_heap()  # again (each run of a pytest session): still undone to the first thresholds
    finally:
        collector.unsettle_heap()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before and gc.isenabled()


def test_a_held_collector_is_on_once_settled_and_as_it_was_once_unsettled(collector_on: None) -> None:
    before = gc.get_threshold()
    try:
        collector.hold()
        assert not gc.isenabled()
        collector.settle_heap()
        assert gc.isenabled() and gc.get_threshold()[0] == collector.YOUNG_GENERATION
    finally:
        collector.unsettle_heap()
    assert gc.isenabled() and gc.get_threshold() == before


def test_unsettling_leaves_off_a_collector_that_was_off_before(collector_on: None) -> None:
    gc.disable()
    try:
        collector.hold()
        collector.settle_heap()
        assert gc.isenabled()
    finally:
        collector.unsettle_heap()
    assert not gc.isenabled()


def test_unsettling_what_was_never_held_or_settled_changes_nothing(collector_on: None) -> None:
    before = gc.get_threshold()
    collector.unsettle_heap()
    assert gc.isenabled() and gc.get_threshold() == before and gc.get_freeze_count() == 0


@pytest.mark.parametrize(
    ("argv", "actions", "held"),
    [
        (["run", "evals"], None, True),
        (["--verbose", "run"], None, True),
        ([], "true", True),  # the action's container starts the CLI without arguments: a run
        (["validate", "evals"], None, False),
        ([], None, False),
    ],
)
def test_the_console_script_holds_the_collector_for_a_run_only(
    monkeypatch: pytest.MonkeyPatch, collector_on: None, argv: list[str], actions: str | None, held: bool
) -> None:
    from adk_eval_gate import cli

    seen: list[bool] = []

    def main(argv: object, *, supervised: bool) -> int:
        seen.append(gc.isenabled())  # off: held
        return 0

    monkeypatch.setattr(sys, "argv", ["adk-eval-gate", *argv])
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    if actions:
        monkeypatch.setenv("GITHUB_ACTIONS", actions)
    monkeypatch.setattr(cli, "main", main)
    left: list[int] = []
    monkeypatch.setattr(cli, "leave", left.append)
    cli.entry()
    assert left == [0]
    assert seen == [not held]


# An agent that says whether the collector sweeps in the process that runs its turn.
COLLECTOR_AGENT = """
import gc

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class CollectorModel(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        state = "on" if gc.isenabled() else "held"
        frozen = "frozen" if gc.get_freeze_count() else "not frozen"
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=f"collector {state}, {frozen}")]))


root_agent = LlmAgent(name="collector_agent", model=CollectorModel(model="collector"))
"""


@pytest.mark.slow  # the real command line: its supervising parent, the worker starter and the workers
@pytest.mark.parametrize("workers", [None, "0"])
def test_every_case_run_runs_with_the_collector_on_after_a_start_that_held_it(tmp_path: Path, workers: str) -> None:
    """The console script holds the collector from its first line (``cli.entry``); a case run that ran with it
    still held would keep all its garbage in cycles until the end of the run, in a worker or (``--workers 0``) in
    the main process."""
    (tmp_path / ".git").mkdir()
    write_agent(tmp_path / "bot", COLLECTOR_AGENT)
    write_config(tmp_path / "bot", {"response_match_score": 1.0})
    write_evalset(
        tmp_path / "bot" / "gc.evalset.json",
        {f"case_{n}": [turn("how is the collector?", answer="collector on, frozen")] for n in range(3)},
    )
    args = ["--workers", workers] if workers else []
    result = run_cli("run", "bot", "--output-dir", "out", *args, cwd=tmp_path)
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert doc["status"] == "passed" and doc["totals"]["passed"] == 3

"""Progress output: a live line on a terminal, per-case lines and heartbeats in CI."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from adk_eval_gate.aggregate.records import FinishedRun
from adk_eval_gate.inputs.load import LoadedEvalSet
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model.evalset import EvalCase, EvalSet
from adk_eval_gate.model.results import CaseStatus
from adk_eval_gate.runners.progress import Progress, clock_text, use_live_line
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.support.console import Console


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _items(count: int) -> list[WorkItem]:
    cases = [EvalCase(eval_id=f"c{i}", conversation=[]) for i in range(count)]
    loaded = LoadedEvalSet(
        Path("a.evalset.json"), "a.evalset.json", EvalSet(eval_set_id="a", eval_cases=cases), "evalset"
    )
    planned = PlannedFile(loaded, config=None, case_ids=())  # type: ignore[arg-type]
    return [WorkItem(planned, case, index, 1) for index, case in enumerate(cases)]


def _ok() -> FinishedRun:
    return FinishedRun(run=1, inference=Inference(), scored=[])


def _error() -> FinishedRun:
    return FinishedRun(run=1, inference=Inference(error="boom"), scored=[])


def test_clock_text() -> None:
    assert [clock_text(s) for s in (0, 42.4, 185, 3720)] == ["0s", "42s", "3m05s", "1h02m"]


class Heard(io.StringIO):
    """The console's stream, which sets ``beat`` once a heartbeat line is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.beat = asyncio.Event()

    def write(self, text: str) -> int:
        if text.startswith("... "):
            self.beat.set()
        return super().write(text)


def test_ci_prints_one_line_per_run_and_heartbeats_in_a_group() -> None:
    out = Heard()
    console = Console(in_actions=True, stream=out)
    clock = Clock()
    progress = Progress(console, total=3, live=False, heartbeat_seconds=0.01, clock=clock)
    items = _items(3)
    progress.begin("Running 3 case runs")
    progress.ready()
    for item in items:
        progress.started(item)
    clock.now += 40
    progress.finished(items[0], _ok(), CaseStatus.PASSED)
    clock.now += 5
    progress.finished(items[1], _error(), CaseStatus.ERROR)

    async def beat() -> None:
        task = asyncio.ensure_future(progress.tick())
        await out.beat.wait()
        task.cancel()

    asyncio.run(beat())
    progress.finished(items[2], _ok(), CaseStatus.PASSED)
    progress.end()
    lines = out.getvalue().splitlines()
    assert lines[0] == "::group::Running 3 case runs"
    assert "ran a.evalset.json::c1: error: boom" in lines
    heartbeat = next(line for line in lines if line.startswith("... "))
    assert (
        heartbeat
        == "... 2/3 runs done, 1 error, 1 running, 45s elapsed, ETA 22s; longest running: a.evalset.json::c2 (45s)"
    )
    assert lines[-2] == "Finished in 45.00 s: 3/3 runs done, 1 error, 0 running"
    assert lines[-1] == "::endgroup::"
    assert "\r" not in out.getvalue()


def test_a_terminal_gets_a_live_line_redrawn_on_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    console = Console(in_actions=False, stream=out)
    clock = Clock()
    progress = Progress(console, total=2, live=True, stream=err, clock=clock)
    items = _items(2)
    progress.begin("Running")
    progress.ready()
    progress.started(items[0])
    progress.started(items[1])
    clock.now += 10
    progress.finished(items[0], _ok(), CaseStatus.PASSED)
    progress.end()
    assert "\r\x1b[K0/2 runs done, 1 running, 0s elapsed" in err.getvalue()
    assert "\r\x1b[K1/2 runs done, 1 running, 10s elapsed, ETA 10s" in err.getvalue()
    assert err.getvalue().endswith("\r\x1b[K")  # cleared before the final lines
    assert out.getvalue().splitlines()[-1] == "Finished in 10.00 s: 1/2 runs done, 1 running"


def test_live_line_only_on_a_terminal_outside_ci() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert use_live_line(Tty(), env={}) is True
    assert use_live_line(Tty(), env={"GITHUB_ACTIONS": "true"}) is False
    assert use_live_line(Tty(), env={"CI": "true"}) is False
    assert use_live_line(io.StringIO(), env={}) is False


def test_each_count_says_what_it_counts_and_a_run_not_evaluated_is_not_a_failure() -> None:
    out = io.StringIO()
    progress = Progress(Console(in_actions=True, stream=out), total=4, live=False, clock=Clock())
    items = _items(4)
    progress.begin("Running 4 case runs")
    for item, status in zip(
        items, (CaseStatus.FAILED, CaseStatus.NOT_EVALUATED, CaseStatus.NOT_EVALUATED, CaseStatus.PASSED), strict=True
    ):
        progress.started(item)
        progress.finished(item, _ok(), status)
    progress.end()
    assert out.getvalue().splitlines()[-2] == "Finished in 0.00 s: 4/4 runs done, 1 failed, 2 not evaluated, 0 running"

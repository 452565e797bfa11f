"""--sequential's schedule: each case's first wave, the waves after each finished run until the case is decided,
runs read in run-number order whatever order they finish in, and runs that are not evidence run again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from adk_eval_gate.inputs.configs import LoadedConfig
from adk_eval_gate.inputs.load import LoadedEvalSet
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.model.evalset import EvalCase, EvalSet
from adk_eval_gate.runners.execute import Execution, FinishedRun
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.runners.sequential_schedule import SequentialSchedule
from adk_eval_gate.verdict import CaseEvidence, RunOutcome, SequentialSettings, consume, open_evidence

SETTINGS = SequentialSettings(pass_rule="majority", max_runs=10, min_runs=2)


def _items(names: list[str], runs: int = 10) -> list[WorkItem]:
    cases = [EvalCase(eval_id=name, conversation=[]) for name in names]
    loaded = LoadedEvalSet(
        Path("a.evalset.json"), "a.evalset.json", EvalSet(eval_set_id="a", eval_cases=cases), "evalset"
    )
    planned = PlannedFile(loaded, LoadedConfig(None, EvalConfig(), []), ())  # type: ignore[arg-type]
    return [WorkItem(planned, case, index, run) for index, case in enumerate(cases) for run in range(1, runs + 1)]


def _evidence(passes: Callable[[str, int], bool]) -> Callable[[WorkItem, list[FinishedRun]], CaseEvidence]:
    def evidence(item: WorkItem, runs: list[FinishedRun]) -> CaseEvidence:
        outcomes = {run.run: RunOutcome(passed=passes(item.case.eval_id, run.run)) for run in runs}
        return consume(open_evidence(SETTINGS), outcomes)

    return evidence


def _execute(
    schedule: SequentialSchedule,
    items: list[WorkItem],
    *,
    inference: Callable[[WorkItem, int], Inference] = lambda item, attempt: Inference(),
    delay: Callable[[WorkItem], int] = lambda item: 0,
) -> tuple[Execution, list[tuple[str, int]]]:
    """Runs the schedule with a stand-in for each run: ``delay`` turns of the loop, then ``inference``."""
    execution = Execution()
    started: list[tuple[str, int]] = []

    async def one(item: WorkItem) -> FinishedRun:
        started.append((item.case.eval_id, item.run))
        for _ in range(delay(item)):
            await asyncio.sleep(0)
        attempt = started.count((item.case.eval_id, item.run))
        finished = FinishedRun(item.run, inference(item, attempt), [])
        execution.finished.setdefault(item.case_id, []).append(finished)
        return finished

    asyncio.run(schedule.run(items, one=one, execution=execution))
    return execution, started


def _runs(execution: Execution) -> dict[str, list[int]]:
    return {key.split("::")[1]: sorted(run.run for run in runs) for key, runs in execution.finished.items()}


def test_steady_cases_stop_once_proven_and_every_case_starts_with_its_first_wave() -> None:
    schedule = SequentialSchedule(_evidence(lambda name, run: name == "good"), parallelism=8)
    execution, started = _execute(schedule, _items(["good", "bad"]))
    runs = _runs(execution)
    assert 2 <= len(runs["good"]) < 10 and 2 <= len(runs["bad"]) < 10
    assert runs["good"] == list(range(1, len(runs["good"]) + 1))  # run numbers follow on, none skipped
    assert started[:4] == [("good", 1), ("good", 2), ("bad", 1), ("bad", 2)]  # both first waves before any other


def test_a_case_that_never_settles_gets_its_most_runs_and_no_more() -> None:
    schedule = SequentialSchedule(_evidence(lambda name, run: run % 4 in (1, 2)), parallelism=8)
    execution, _ = _execute(schedule, _items(["coin"]))
    assert _runs(execution) == {"coin": list(range(1, 11))}


def test_base_history_marking_a_case_flaky_makes_its_first_wave_larger() -> None:
    first = SequentialSchedule(_evidence(lambda name, run: True), parallelism=8, known_flaky={"a.evalset.json::f"})
    wave = first.first(_items(["f", "g"]))
    assert [item.case.eval_id for item in wave] == ["f"] * 5 + ["g"] * 2


def test_runs_are_read_in_run_number_order_whatever_order_they_finish_in() -> None:
    """Run 1 fails and finishes last: the case is decided as if it had finished first."""
    passes = _evidence(lambda name, run: run != 1)
    in_order, _ = _execute(SequentialSchedule(passes, parallelism=8), _items(["x"]))
    late, _ = _execute(
        SequentialSchedule(passes, parallelism=8), _items(["x"]), delay=lambda item: 50 if item.run == 1 else 0
    )
    items = _items(["x"])
    assert passes(items[0], in_order.finished[items[0].case_id]) == passes(items[0], late.finished[items[0].case_id])


def test_a_transient_error_is_not_evidence_and_its_run_runs_again_under_its_number() -> None:
    def inference(item: WorkItem, attempt: int) -> Inference:
        return Inference(error="503 from the model", retryable=True) if item.run == 2 and attempt == 1 else Inference()

    schedule = SequentialSchedule(_evidence(lambda name, run: True), parallelism=8)
    execution, started = _execute(schedule, _items(["x"]), inference=inference)
    assert started.count(("x", 2)) == 2
    runs = execution.finished["a.evalset.json::x"]
    assert all(run.inference.error is None for run in runs) and _runs(execution)["x"][:2] == [1, 2]


def test_an_agent_error_ends_the_case_runs() -> None:
    def inference(item: WorkItem, attempt: int) -> Inference:
        return Inference(error="the agent raised ValueError") if item.run == 1 else Inference()

    schedule = SequentialSchedule(_evidence(lambda name, run: True), parallelism=8)
    execution, _ = _execute(schedule, _items(["x"]), inference=inference)
    assert _runs(execution) == {"x": [1, 2]}  # its first wave, then nothing more


def test_a_decided_case_runs_on_one_run_at_a_time_while_its_comparison_with_the_base_is_open() -> None:
    open_until = {"good": 6, "done": 0}
    schedule = SequentialSchedule(
        _evidence(lambda name, run: True),
        parallelism=8,
        unsettled=lambda item, runs: len(runs) < open_until[item.case.eval_id],
    )
    execution, _ = _execute(schedule, _items(["good", "done"]))
    runs = _runs(execution)
    assert runs["good"] == list(range(1, 7))  # proven passing after 4 runs, then on until the comparison settled
    assert runs["done"] == list(range(1, 5))  # proven after 4, nothing to settle


def test_a_comparison_that_never_settles_stops_at_the_case_s_most_runs() -> None:
    schedule = SequentialSchedule(_evidence(lambda name, run: True), parallelism=8, unsettled=lambda item, runs: True)
    execution, _ = _execute(schedule, _items(["good"]))
    assert _runs(execution) == {"good": list(range(1, 11))}

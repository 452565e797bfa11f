"""Run the work items: inference then scoring, concurrently, each case run with a time limit.

A run that raises, hangs or times out becomes an ``error`` result with the reason; the others go on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from adk_eval_gate.aggregate import FinishedRun
from adk_eval_gate.metrics.base import Metric, MetricServices
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.plan import PlannedFile, WorkItem
from adk_eval_gate.runners.base import Inference, Runner
from adk_eval_gate.score import score_run

BuiltMetrics = list[tuple[ConfiguredMetric, Metric]]


@dataclass
class Execution:
    """Finished runs by case id, filled as runs finish (so an interrupted run keeps what finished)."""

    finished: dict[str, list[FinishedRun]] = field(default_factory=dict)
    interrupted: bool = False


class MetricBuilder:
    """Builds each file's metric evaluators once."""

    def __init__(self, services: MetricServices) -> None:
        self.services = services
        self._built: dict[int, BuiltMetrics] = {}

    def for_file(self, planned: PlannedFile) -> BuiltMetrics:
        key = id(planned.config)
        if key not in self._built:
            self._built[key] = [(c, c.build(self.services)) for c in planned.config.metrics]
        return self._built[key]


async def _infer(runner: Runner, item: WorkItem, timeout: float) -> Inference:
    started = time.monotonic()
    try:
        inference = await asyncio.wait_for(runner.infer(item), timeout=timeout)
    except asyncio.TimeoutError:
        inference = Inference(error=f"timed out after {timeout:g} s (raise --timeout if the agent needs longer)")
    except Exception as error:  # a runner bug must not stop the other cases
        inference = Inference(error=f"{type(error).__name__}: {error}")
    if inference.duration_seconds is None:
        inference.duration_seconds = round(time.monotonic() - started, 3)
    return inference


async def execute(
    items: list[WorkItem],
    *,
    runner: Runner,
    metrics: MetricBuilder,
    parallelism: int,
    timeout: float,
    on_finished: Callable[[WorkItem, FinishedRun], None] | None = None,
    on_started: Callable[[WorkItem], None] | None = None,
    execution: Execution | None = None,
) -> Execution:
    execution = execution or Execution()
    semaphore = asyncio.Semaphore(parallelism)

    async def one(item: WorkItem) -> None:
        async with semaphore:
            if on_started:
                on_started(item)
            inference = await _infer(runner, item, timeout)
            scored = (
                []
                if inference.error
                else await score_run(case=item.case, actual=inference.invocations, metrics=metrics.for_file(item.file))
            )
            finished = FinishedRun(run=item.run, inference=inference, scored=scored)
            execution.finished.setdefault(item.case_id, []).append(finished)
            if on_finished:
                on_finished(item, finished)

    await asyncio.gather(*(one(item) for item in items))
    return execution

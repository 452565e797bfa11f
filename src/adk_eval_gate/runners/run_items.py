"""The run's case runs with their progress on the console (``progress``), ADK's and the agents' logs kept with each
run (``runlog``), and SIGINT/SIGTERM stopping them cleanly (``Execution.interrupted``); the runner and the
services closed at the end. The engine underneath is ``execute``; what the caller does with each finished run, and
which cases run again once the first runs are done, are passed in."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from dataclasses import dataclass

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.model.results import CaseStatus
from adk_eval_gate.runners import runlog
from adk_eval_gate.runners.execute import (
    Execution,
    FinishedRun,
    MetricBuilder,
    RunHooks,
    RunLimits,
    StopOnSignals,
    execute,
)
from adk_eval_gate.runners.progress import Progress
from adk_eval_gate.runners.runner import Runner
from adk_eval_gate.runners.sequential_schedule import SequentialSchedule
from adk_eval_gate.runners.workers.metric_process import MetricProcesses
from adk_eval_gate.runners.workers.metric_reads import MetricReads
from adk_eval_gate.support import collector
from adk_eval_gate.support.console import Console, relayed_output


@dataclass(frozen=True)
class CommandHooks:
    """What the command adds to the runs: ``outcome``, a run's status as the progress shows it; ``finished``,
    called with each finished run; ``confirm``, once the first runs are done, the items to run again; ``reads``,
    where custom metrics record what they read; ``waves``, ``--sequential``'s schedule."""

    outcome: Callable[[FinishedRun], CaseStatus]
    finished: Callable[[WorkItem, FinishedRun], None] | None = None
    confirm: Callable[[Execution, Progress], list[WorkItem]] | None = None
    reads: MetricReads | None = None
    waves: SequentialSchedule | None = None


async def run_items(
    items: list[WorkItem],
    *,
    settings: Settings,
    runner: Runner,
    services: MetricServices,
    console: Console,
    hooks: CommandHooks,
    execution: Execution | None = None,
) -> Execution:
    """The ``execution`` the items' runs go to (a new one when None)."""
    execution = execution if execution is not None else Execution()
    progress = _progress(items, settings=settings, console=console, runner=runner, waves=hooks.waves)
    confirm = hooks.confirm

    def finished(item: WorkItem, run: FinishedRun) -> None:
        progress.finished(item, run, hooks.outcome(run))
        if hooks.finished is not None:
            hooks.finished(item, run)

    work = asyncio.ensure_future(
        execute(
            items,
            runner=runner,
            metrics=_metric_builder(settings, services=services, console=console, reads=hooks.reads),
            limits=RunLimits(parallelism=settings.parallelism, timeout=settings.timeout),
            execution=execution,
            hooks=RunHooks(
                started=progress.started,
                finished=finished,
                ready=_settled_first(progress.ready),
                confirm=(lambda done: confirm(done, progress)) if confirm else None,
                waves=hooks.waves,
            ),
        )
    )
    ticker = asyncio.ensure_future(progress.tick())
    try:
        with (
            StopOnSignals(work) as stop,
            relayed_output(console, [progress]),
            runlog.installed(console.line, verbose=settings.verbose),
        ):
            try:
                await work
            except asyncio.CancelledError:
                if stop.received is None:
                    raise
                execution.interrupted = True
                execution.stopped_by = stop.received
    finally:
        ticker.cancel()
        progress.end(interrupted=signal.Signals(execution.stopped_by).name if execution.stopped_by else None)
        await runner.aclose()
        await services.aclose()
    return execution


def _progress(
    items: list[WorkItem], *, settings: Settings, console: Console, runner: Runner, waves: SequentialSchedule | None
) -> Progress:
    """The runs' progress, begun; with ``waves`` (``--sequential``) its total grows as each wave starts, up to the
    items planned (the runs a case does not need never start, so they are not unfinished either)."""
    progress = Progress.for_console(console, total=0 if waves else len(items), env=settings.environment)
    if waves is not None:
        waves.on_more = progress.scheduled
    most = "up to " if waves else ""
    progress.begin(f"Running {most}{len(items)} case runs ({runner.name} runner, parallelism {settings.parallelism})")
    return progress


def _settled_first(ready: Callable[[], None]) -> Callable[[], None]:
    """``ready``, once what this process set up for the runs (agents, models, metrics) is settled: it lives until
    the end (``support.collector``)."""

    def settled() -> None:
        collector.settle_heap()
        ready()

    return settled


def _metric_builder(
    settings: Settings, *, services: MetricServices, console: Console, reads: MetricReads | None
) -> MetricBuilder:
    """The run's metrics: custom metrics in processes of their own, within ``--timeout``, their output relayed."""
    processes = MetricProcesses(timeout=settings.timeout, on_output=console.line)
    return MetricBuilder(services, reads=reads, processes=processes)

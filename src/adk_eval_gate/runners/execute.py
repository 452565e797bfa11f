"""Run the work items: inference then scoring, concurrently, each case run with a time limit.

A run that raises, hangs or times out becomes an ``error`` result with the reason; the others go on. A run that
failed for a transient reason around the agent (the model provider's 429, 5xx or lost connection, a lost worker
process: the runner says so; never what the agent's own code raised) is run again in a fresh session after a
backoff, a few times, all within its ``--timeout``; each earlier attempt's reason is kept (``Inference.retries``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.judge.service import SCORED_RUN
from adk_eval_gate.metrics.metric import Metric, MetricServices
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.metrics.score import MetricEscaped, ScoredMetric, score_run
from adk_eval_gate.model.compact import AppTable
from adk_eval_gate.model.results import ServedAgent
from adk_eval_gate.runners.capture import actual_invocations, capture
from adk_eval_gate.runners.runner import Inference, Runner, contain_exits, describe_escape
from adk_eval_gate.runners.workers.metric_process import MetricProcesses
from adk_eval_gate.runners.workers.metric_reads import MetricReads
from adk_eval_gate.support.retry import Backoff

BuiltMetrics = list[tuple[ConfiguredMetric, Metric]]


class Waves(Protocol):
    """Runs the items in waves it decides (``runners.sequential_schedule``) with ``one``."""

    async def run(
        self, items: list[WorkItem], *, one: Callable[[WorkItem], Awaitable[FinishedRun]], execution: Execution
    ) -> None: ...


@dataclass
class FinishedRun:
    run: int
    inference: Inference
    scored: list[ScoredMetric]
    confirmation: bool = False  # a re-run of --confirm-failures

    @property
    def infrastructure_failure(self) -> str | None:
        """Why a metric could not be scored because a service around the agent failed (a judge outage)."""
        return next((f"{s.configured.name}: {s.outcome.reason}" for s in self.scored if s.outcome.infrastructure), None)


@dataclass(repr=False)
class Execution:
    """Finished runs by case id, filled as runs finish (so an interrupted run keeps what finished)."""

    finished: dict[str, list[FinishedRun]] = field(default_factory=dict)
    interrupted: bool = False
    stopped_by: int | None = None  # the signal that stopped the run (SIGINT, SIGTERM)
    apps: AppTable = field(default_factory=AppTable)  # the app details the finished runs' turns name
    released: set[tuple[str, int]] = field(default_factory=set)  # finished runs taken out (``release``)
    local_models: set[str] = field(default_factory=set)  # models of the user's own classes (``Inference``)
    served_agent: ServedAgent | None = None  # the agent a remote runner reached, as its server describes it

    def __repr__(self) -> str:
        """Short: ``asyncio.run`` builds the repr of its finished main task, result included, when it restores
        its SIGINT handler; the repr of every run (a second per thousand runs) was spent for nothing."""
        return f"Execution({len(self.finished)} cases, {self.finished_runs()} runs, interrupted={self.interrupted})"

    def release(self, case_id: str) -> list[FinishedRun]:
        """The case's finished runs, taken out (its record is made of them); they still count as finished."""
        runs = self.finished.pop(case_id, [])
        self.released.update((case_id, finished.run) for finished in runs)
        return runs

    def finished_runs(self) -> int:
        return len(self.released) + sum(map(len, self.finished.values()))

    def unfinished(self, items: list[WorkItem]) -> list[str]:
        """Ids of the cases with a run that did not finish, in plan order."""
        done = {(case_id, finished.run) for case_id, runs in self.finished.items() for finished in runs}
        done |= self.released
        return list(dict.fromkeys(item.case_id for item in items if (item.case_id, item.run) not in done))


class MetricBuilder:
    """Builds each file's metric evaluators once: custom metrics run in processes of their own (``processes``);
    with ``reads``, they record what they read."""

    def __init__(
        self, services: MetricServices, *, reads: MetricReads | None = None, processes: MetricProcesses | None = None
    ) -> None:
        self.services = services
        self.reads = reads
        self.processes = processes or MetricProcesses()
        self._built: dict[int, BuiltMetrics] = {}

    def for_file(self, planned: PlannedFile) -> BuiltMetrics:
        key = id(planned.config)
        if key not in self._built:
            built = [
                (c, self.processes.wrap(c.custom_function_path, c.build(self.services))) for c in planned.config.metrics
            ]
            self._built[key] = [(c, self.reads.wrap(c, metric)) for c, metric in built] if self.reads else built
        return self._built[key]


CASE_RUN_RETRY = Backoff(attempts=3, initial=2.0, maximum=30.0, jitter=(0.8, 1.2))
"""A case run that failed for a transient reason runs again; the case's --timeout still bounds every wait."""


async def _attempt(runner: Runner, item: WorkItem) -> Inference:
    try:
        return await runner.infer(item)
    except asyncio.CancelledError:
        raise  # our own timeout or a signal
    except BaseException as error:  # agent code that calls sys.exit or raises KeyboardInterrupt must not end the run
        return Inference(error=describe_escape(error))


async def _infer(runner: Runner, item: WorkItem, *, timeout: float, retry: Backoff) -> Inference:
    started, started_at = time.monotonic(), time.time()
    retried: list[str] = []  # why each earlier attempt failed, in order (``Inference.retries``)

    async def attempts() -> Inference:
        for attempt in range(1, retry.attempts + 1):
            inference = await _attempt(runner, item)
            if not (inference.error and inference.retryable) or attempt == retry.attempts:
                if inference.error and inference.retryable:
                    inference.error += f" (failed {attempt} times; transient errors are retried)"
                inference.retries = [*retried, *inference.retries]
                return inference
            retried.extend([*inference.retries, inference.error])
            await asyncio.sleep(retry.delay(attempt, retry_after=inference.retry_after))
        raise AssertionError("unreachable")

    try:
        inference = await asyncio.wait_for(attempts(), timeout=timeout)
    except asyncio.TimeoutError:
        reason = f"timed out after {timeout:g} s (raise --timeout if the agent needs longer)"
        if retried:
            reason += f"; {len(retried)} earlier attempts failed, the last with: {retried[-1]}"
        inference = Inference(error=reason, timed_out=True, retries=retried)
    if inference.duration_seconds is None:
        inference.duration_seconds = round(time.monotonic() - started, 3)
    if inference.started_at is None:
        inference.started_at = round(started_at, 3)
    return inference


@dataclass(frozen=True)
class RunHooks:
    """What the caller does around the runs, each optional: ``ready`` once agents and metrics are set up, before
    the first run starts; ``started`` and ``finished`` with each run; ``confirm``, once the first runs are done,
    returns more items (the re-runs of ``--confirm-failures``), run the same way; ``waves`` (``--sequential``)
    starts the items as it decides instead of all at once."""

    started: Callable[[WorkItem], None] | None = None
    finished: Callable[[WorkItem, FinishedRun], None] | None = None
    ready: Callable[[], None] | None = None
    confirm: Callable[[Execution], list[WorkItem]] | None = None
    waves: Waves | None = None


@dataclass(frozen=True)
class RunLimits:
    """How many case runs at once, how long each may take (``--timeout``) and how a transient failure is retried."""

    parallelism: int
    timeout: float
    retry: Backoff = CASE_RUN_RETRY


async def execute(
    items: list[WorkItem],
    *,
    runner: Runner,
    metrics: MetricBuilder,
    limits: RunLimits,
    execution: Execution | None = None,
    hooks: RunHooks | None = None,
) -> Execution:
    """Runs every item; cancelling this coroutine stops the running ones and keeps what finished.

    Agents (``runner.prepare``) and metrics are set up first, then ``hooks.ready`` is called and the runs start.
    """
    execution = execution or Execution()
    hooks = hooks or RunHooks()
    contain_exits(asyncio.get_running_loop())  # agent code in this process (--workers 0) and custom metrics
    semaphore = asyncio.Semaphore(limits.parallelism)
    await runner.prepare(items)  # e.g. import the agents once, before any case run's clock starts
    for planned in {id(item.file): item.file for item in items}.values():
        metrics.for_file(planned)  # meanwhile the runner's worker processes may be starting
    await runner.wait_ready()
    if hooks.ready:
        hooks.ready()

    async def one(item: WorkItem) -> FinishedRun:
        async with semaphore:
            if hooks.started:
                hooks.started(item)
            finished = await run_one(
                item, runner=runner, metrics=metrics, timeout=limits.timeout, retry=limits.retry, apps=execution.apps
            )
            execution.finished.setdefault(item.case_id, []).append(finished)
            execution.local_models.update(finished.inference.local_models)
            execution.served_agent = finished.inference.served_agent or execution.served_agent
            if hooks.finished:
                hooks.finished(item, finished)
            return finished

    if hooks.waves is not None:
        await hooks.waves.run(items, one=one, execution=execution)
        return execution
    await asyncio.gather(*(one(item) for item in items))
    more = hooks.confirm(execution) if hooks.confirm else []
    await asyncio.gather(*(one(item) for item in more))
    return execution


async def run_one(
    item: WorkItem,
    *,
    runner: Runner,
    metrics: MetricBuilder,
    timeout: float,
    retry: Backoff,
    apps: AppTable | None = None,
) -> FinishedRun:
    """One run of one case: inference, then its metrics (each run's judge samples are its own: ``SCORED_RUN``).

    What the run's turns are kept as (``capture``) was made where they were made; every metric is scored here, in
    the gate's process (a worker sends turns, never scores). The invocation objects are dropped once scored: what
    is kept is compact.
    """
    apps = apps if apps is not None else AppTable()
    inference = capture(item.case, await _infer(runner, item, timeout=timeout, retry=retry), apps=apps)
    apps.table.update(inference.app_details)
    inference.app_details = {}
    scored = []
    if not inference.error:
        built = metrics.for_file(item.file)
        token = SCORED_RUN.set(item.run)
        try:
            scored = await score_run(
                case=item.case,
                actual=actual_invocations(item.case, inference, apps.table) if built else inference.invocations,
                metrics=built,
                final_session_state=inference.final_session_state,
                tools_unseen=inference.tools_unseen,
            )
        except MetricEscaped as escaped:
            inference.error = str(escaped)
        finally:
            SCORED_RUN.reset(token)
        if metrics.reads is not None and inference.observed is not None:  # the case's inputs: the metrics' reads too
            inference.observed = sorted({*inference.observed, *metrics.reads.files(item.file)})
    inference.invocations = []
    return FinishedRun(run=item.run, inference=inference, scored=scored, confirmation=item.confirmation)


class StopOnSignals:
    """While active, SIGINT and SIGTERM cancel ``task`` (the run keeps what finished); a second one exits at once.

    Python-level handlers (not the event loop's) so a signal is seen even while a blocking tool holds the loop.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, task: asyncio.Task[object]) -> None:
        self.task = task
        self.loop = task.get_loop()
        self.received: int | None = None
        self._previous: dict[int, object] = {}

    def _handle(self, signum: int, frame: object) -> None:
        if self.received is not None:
            sys.stderr.write(f"\n{signal.Signals(signum).name} again: stopping now, without reports\n")
            sys.stderr.flush()
            os._exit(128 + signum)
        self.received = signum
        self.loop.call_soon_threadsafe(self.task.cancel)

    def __enter__(self) -> StopOnSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)  # type: ignore[arg-type]

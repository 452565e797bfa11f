"""``adk-eval-gate run``: discover -> load -> plan -> infer -> score -> aggregate -> compare -> report ->
publish -> gate. Each stage is a module; this one only wires them together and owns the I/O edges."""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import signal
import time

from adk_eval_gate import __version__, aggregate, runlog
from adk_eval_gate.console import Console, relayed_output
from adk_eval_gate.execute import Execution, MetricBuilder, StopOnSignals, case_results, execute
from adk_eval_gate.finish import Ending, finish, github_session
from adk_eval_gate.metrics.base import MetricServices
from adk_eval_gate.metrics.services import build_services, finish_judge
from adk_eval_gate.plan import PlannedFile, WorkItem, plan, selection_digest
from adk_eval_gate.prepare import prepare
from adk_eval_gate.progress import Progress
from adk_eval_gate.report.console import PASS_RULES
from adk_eval_gate.report.sections import plural
from adk_eval_gate.results import FileResult, ResultsDocument, RunInfo
from adk_eval_gate.runners.base import Runner
from adk_eval_gate.runners.factory import make_runner
from adk_eval_gate.settings import Settings


def build_document(
    *,
    settings: Settings,
    planned: list[PlannedFile],
    files: list[FileResult],
    execution: Execution,
    unfinished: list[str],
    started_at: str,
    duration: float,
) -> ResultsDocument:
    cases = [case for file in planned for case in case_results(file, execution, pass_rule=settings.pass_rule)]
    return aggregate.document(
        aggregate.quarantine(cases, settings.quarantine),
        files,
        run_info(
            settings,
            started_at=started_at,
            duration=duration,
            interrupted=execution.interrupted,
            unfinished=unfinished,
            selection=selection_digest(planned, num_runs=settings.num_runs),
        ),
    )


def run_info(
    settings: Settings,
    *,
    started_at: str | None,
    duration: float | None = None,
    interrupted: bool = False,
    unfinished: list[str] | None = None,
    selection: str | None = None,
) -> RunInfo:
    return RunInfo(
        tool_version=__version__,
        runner=settings.runner,
        num_runs=settings.num_runs,
        shard=str(settings.shard) if settings.shard else None,
        selection=selection,
        gate_id=settings.gate_id,
        allow_not_evaluated=settings.allow_not_evaluated,
        pass_rule=settings.pass_rule,
        started_at=started_at,
        duration_seconds=round(duration, 3) if duration is not None else None,
        repository=settings.github.repository,
        sha=settings.github.sha,
        ref=settings.github.ref,
        run_url=settings.github.run_url,
        pull_request=settings.github.pull_request_number,
        interrupted=interrupted,
        unfinished=unfinished or [],
    )


async def run_items(
    items: list[WorkItem], *, settings: Settings, runner: Runner, services: MetricServices, console: Console
) -> Execution:
    """Runs the items with progress output; SIGINT/SIGTERM stop it cleanly (``Execution.interrupted``)."""
    execution = Execution()
    progress = Progress.for_console(console, total=len(items), env=settings.environment)
    progress.begin(f"Running {len(items)} case runs ({runner.name} runner, parallelism {settings.parallelism})")
    work = asyncio.ensure_future(
        execute(
            items,
            runner=runner,
            metrics=MetricBuilder(services),
            parallelism=settings.parallelism,
            timeout=settings.timeout,
            execution=execution,
            on_started=progress.started,
            on_finished=progress.finished,
            on_ready=progress.ready,
        )
    )
    ticker = asyncio.ensure_future(progress.tick())
    try:
        with (
            StopOnSignals(work) as stop,
            relayed_output(console),
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


def run(settings: Settings, console: Console) -> int:
    started = time.monotonic()
    started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    prepared = prepare(settings, console)
    for file in prepared.files:
        if not file.error:
            console.line(f"{file.path}: {plural(file.cases, 'case')}, criteria from {file.config}")
    if settings.num_runs > 1:
        console.line(f"{settings.num_runs} runs per case; a case passes when {PASS_RULES[settings.pass_rule]}")
    runner = make_runner(settings, root=prepared.root, console=console, planned=prepared.planned)
    items = plan(prepared.planned, num_runs=settings.num_runs, shard=settings.shard, run_count=runner.run_count)
    services = build_services(settings, prepared.planned, console)
    gc.freeze()  # the loaded files and configs live until the end (see execute: agents are frozen too)
    execution = asyncio.run(run_items(items, settings=settings, runner=runner, services=services, console=console))
    doc = build_document(
        settings=settings,
        planned=prepared.planned,
        files=prepared.files,
        execution=execution,
        unfinished=execution.unfinished(items),
        started_at=started_at,
        duration=time.monotonic() - started,
    )
    doc.judge = finish_judge(services, console)
    with github_session(settings, console) as client:
        ending = Ending(pull_number=settings.github.pull_request_number)
        code = finish(doc, settings=settings, console=console, client=client, ending=ending)
    if execution.stopped_by:
        console.line(f"Interrupted: the reports hold the {sum(map(len, execution.finished.values()))} finished runs")
        return 128 + execution.stopped_by
    return code

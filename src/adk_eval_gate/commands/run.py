"""``adk-eval-gate run``: discover -> load -> plan -> infer -> score -> aggregate -> compare -> report ->
publish -> gate. Each stage is a module; this one only wires them together and owns the I/O edges."""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import time

from adk_eval_gate import verdict
from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.aggregate.pricing import Prices, load_prices
from adk_eval_gate.aggregate.run_info import run_info, with_digests
from adk_eval_gate.aggregate.run_results import EarlyRecords, build_document
from adk_eval_gate.aggregate.usage import judge_totals, report_unpriced
from adk_eval_gate.commands import calibrate, sequential_run
from adk_eval_gate.commands.calibrate import loaded_labels
from adk_eval_gate.compare.changes import comparison_with
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.finish.ending import Ending, finish_run
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.inputs.plan import WorkItem, plan, selection_digest
from adk_eval_gate.inputs.prepare import Prepared, prepare, without_unimportable_functions
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.model.results import Comparison, JudgeCalibration, ResultsDocument
from adk_eval_gate.report.judge_lines import judge_line
from adk_eval_gate.runners.execute import Execution
from adk_eval_gate.runners.factory import make_runner
from adk_eval_gate.runners.preflight import function_problems
from adk_eval_gate.runners.run_items import run_items
from adk_eval_gate.runners.sequential_schedule import SequentialSchedule
from adk_eval_gate.runners.services import build_services, finish_judge
from adk_eval_gate.runners.workers.metric_reads import MetricReads
from adk_eval_gate.runners.workers.starter import Starter
from adk_eval_gate.selection import confirm
from adk_eval_gate.selection.confirm import Compared, Confirming
from adk_eval_gate.selection.found_baseline import Baseline, FindBaseline, NoBaseline
from adk_eval_gate.selection.only_affected import Affected, Inputs, choose
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.words import plural


def run(
    settings: Settings,
    console: Console,
    *,
    github: GitHubClient | None,
    find_baseline: FindBaseline,
    starter: Starter | None = None,
) -> int:
    """``github``: the GitHub client (None: no token or repository); ``find_baseline``: the baseline lookup
    (``github.baseline.for_settings`` with that client); ``starter``: the adk runner's worker starter, started
    before this module was imported (``cli``)."""
    try:
        return _run(settings, console, github=github, baseline=find_baseline, starter=starter)
    finally:
        if starter is not None:
            starter.close()  # the runner ended it, unless it never got to run a case


def _prepared(settings: Settings, console: Console) -> Prepared:
    # No metric module is imported here: a Vertex-style custom metric's function is checked in a process of its own
    prepared = prepare(settings, console, import_functions=False)
    functions = function_problems(prepared.planned, console=console, timeout=settings.timeout)
    prepared = without_unimportable_functions(prepared, functions, console)
    for file in prepared.files:
        if not file.error:
            found = f", agent {file.agent}" if file.agent else ""
            runs = f", {plural(file.num_runs, 'run')} per case" if file.num_runs and not file.agent else ""
            console.line(f"{file.path}: {plural(file.cases, 'case')}, criteria from {file.config}{found}{runs}")
    locator = prepared.locator
    for skipped in locator.skipped_by_module() if locator else []:
        console.line(f"note {skipped}: not used to find agents")
    for unawaited in locator.unawaited_notes() if locator else []:
        console.warning(unawaited)
    loaded = [file.loaded for file in prepared.planned]
    every_case = [(file.display, case.eval_id) for file in loaded for case in file.eval_set.eval_cases]
    broken = [file.path for file in prepared.files if file.error]
    for unmatched in verdict.unmatched_quarantine(settings.quarantine, cases=every_case, broken=broken):
        console.warning(f"{settings.option_name('quarantine')} {unmatched}")
    counts = sorted({file.num_runs or settings.num_runs for file in prepared.files if not file.error})
    if counts and counts[-1] > 1:
        each = f"{counts[0]} runs" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} runs"
        console.line(f"{each} per case; a case passes when {verdict.PASS_RULES[settings.pass_rule]}")
    return prepared


def _loaded(settings: Settings, console: Console) -> tuple[Prepared, Prices, Settings]:
    """The prepared files, the prices, and the settings with the suite's case count (``--sequential``'s split)."""
    prepared = _prepared(settings, console)
    prices = load_prices(settings.prices, field=settings.option_name("prices"))
    return prepared, prices, sequential_run.with_suite_size(settings, prepared.planned)


def _run(
    settings: Settings,
    console: Console,
    *,
    github: GitHubClient | None,
    baseline: FindBaseline,
    starter: Starter | None,
) -> int:
    started = (time.monotonic(), dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    prepared, prices, settings = _loaded(settings, console)
    runner = make_runner(settings, root=prepared.root, console=console, planned=prepared.planned, starter=starter)
    items = plan(prepared.planned, num_runs=settings.num_runs, shard=settings.shard, run_count=runner.run_count)
    judges = _calibrated_judges(settings, console, prepared=prepared)
    services = build_services(settings, prepared.planned, console)
    inputs = Inputs.of(settings, planned=prepared.planned, root=prepared.root, prices=prices)
    found = baseline()
    affected = choose(settings, inputs=inputs, items=items, found=found, console=console)
    items = affected.items
    waves, confirming, early = _schedules(settings, console, prepared=prepared, items=items, found=found, prices=prices)
    execution = asyncio.run(
        run_items(
            items,
            settings=settings,
            runner=runner,
            services=services,
            console=console,
            outcome=aggregate.run_outcome,
            execution=early.execution if early else None,
            on_finished=early.finished if early else None,
            confirm=confirming.more if confirming else None,
            metric_reads=MetricReads(prepared.root) if settings.runner_kind.observes_inputs else None,
            waves=waves,
        )
    )
    built = functools.partial(
        _document,
        settings,
        console,
        prepared=prepared,
        items=waves.started_items() if waves else items,
        execution=execution,
        started=started,
        inputs=inputs,
        affected=affected,
        confirming=confirming,
        early=early,
        prices=prices,
        services=services,
        judges=judges,
    )
    code = finish_run(
        built,
        settings=settings,
        console=console,
        client=github,
        ending=Ending(pull_number=settings.github.pull_request_number),
        found=found,
        run=run_info(settings, started_at=started[1], commit=inputs.commit, environment_inputs=inputs.environment),
    )
    return _exit_code(code, execution, console)


def _schedules(
    settings: Settings,
    console: Console,
    *,
    prepared: Prepared,
    items: list[WorkItem],
    found: Baseline | NoBaseline,
    prices: Prices,
) -> tuple[SequentialSchedule | None, Confirming | None, EarlyRecords | None]:
    """How the runs are scheduled beyond the first: in waves (``--sequential``: confirming a failure is then the
    sequential test itself), or with the failures confirmed (``--confirm-failures``); the records kept as the runs
    finish when neither applies."""
    waves = sequential_run.schedule(settings, items=items, found=found, console=console)
    compared = _comparing(found, settings)
    confirming = (
        None if waves else confirm.confirming(settings, console, prepared=prepared, items=items, compared=compared)
    )
    early = None if confirming or waves else EarlyRecords.of(settings, items=items, prices=prices)
    return waves, confirming, early


def _document(  # parameters: the run's stages' outputs, gathered once the runs are over
    settings: Settings,
    console: Console,
    *,
    prepared: Prepared,
    items: list[WorkItem],
    execution: Execution,
    started: tuple[float, str],
    inputs: Inputs,
    affected: Affected,
    confirming: Confirming | None,
    early: EarlyRecords | None,
    prices: Prices,
    services: MetricServices,
    judges: list[JudgeCalibration],
) -> ResultsDocument:
    """The run's document once the runs are over; ``started``: when the run started (monotonic, and as text)."""
    info = run_info(
        settings,
        started_at=started[1],
        duration=time.monotonic() - started[0],
        interrupted=execution.interrupted,
        unfinished=execution.unfinished(items),
        selection=selection_digest(prepared.planned, num_runs=settings.num_runs),
        planned=prepared.planned,
        commit=inputs.commit,
        environment_inputs=inputs.environment,
        affected=affected.info,
        served_agent=execution.served_agent,
    )
    doc = build_document(
        settings=settings,
        planned=prepared.planned,
        files=with_digests(prepared.files, prepared.planned),
        execution=execution,
        run=info,
        confirmations=confirming.picked if confirming else None,
        prices=prices,
        judge_usage=judge_totals(services.judge.counters.model_calls, prices) if services.judge else None,
        carried=affected.carried,
        carried_apps=affected.apps,
        record_inputs=inputs.recorded,
        early=early,
    )
    doc.judge = finish_judge(services, console)
    doc.calibrations = judges
    report_unpriced(doc, console, local=execution.local_models)
    return doc


def _calibrated_judges(settings: Settings, console: Console, *, prepared: Prepared) -> list[JudgeCalibration]:
    """With labels, each judge metric in use calibrated first, and those that have not earned their gate marked
    so (``calibrate.gate_judges``); without labels nothing (and nothing changes)."""
    labels, bad = loaded_labels(settings, console)
    if not labels and not bad:
        return []
    document = calibrate.calibrated_judges(settings, console, planned=prepared.planned, labels=labels)
    calibrate.gate_judges(prepared.planned, document, settings)
    for made in document.metrics:
        console.line(judge_line(made))
    for note in document.notes:
        console.line(f"note {note}")
    return document.metrics


def _comparing(found: Baseline | NoBaseline, settings: Settings) -> Compared:
    """The first runs' document against the baseline, looked up before the runs (``--only-affected`` carries the
    cases a change cannot touch from it): ``--confirm-failures`` runs the cases that regressed again."""
    return functools.partial(_compared, found=found, settings=settings)


def _compared(doc: ResultsDocument, *, found: Baseline | NoBaseline, settings: Settings) -> Comparison | None:
    return comparison_with(doc, found, settings=settings) if isinstance(found, Baseline) else None


def _exit_code(code: int, execution: Execution, console: Console) -> int:
    """The verdict's exit code, or 128 + the signal that stopped the runs."""
    if execution.stopped_by:
        console.line(f"Interrupted: the reports hold the {execution.finished_runs()} finished runs")
        return 128 + execution.stopped_by
    return code

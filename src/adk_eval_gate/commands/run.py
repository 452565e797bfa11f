"""``adk-eval-gate run``: discover -> load -> plan -> infer -> score -> aggregate -> compare -> report ->
publish -> gate. Each stage is a module; this one only wires them together and owns the I/O edges."""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

from adk_eval_gate import verdict
from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.aggregate.pricing import Prices, load_prices
from adk_eval_gate.aggregate.run_info import run_info, with_digests
from adk_eval_gate.aggregate.run_results import DocumentParts, EarlyRecords, RunAdditions, build_document
from adk_eval_gate.aggregate.usage import judge_totals, report_unpriced
from adk_eval_gate.commands import calibrate, sequential_run
from adk_eval_gate.commands.calibrate import Calibrated, loaded_labels
from adk_eval_gate.compare.changes import comparison_with
from adk_eval_gate.compare.earlier_attempt import Continuation, FindEarlierAttempt, NoEarlierAttempt
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.finish.ending import Ending, finish_run
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.inputs.plan import WorkItem, plan, selection_digest
from adk_eval_gate.inputs.prepare import Prepared, prepare, without_unimportable_functions
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.model.results import Comparison, ResultsDocument
from adk_eval_gate.report.judge_lines import judge_line
from adk_eval_gate.runners.execute import Execution
from adk_eval_gate.runners.factory import make_runner
from adk_eval_gate.runners.preflight import function_problems
from adk_eval_gate.runners.run_items import CommandHooks, run_items
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
    find_earlier: FindEarlierAttempt = NoEarlierAttempt,
    starter: Starter | None = None,
) -> int:
    """``github``: the GitHub client (None: no token or repository); ``find_baseline``: the baseline lookup
    (``github.baseline.for_settings`` with that client); ``find_earlier``: the lookup of an earlier attempt's
    results, continued by a re-run with ``--sequential`` (``github.rerun.find``); ``starter``: the adk
    runner's worker starter, started before this module was imported (``cli``)."""
    try:
        return _run(settings, console, github=github, baseline=find_baseline, earlier=find_earlier, starter=starter)
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
    earlier: FindEarlierAttempt,
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
    runs = _schedules(settings, console, prepared=prepared, inputs=inputs, items=items, found=found, earlier=earlier)
    early = None if runs.confirming or runs.waves else EarlyRecords.of(settings, items=runs.items, prices=prices)
    execution = asyncio.run(
        run_items(
            runs.items,
            settings=settings,
            runner=runner,
            services=services,
            console=console,
            hooks=_hooks(settings, prepared=prepared, waves=runs.waves, confirming=runs.confirming, early=early),
            execution=early.execution if early else None,
        )
    )
    built = _built(
        functools.partial(
            _document,
            settings,
            console,
            prepared=prepared,
            items=runs.waves.started_items() if runs.waves else runs.items,
            execution=execution,
            started=started,
            inputs=inputs,
            affected=runs.affected,
            confirming=runs.confirming,
            early=early,
            prices=prices,
            services=services,
            judges=judges,
        ),
        runs.continuing,
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


def _hooks(
    settings: Settings,
    *,
    prepared: Prepared,
    waves: SequentialSchedule | None,
    confirming: Confirming | None,
    early: EarlyRecords | None,
) -> CommandHooks:
    """What ``run`` adds to the runs: the records kept as they finish, the failures confirmed, the inputs custom
    metrics read (a runner that observes inputs), the waves of ``--sequential``."""
    return CommandHooks(
        outcome=aggregate.run_outcome,
        finished=early.finished if early else None,
        confirm=confirming.more if confirming else None,
        reads=MetricReads(prepared.root) if settings.runner_kind.observes_inputs else None,
        waves=waves,
    )


def _built(build: Callable[[], ResultsDocument], continuing: Continuation | None) -> ResultsDocument | Exception:
    """The run's document (a re-run's with the earlier attempt's runs of the cases it continued), or the internal
    error building it raised: ``finish_run``, the last resort, still writes every report with it, as an error of
    the whole run."""
    try:
        return sequential_run.continued_document(build, continuing)()
    except Exception as error:
        return error


@dataclass(frozen=True)
class _Scheduled:
    affected: Affected  # what --only-affected chose to run
    items: list[WorkItem]  # the runs planned (a re-run: none for a case proven before, the others' numbers after)
    continuing: Continuation | None  # the earlier attempt's evidence a re-run continues
    waves: SequentialSchedule | None
    confirming: Confirming | None


def _schedules(
    settings: Settings,
    console: Console,
    *,
    prepared: Prepared,
    inputs: Inputs,
    items: list[WorkItem],
    found: Baseline | NoBaseline,
    earlier: FindEarlierAttempt,
) -> _Scheduled:
    """The runs a change can touch (``--only-affected``) and how they are scheduled beyond the first: in waves
    (``--sequential``, continuing the evidence of an earlier attempt of a re-run; confirming a failure is then the
    sequential test itself), or with the failures confirmed (``--confirm-failures``); when neither applies, ``run``
    keeps the records as the runs finish."""
    affected = choose(settings, inputs=inputs, items=items, found=found, console=console)
    continuing, items = sequential_run.continued(settings, console, find=earlier, prepared=prepared, affected=affected)
    waves = sequential_run.schedule(settings, items=items, found=found, console=console, continuation=continuing)
    compared = _comparing(found, settings)
    confirming = (
        None if waves else confirm.confirming(settings, console, prepared=prepared, items=items, compared=compared)
    )
    return _Scheduled(affected, items, continuing, waves, confirming)


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
    judges: Calibrated | None,
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
        execution=execution,
        parts=DocumentParts(
            files=with_digests(prepared.files, prepared.planned),
            run=info,
            judge_usage=judge_totals(services.judge.counters.model_calls, prices) if services.judge else None,
        ),
        additions=RunAdditions(
            confirmations=confirming.picked if confirming else None,
            carried=affected.carried,
            carried_apps=affected.apps,
            record_inputs=inputs.recorded,
            early=early,
        ),
        prices=prices,
    )
    doc.judge = finish_judge(services, console)
    if judges is not None:  # the calibration's calls apart from the evaluation's
        doc.calibrations, doc.calibration_judge = judges.document.metrics, judges.spend
        if doc.usage is not None:
            doc.usage.calibration = judge_totals(judges.calls, prices)
    report_unpriced(doc, console, local=execution.local_models)
    return doc


def _calibrated_judges(settings: Settings, console: Console, *, prepared: Prepared) -> Calibrated | None:
    """With labels, each judge metric in use calibrated first, and those that have not earned their gate marked
    so (``calibrate.gate_judges``); without labels nothing (and nothing changes)."""
    labels, bad = loaded_labels(settings, console)
    if not labels and not bad:
        return None
    calibrated = calibrate.calibrated_judges(settings, console, planned=prepared.planned, labels=labels)
    calibrate.gate_judges(prepared.planned, calibrated.document, settings)
    for made in calibrated.document.metrics:
        console.line(judge_line(made))
    for note in calibrated.document.notes:
        console.line(f"note {note}")
    return calibrated


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

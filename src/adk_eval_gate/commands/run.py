"""``adk-eval-gate run``: discover -> load -> plan -> infer -> score -> aggregate -> compare -> report ->
publish -> gate. Each stage is a module; this one only wires them together and owns the I/O edges."""

from __future__ import annotations

import asyncio
import datetime as dt
import signal
import time
from collections import Counter
from dataclasses import dataclass, field

from adk_eval_gate import __version__, verdict
from adk_eval_gate.aggregate import cases as aggregate
from adk_eval_gate.aggregate.pricing import Prices, load_prices
from adk_eval_gate.aggregate.usage import judge_totals, report_unpriced
from adk_eval_gate.commands import gate
from adk_eval_gate.commands.finish import Ending, finish_run, github_session
from adk_eval_gate.commands.only_affected import Affected, Inputs, choose
from adk_eval_gate.compare import confirm, likeforlike
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.github.baseline import Baseline, NoBaseline
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem, case_id, plan, selection_digest
from adk_eval_gate.inputs.prepare import Prepared, prepare
from adk_eval_gate.metrics.base import MetricServices
from adk_eval_gate.model.compact import AppTable
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.model.results import CaseResult, Confirmation, FileResult, ResultsDocument, RunInfo
from adk_eval_gate.model.results_usage import UsageTotals
from adk_eval_gate.runners import runlog
from adk_eval_gate.runners.base import Runner
from adk_eval_gate.runners.execute import Execution, FinishedRun, MetricBuilder, StopOnSignals, execute
from adk_eval_gate.runners.factory import make_runner
from adk_eval_gate.runners.progress import Progress
from adk_eval_gate.runners.services import build_services, finish_judge
from adk_eval_gate.runners.worker_starter import Starter
from adk_eval_gate.support import collector
from adk_eval_gate.support.console import Console, relayed_output
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict.rules import PASS_RULES


def case_record(
    settings: Settings,
    planned_file: PlannedFile,
    case: EvalCase,
    index: int,
    finished: list[FinishedRun],
    *,
    confirmation: Confirmation | None = None,
    prices: Prices | None = None,
    apps: AppTable | None = None,
) -> CaseResult:
    """The case's record, decided on its finished runs (the same whether made as its last run finished or after
    every run)."""
    loaded = planned_file.loaded
    return aggregate.case_result(
        display=loaded.display,
        eval_set_id=loaded.eval_set.eval_set_id,
        case=case,
        index=index,
        line=loaded.case_lines.get(case.eval_id),
        metrics=planned_file.config.metrics,
        finished=finished,
        pass_rule=settings.pass_rule,
        confirmation=confirmation,
        prices=prices,
        budgets=planned_file.config.config.budgets,
        apps=apps,
    )


def observed(finished: list[FinishedRun]) -> list[list[str] | None]:
    """What the case's agent used in each run (``runners.observe``), for its inputs."""
    return [run.inference.observed for run in finished]


@dataclass
class EarlyRecords:
    """Each case's record made as soon as its last run finishes, while the other runs go on, instead of all of
    them after the last run: the main process mostly waits on its workers then, and the reports start sooner. The
    case's runs leave the execution as its record is made. Not with ``--confirm-failures``: a case may run again
    once every first run is done."""

    settings: Settings
    prices: Prices
    runs_left: dict[str, int]  # case id -> its runs not finished yet
    execution: Execution = field(default_factory=Execution)
    made: dict[str, tuple[CaseResult, list[list[str] | None]]] = field(default_factory=dict)

    @classmethod
    def of(cls, settings: Settings, *, items: list[WorkItem], prices: Prices) -> EarlyRecords:
        return cls(settings, prices, runs_left=dict(Counter(item.case_id for item in items)))

    def finished(self, item: WorkItem, run: FinishedRun) -> None:
        self.runs_left[item.case_id] -= 1
        if self.runs_left[item.case_id] > 0:
            return
        runs = self.execution.finished[item.case_id]
        record = case_record(
            self.settings, item.file, item.case, item.case_index, runs, prices=self.prices, apps=self.execution.apps
        )
        self.execution.release(item.case_id)  # once the record is made: a record that fails loses no run
        self.made[item.case_id] = (record, observed(runs))


def case_results(
    *,
    settings: Settings,
    planned: list[PlannedFile],
    execution: Execution,
    confirmations: dict[str, Confirmation] | None = None,
    prices: Prices | None = None,
    carried: dict[str, CaseResult] | None = None,
    inputs: Inputs | None = None,
    release: bool = False,
    early: EarlyRecords | None = None,
) -> list[CaseResult]:
    """Every case that ran, decided on its runs (with its ``inputs`` when given), and every case ``carried`` from
    the baseline (``--only-affected``), in file and case order, with ``--quarantine`` applied.

    ``early``: the records already made as the cases' last runs finished (taken from it). ``release``: each
    case's finished runs leave ``execution`` once its record is made (what they held beyond the record, their
    scores' objects, is freed as the cases are made, not after all of them)."""
    made = early.made if early else {}
    cases: list[CaseResult] = []
    for planned_file in planned:
        loaded = planned_file.loaded
        for index, case in enumerate(loaded.eval_set.eval_cases):
            case_key = case_id(loaded.display, case.eval_id)
            if carried and case_key in carried:
                cases.append(carried[case_key])
            if case_key in made:
                result, used = made.pop(case_key)
            elif case_key in execution.finished:
                finished = execution.release(case_key) if release else execution.finished[case_key]
                confirmation = (confirmations or {}).get(case_key)
                result = case_record(
                    settings,
                    planned_file,
                    case,
                    index,
                    finished,
                    confirmation=confirmation,
                    prices=prices,
                    apps=execution.apps,
                )
                used = observed(finished)
            else:
                continue
            cases.append(inputs.recorded(result, used) if inputs else result)
    return verdict.quarantine(cases, settings.quarantine)


def build_document(
    *,
    settings: Settings,
    planned: list[PlannedFile],
    files: list[FileResult],
    execution: Execution,
    unfinished: list[str],
    started_at: str,
    duration: float,
    confirmations: dict[str, Confirmation] | None = None,
    prices: Prices | None = None,
    judge_usage: UsageTotals | None = None,
    affected: Affected | None = None,
    inputs: Inputs | None = None,
    early: EarlyRecords | None = None,
) -> ResultsDocument:
    prices = prices or Prices.shipped()
    cases = case_results(
        settings=settings,
        planned=planned,
        execution=execution,
        confirmations=confirmations,
        prices=prices,
        carried=affected.carried if affected else None,
        inputs=inputs,
        release=True,
        early=early,
    )
    info = run_info(
        settings,
        started_at=started_at,
        duration=duration,
        interrupted=execution.interrupted,
        unfinished=unfinished,
        selection=selection_digest(planned, num_runs=settings.num_runs),
        planned=planned,
        inputs=inputs,
    )
    return aggregate.document(
        cases,
        with_digests(files, planned),
        info.model_copy(update={"affected": affected.info}) if affected else info,
        judge_usage=judge_usage,
        prices=prices.source(),
        app_details={**(affected.apps if affected else {}), **execution.apps.table},
    )


def with_digests(files: list[FileResult], planned: list[PlannedFile]) -> list[FileResult]:
    """The file results with the digests of their criteria (``likeforlike``)."""
    digests = {p.loaded.display: likeforlike.criteria_digests(p.config.metrics) for p in planned}
    return [
        file.model_copy(update={"criteria_digest": digests[file.path][0], "metric_digests": digests[file.path][1]})
        if file.path in digests
        else file
        for file in files
    ]


def run_info(
    settings: Settings,
    *,
    started_at: str | None,
    duration: float | None = None,
    interrupted: bool = False,
    unfinished: list[str] | None = None,
    selection: str | None = None,
    planned: list[PlannedFile] | None = None,
    inputs: Inputs | None = None,
) -> RunInfo:
    metrics = [metric for planned_file in planned or [] for metric in planned_file.config.metrics]
    info = RunInfo(
        tool_version=__version__,
        runner=settings.runner,
        num_runs=settings.num_runs,
        shard=str(settings.shard) if settings.shard else None,
        selection=selection,
        gate_id=settings.gate_id,
        confirm_failures=settings.confirm_failures,
        adk_version=likeforlike.adk_version() if settings.runner == "adk" and planned else None,
        judges=likeforlike.judge_settings(metrics),
        started_at=started_at,
        duration_seconds=round(duration, 3) if duration is not None else None,
        repository=settings.github.repository,
        sha=inputs.commit if inputs else settings.github.sha,
        ref=settings.github.ref,
        run_url=settings.github.run_url,
        pull_request=settings.github.pull_request_number,
        interrupted=interrupted,
        unfinished=unfinished or [],
        environment_inputs=inputs.environment if inputs else [],
    )
    return gate.policy(settings).record(info)


@dataclass
class Confirming:
    """``--confirm-failures``: once the first runs are done, which cases run again, and why (for the reports)."""

    settings: Settings
    planned: list[PlannedFile]
    files: list[FileResult]
    items: list[WorkItem]
    found: Baseline | NoBaseline
    picked: dict[str, Confirmation] = field(default_factory=dict)

    def more(self, execution: Execution, progress: Progress) -> list[WorkItem]:
        cases = case_results(settings=self.settings, planned=self.planned, execution=execution)
        comparison = None
        if isinstance(self.found, Baseline):
            provisional = aggregate.document(cases, self.files, run_info(self.settings, started_at=None))
            comparison = gate.comparison_with(provisional, self.found, settings=self.settings)
        self.picked = confirm.chosen(cases, comparison, strict=self.settings.strict_comparison)
        more = confirm.rerun_items(self.items, self.picked, extra_runs=self.settings.confirm_failures)
        if more:
            reasons = sorted({picked.reason for picked in self.picked.values()})
            progress.extend(
                len(more),
                f"Confirming {plural(len(self.picked), 'case')} that {' or '.join(reasons)}: "
                f"{plural(self.settings.confirm_failures, 'more run')} each",
            )
        return more


async def run_items(
    items: list[WorkItem],
    *,
    settings: Settings,
    runner: Runner,
    services: MetricServices,
    console: Console,
    confirming: Confirming | None = None,
    early: EarlyRecords | None = None,
) -> Execution:
    """Runs the items with progress output; SIGINT/SIGTERM stop it cleanly (``Execution.interrupted``).

    ``early``: makes each case's record as its last run finishes (its execution is the one returned)."""
    execution = early.execution if early else Execution()
    progress = Progress.for_console(console, total=len(items), env=settings.environment)

    def finished(item: WorkItem, run: FinishedRun) -> None:
        progress.finished(item, run)
        if early is not None:
            early.finished(item, run)

    def ready() -> None:
        collector.settle_heap()  # the agents, models and metrics set up so far live until the end
        progress.ready()

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
            on_finished=finished,
            on_ready=ready,
            confirm=(lambda done: confirming.more(done, progress)) if confirming else None,
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


def _confirming(
    settings: Settings, console: Console, *, prepared: Prepared, items: list[WorkItem], found: Baseline | NoBaseline
) -> Confirming | None:
    if not settings.confirm_failures:
        return None
    if settings.runner == "recorded":
        console.warning(
            f"{settings.option_name('confirm_failures')} is ignored with the recorded runner: it replays what was "
            "recorded, so a case cannot run again"
        )
        return None
    return Confirming(settings, prepared.planned, prepared.files, items, found)


def run(settings: Settings, console: Console, *, starter: Starter | None = None) -> int:
    """``starter``: the adk runner's worker starter, started before this module was imported (``cli``)."""
    try:
        return _run(settings, console, starter=starter)
    finally:
        if starter is not None:
            starter.close()  # the runner ended it, unless it never got to run a case


def _prepared(settings: Settings, console: Console) -> Prepared:
    with relayed_output(console):  # what Vertex-style metric modules print when loading a config imports them
        prepared = prepare(settings, console)
    for file in prepared.files:
        if not file.error:
            console.line(f"{file.path}: {plural(file.cases, 'case')}, criteria from {file.config}")
    for unmatched in verdict.unmatched_quarantine(settings.quarantine, prepared.planned, prepared.files):
        console.warning(f"{settings.option_name('quarantine')} {unmatched}")
    if settings.num_runs > 1:
        console.line(f"{settings.num_runs} runs per case; a case passes when {PASS_RULES[settings.pass_rule]}")
    return prepared


def _run(settings: Settings, console: Console, *, starter: Starter | None) -> int:
    started = time.monotonic()
    started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    prepared = _prepared(settings, console)
    prices = load_prices(settings.prices, field=settings.option_name("prices"))
    runner = make_runner(settings, root=prepared.root, console=console, planned=prepared.planned, starter=starter)
    items = plan(prepared.planned, num_runs=settings.num_runs, shard=settings.shard, run_count=runner.run_count)
    services = build_services(settings, prepared.planned, console)
    inputs = Inputs.of(settings, planned=prepared.planned, root=prepared.root, prices=prices)
    with github_session(settings, console) as client:
        # before the runs: --confirm-failures re-runs regressions, --only-affected carries the others
        found = gate.find_baseline(settings, client, console=console)
        affected = choose(settings, inputs=inputs, items=items, found=found, console=console)
        items = affected.items
        confirming = _confirming(settings, console, prepared=prepared, items=items, found=found)
        early = None if confirming else EarlyRecords.of(settings, items=items, prices=prices)
        execution = asyncio.run(
            run_items(
                items,
                settings=settings,
                runner=runner,
                services=services,
                console=console,
                confirming=confirming,
                early=early,
            )
        )

        def built() -> ResultsDocument:
            doc = build_document(
                settings=settings,
                planned=prepared.planned,
                files=prepared.files,
                execution=execution,
                unfinished=execution.unfinished(items),
                started_at=started_at,
                duration=time.monotonic() - started,
                confirmations=confirming.picked if confirming else None,
                prices=prices,
                judge_usage=judge_totals(services.judge.counters.model_calls, prices) if services.judge else None,
                affected=affected,
                inputs=inputs,
                early=early,
            )
            doc.judge = finish_judge(services, console)
            report_unpriced(doc, console, local=execution.local_models)
            return doc

        code = finish_run(
            built,
            settings=settings,
            console=console,
            client=client,
            ending=Ending(pull_number=settings.github.pull_request_number),
            found=found,
            run=run_info(settings, started_at=started_at, inputs=inputs),
        )
    return _exit_code(code, execution, console)


def _exit_code(code: int, execution: Execution, console: Console) -> int:
    """The verdict's exit code, or 128 + the signal that stopped the runs."""
    if execution.stopped_by:
        console.line(f"Interrupted: the reports hold the {execution.finished_runs()} finished runs")
        return 128 + execution.stopped_by
    return code

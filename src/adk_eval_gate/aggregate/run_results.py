"""A run's results: each case's record decided on its finished runs (as soon as its last run finishes, or once every
run is done), in file and case order with the cases carried from the baseline, and the document they make.

Used by ``run``, by ``--confirm-failures`` (the first runs' cases, to choose what runs again) and by the pytest
plugin (one file's cases). What a case depends on is recorded by the caller's ``record_inputs``
(``selection.only_affected.Inputs.recorded``), and the run's settings come in as ``RunInfo``
(``aggregate.run_info``): both belong to later stages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adk_eval_gate import verdict
from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.aggregate.pricing import Prices
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem, case_id
from adk_eval_gate.model.compact import AppTable
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.model.results import CaseResult, Confirmation, FileResult, ResultsDocument, RunInfo, UsageTotals
from adk_eval_gate.runners.execute import Execution, FinishedRun
from adk_eval_gate.verdict import ScoreRule

# A case's record with what it depends on, given what its agent used in each of its runs.
InputsRecorder = Callable[[CaseResult, list[list[str] | None]], CaseResult]


def case_record(  # parameters: the planned case, its runs and the run's rules, each keyword-only
    settings: Settings,
    planned_file: PlannedFile,
    case: EvalCase,
    index: int,
    finished: list[FinishedRun],
    *,
    confirmation: Confirmation | None = None,
    prices: Prices | None = None,
    apps: AppTable | None = None,
    score_rule: ScoreRule = "adk_eval",
) -> CaseResult:
    """The case's record, decided on its finished runs (the same whether made as its last run finished or after
    every run); ``score_rule``: whose rules score its metrics over its runs (``verdict.aggregation``)."""
    loaded = planned_file.loaded
    rules = aggregate.CaseRules(
        pass_rule=settings.pass_rule,
        score_rule=score_rule,
        prices=prices,
        budgets=planned_file.config.config.budgets,
        sequential=verdict.Policy.of(settings).sequential,
    )
    return aggregate.case_result(
        place=aggregate.CasePlace(
            loaded.display, loaded.eval_set.eval_set_id, index=index, line=loaded.case_lines.get(case.eval_id)
        ),
        case=case,
        metrics=planned_file.config.metrics,
        finished=finished,
        rules=rules,
        confirmation=confirmation,
        apps=apps,
    )


def observed(finished: list[FinishedRun]) -> list[list[str] | None]:
    """What the case's agent used in each run (``runners.workers.observe``), for its inputs."""
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


@dataclass(frozen=True)
class RunAdditions:
    """What the run adds to its cases beyond their runs: ``confirmations``, ``--confirm-failures``' picks;
    ``carried``, the cases ``--only-affected`` carries from the baseline, with ``carried_apps``, the base run's app
    details they name; ``record_inputs``, what each case depends on; ``early``, the records already made as the
    cases' last runs finished (taken from it)."""

    confirmations: dict[str, Confirmation] | None = None
    carried: dict[str, CaseResult] | None = None
    carried_apps: dict[str, dict[str, Any]] | None = None
    record_inputs: InputsRecorder | None = None
    early: EarlyRecords | None = None


@dataclass(frozen=True)
class DocumentParts:
    """The parts of results.json the run made besides its cases: its files, its settings (``RunInfo``) and the
    judge's usage."""

    files: list[FileResult]
    run: RunInfo
    judge_usage: UsageTotals | None = None


def case_results(
    *,
    settings: Settings,
    planned: list[PlannedFile],
    execution: Execution,
    additions: RunAdditions | None = None,
    prices: Prices | None = None,
    release: bool = False,
    score_rule: ScoreRule = "adk_eval",
) -> list[CaseResult]:
    """Every case that ran, decided on its runs (with its inputs when ``additions.record_inputs`` is given), and
    every case ``additions.carried`` from the baseline (``--only-affected``), in file and case order, with
    ``--quarantine`` applied.

    ``release``: each case's finished runs leave ``execution`` once its record is made (what they held beyond the
    record, their scores' objects, is freed as the cases are made, not after all of them). ``score_rule``: whose
    rules score the metrics over a case's runs (``verdict.aggregation``: ``adk eval``'s, or AgentEvaluator's for
    its drop-in)."""
    additions = additions or RunAdditions()
    carried, record_inputs = additions.carried, additions.record_inputs
    made = additions.early.made if additions.early else {}
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
                confirmation = (additions.confirmations or {}).get(case_key)
                result = case_record(
                    settings,
                    planned_file,
                    case,
                    index,
                    finished,
                    confirmation=confirmation,
                    prices=prices,
                    apps=execution.apps,
                    score_rule=score_rule,
                )
                used = observed(finished)
            else:
                continue
            cases.append(record_inputs(result, used) if record_inputs else result)
    return verdict.quarantine(cases, settings.quarantine)


def build_document(
    *,
    settings: Settings,
    planned: list[PlannedFile],
    execution: Execution,
    parts: DocumentParts,
    additions: RunAdditions | None = None,
    prices: Prices | None = None,
) -> ResultsDocument:
    """The run's document: its cases (``case_results``, each case's runs released as its record is made) and
    the other ``parts`` the run made."""
    prices = prices or Prices.shipped()
    additions = additions or RunAdditions()
    cases = case_results(
        settings=settings, planned=planned, execution=execution, additions=additions, prices=prices, release=True
    )
    return aggregate.document(
        cases,
        parts.files,
        parts.run,
        judge_usage=parts.judge_usage,
        prices=prices.source(),
        app_details={**(additions.carried_apps or {}), **execution.apps.table},
    )

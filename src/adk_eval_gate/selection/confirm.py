"""Confirm before failing (``--confirm-failures N``): once the first runs are done, the cases that failed or
regressed against the baseline run N more times in fresh sessions, and their verdict is decided on all their runs
(with ``--pass-rule``). A case that passes on a re-run shows as flaky instead of failing the gate by chance, and a
failure that every re-run repeats is confirmed.

Which cases (``chosen``: pure), their work items (``rerun_items``), and ``Confirming``, which ``runners.run_items``
asks for them once the first runs are done: they run with the first runs' runner and limits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.aggregate.run_info import run_info
from adk_eval_gate.aggregate.run_results import case_results
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.inputs.prepare import Prepared
from adk_eval_gate.model.results import CaseResult, CaseStatus, Comparison, Confirmation, FileResult, ResultsDocument
from adk_eval_gate.runners.execute import Execution
from adk_eval_gate.runners.progress import Progress
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict import drops


def chosen(cases: list[CaseResult], comparison: Comparison | None, *, strict: bool = False) -> dict[str, Confirmation]:
    """The cases to run again, by id: those that failed (a threshold, not an error or a metric that could not be
    evaluated: re-running changes neither), then those whose drop against the baseline counts as a regression
    (``strict``: ``--strict-comparison``). Quarantined cases never fail the gate, so they are not re-run."""
    counted = drops(comparison, strict=strict)[0] if comparison else []
    regressed = {change.case_id for change in counted if change.significance != "noise"}
    picked: dict[str, Confirmation] = {}
    for case in cases:
        if case.quarantined:
            continue
        if case.status == CaseStatus.FAILED:
            picked[case.id] = Confirmation(reason="failed", first_status=case.status, extra_runs=0)
        elif case.id in regressed and case.status == CaseStatus.PASSED:
            picked[case.id] = Confirmation(reason="regressed", first_status=case.status, extra_runs=0)
    return picked


def rerun_items(items: list[WorkItem], picked: dict[str, Confirmation], *, extra_runs: int) -> list[WorkItem]:
    """``extra_runs`` more runs of each picked case, numbered after its first runs; records the count in ``picked``."""
    last: dict[str, WorkItem] = {}
    for item in items:
        if item.case_id in picked and item.case.eval_id in item.file.loaded.recorded:
            del picked[item.case_id]  # a dataset row's recorded answer: a re-run would replay it
        if item.case_id in picked and (item.case_id not in last or item.run > last[item.case_id].run):
            last[item.case_id] = item
    more: list[WorkItem] = []
    for case_id, item in last.items():
        more.extend(
            WorkItem(item.file, item.case, item.case_index, item.run + n, confirmation=True)
            for n in range(1, extra_runs + 1)
        )
        picked[case_id] = picked[case_id].model_copy(update={"extra_runs": extra_runs})
    return more


Compared = Callable[[ResultsDocument], Comparison | None]
"""The first runs' document against the baseline (None: no baseline), as the command compares it."""


@dataclass
class Confirming:
    """``--confirm-failures``: once the first runs are done, which cases run again, and why (for the reports)."""

    settings: Settings
    planned: list[PlannedFile]
    files: list[FileResult]
    items: list[WorkItem]
    compared: Compared
    picked: dict[str, Confirmation] = field(default_factory=dict)

    def more(self, execution: Execution, progress: Progress) -> list[WorkItem]:
        cases = case_results(settings=self.settings, planned=self.planned, execution=execution)
        provisional = aggregate.document(cases, self.files, run_info(self.settings, started_at=None))
        comparison = self.compared(provisional)
        self.picked = chosen(cases, comparison, strict=self.settings.strict_comparison)
        more = rerun_items(self.items, self.picked, extra_runs=self.settings.confirm_failures)
        if more:
            reasons = sorted({picked.reason for picked in self.picked.values()})
            progress.extend(
                len(more),
                f"Confirming {plural(len(self.picked), 'case')} that {' or '.join(reasons)}: "
                f"{plural(self.settings.confirm_failures, 'more run')} each",
            )
        return more


def confirming(
    settings: Settings, console: Console, *, prepared: Prepared, items: list[WorkItem], compared: Compared
) -> Confirming | None:
    """What ``--confirm-failures`` runs again, when it is given and the runner can run a case again."""
    if not settings.confirm_failures:
        return None
    if not settings.runner_kind.can_rerun:
        console.warning(
            f"{settings.option_name('confirm_failures')} is ignored with the {settings.runner} runner: it replays "
            "what was recorded, so a case cannot run again"
        )
        return None
    return Confirming(settings, prepared.planned, prepared.files, items, compared)

"""Confirm before failing (``--confirm-failures N``): once the first runs are done, the cases that failed or
regressed against the baseline run N more times in fresh sessions, and their verdict is decided on all their runs
(with ``--pass-rule``). A case that passes on a re-run shows as flaky instead of failing the gate by chance, and a
failure that every re-run repeats is confirmed.

Pure: which cases, and their work items. ``pipeline`` runs them with the first runs' runner and limits.
"""

from __future__ import annotations

from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.model.results import CaseResult, CaseStatus, Comparison, Confirmation
from adk_eval_gate.verdict.regressions import drops


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

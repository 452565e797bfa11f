"""Annotations: an error on the ``eval_id`` line of each case that fails the gate, a warning on each regression.

``Console`` writes at most 50 annotations per run (configuration errors from ``prepare`` come first) and counts
the rest; outside GitHub Actions the console's list of failing cases says the same, so nothing is written.
"""

from __future__ import annotations

from adk_eval_gate.console import Console
from adk_eval_gate.report import views
from adk_eval_gate.results import CaseResult, ResultsDocument


def _fails_gate(case: CaseResult, doc: ResultsDocument) -> bool:
    if case.quarantined:
        return False
    return case.status in {"failed", "error"} or (case.status == "not_evaluated" and not doc.run.allow_not_evaluated)


def annotate(console: Console, doc: ResultsDocument) -> None:
    if not console.in_actions:
        return
    for case in doc.cases:
        if _fails_gate(case, doc):
            reasons = views.case_reasons(case)
            detail = case.error or "; ".join(reasons) or case.status
            console.error(f"{case.label}: {detail}", file=case.file, line=case.line)
    if doc.comparison is None:
        return
    by_id = {case.id: case for case in doc.cases}
    for change in doc.comparison.changes:
        regressed = by_id.get(change.case_id)
        if change.kind != "regressed" or change.significance == "noise" or regressed is None:
            continue
        base = "n/a" if change.base is None else f"{change.base:.4g}"
        head = "n/a" if change.head is None else f"{change.head:.4g}"
        console.warning(
            f"{regressed.label}: {change.metric} regressed from {base} to {head}",
            file=regressed.file,
            line=regressed.line,
        )

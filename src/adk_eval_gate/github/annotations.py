"""Annotations: an error on the ``eval_id`` line of each case that fails the gate (as the verdict marked it, with
its findings), a warning on each regression.

``Console`` writes at most 50 annotations per run (configuration errors from ``prepare`` come first) and counts
the rest; outside GitHub Actions the console's list of failing cases says the same, so nothing is written.
"""

from __future__ import annotations

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import views
from adk_eval_gate.report.headline import change_counts
from adk_eval_gate.support.console import Console


def annotate(console: Console, doc: ResultsDocument) -> None:
    if not console.in_actions:
        return
    for case in doc.cases:
        if case.fails_gate:
            reasons = views.case_reasons(case)
            detail = case.error or "; ".join(reasons) or case.status
            console.error(f"{case.label}: {detail}", file=case.file, line=case.line)
    counts = change_counts(doc)  # the regressions the comment counts: beyond noise, comparable, not quarantined
    by_id = {case.id: case for case in doc.cases}
    for change in counts.regressions if counts else []:
        regressed = by_id.get(change.case_id)
        if regressed is None:
            continue
        base = "n/a" if change.base is None else f"{change.base:.4g}"
        head = "n/a" if change.head is None else f"{change.head:.4g}"
        console.warning(
            f"{regressed.label}: {change.metric} regressed from {base} to {head}",
            file=regressed.file,
            line=regressed.line,
        )

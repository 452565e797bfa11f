"""The top of the comment and of the summary: the verdict with every count that is not zero (an error verdict
still says how many cases failed), and one line against the baseline whose counts are exactly those of the
sections below (``ChangeCounts``: one place decides what is a regression, within noise or not comparable).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adk_eval_gate.compare.noise import MIN_HISTORY
from adk_eval_gate.model.results import CaseChange, CaseStatus, Effect, MetricChange, ResultsDocument
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report.sections import ICON, RUN_URL
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict import drops

_VERDICT = {"passed": "passed", "failed": "failed", "error": "could not evaluate everything"}


@dataclass(frozen=True)
class ChangeCounts:
    """The changes against the baseline as the reports group them; quarantined cases are left out."""

    regressions: list[MetricChange] = field(default_factory=list)  # counted: significant, or a single run
    noisy: list[MetricChange] = field(default_factory=list)  # drops within the noise
    incomparable: list[MetricChange] = field(default_factory=list)  # drops of metrics scored differently
    improvements: list[MetricChange] = field(default_factory=list)
    flips: list[CaseChange] = field(default_factory=list)  # passed on the base branch, not now
    new: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def drops(self) -> int:
        return len(self.regressions) + len(self.noisy) + len(self.incomparable)


def change_counts(doc: ResultsDocument) -> ChangeCounts | None:
    comparison = doc.comparison
    if comparison is None:
        return None
    quarantined = {case.id for case in doc.cases if case.quarantined}
    counted, incomparable = drops(comparison, quarantined=quarantined, strict=doc.run.strict_comparison)
    return ChangeCounts(
        regressions=[c for c in counted if c.significance != "noise"],
        noisy=[c for c in counted if c.significance == "noise"],
        incomparable=incomparable,
        improvements=[c for c in comparison.changes if c.kind == "improved"],
        flips=[
            c
            for c in comparison.cases
            if c.kind == "status" and c.base_status == CaseStatus.PASSED and c.case_id not in quarantined
        ],
        new=[c.case_id for c in comparison.cases if c.kind == "new"],
        removed=[c.case_id for c in comparison.cases if c.kind == "removed"],
    )


def drop_words(counts: ChangeCounts) -> list[str]:
    """``2 regressions · 1 within noise · 1 not comparable``: the comparison line and the section's heading."""
    words = [plural(len(counts.regressions), "regression")]
    if counts.noisy:
        words.append(f"{len(counts.noisy)} within noise")
    if counts.incomparable:
        words.append(f"{len(counts.incomparable)} not comparable")
    return words


def comparison_words(counts: ChangeCounts) -> list[str]:
    return [
        *drop_words(counts),
        plural(len(counts.improvements), "improvement"),
        f"{len(counts.new)} new",
        f"{len(counts.removed)} removed",
    ]


def heading(doc: ResultsDocument, *, gate_id: str | None = None) -> str:
    gate = f" {md.code(gate_id)}" if gate_id and gate_id != "default" else ""
    return f"### {ICON.get(doc.status, '❌')} ADK eval gate{gate} {_VERDICT[doc.status]}"


def counts_line(doc: ResultsDocument) -> str:
    """``**40 cases:** 35 passed · 3 failed · 1 error (1 infrastructure) · 1 not evaluated · 2 flaky``."""
    return f"**{plural(doc.totals.cases, 'case')}:** " + " · ".join(count_words(doc))


def count_words(doc: ResultsDocument) -> list[str]:
    """Every count that is not zero, in the words of the comment, the summary, the log and report.html: the
    verdict's totals and findings, never counted again here."""
    totals = doc.totals
    parts = [f"{totals.passed} passed"]
    if totals.failed:
        confirmed = f" ({totals.confirmed_failures} confirmed by re-runs)" if totals.confirmed_failures else ""
        parts.append(f"{totals.failed} failed{confirmed}")
    if totals.error:
        infrastructure = f" ({totals.infrastructure_errors} infrastructure)" if totals.infrastructure_errors else ""
        parts.append(plural(totals.error, "error") + infrastructure)
    if totals.not_evaluated:
        allowed = ", allowed" if doc.run.allow_not_evaluated else ""
        parts.append(f"{totals.not_evaluated} not evaluated{allowed}")
    if totals.flaky:
        parts.append(f"{totals.flaky} flaky")
    if totals.retried_runs:
        parts.append(f"{plural(totals.retried_runs, 'run')} retried")
    if totals.quarantined:
        not_passing = totals.quarantined_not_passing
        parts.append(f"{totals.quarantined} quarantined" + (f" ({not_passing} not passing)" if not_passing else ""))
    if totals.file_errors:
        parts.append(f"{plural(totals.file_errors, 'eval file')} could not be used")
    if totals.budgets_missed:
        parts.append(f"{plural(totals.budgets_missed, 'budget')} missed")
    if totals.budgets_unchecked:
        parts.append(f"{plural(totals.budgets_unchecked, 'budget')} could not be checked")
    failing = next((f for f in doc.findings if f.rule == "regressions" and f.effect == Effect.FAILED), None)
    if failing is not None and doc.comparison is not None:
        verb = "fails" if doc.comparison.regressions == 1 else "fail"
        parts.append(f"{plural(doc.comparison.regressions, 'regression')} {verb} the gate")
    return parts


def _short(sha: str | None) -> str:
    return md.code(sha[:7]) if sha and re.fullmatch(r"[0-9a-fA-F]{7,64}", sha) else ""


def comparison_line(doc: ResultsDocument) -> str:
    """``**Against main (run 41) @ abc1234:** 2 regressions · 1 within noise · 1 improvement · 1 new · 0 removed``."""
    counts = change_counts(doc)
    if doc.comparison is None or counts is None:
        if doc.run.baseline_note:
            return f"**No comparison:** {md.inline(doc.run.baseline_note, limit=400)}."
        return "**No comparison:** give `--baseline FILE`, or run in a pull request with the base branch's artifact."
    base = doc.comparison.baseline
    where = md.inline(base.description, limit=200) + (f" @ {_short(base.sha)}" if base.sha else "")
    if base.run_url and RUN_URL.match(base.run_url):
        where = f"[{where}]({base.run_url})"
    parts = comparison_words(counts)
    tolerance = doc.comparison.tolerance
    history = doc.comparison.history
    notes = []
    if tolerance:
        notes.append(f"tolerance {md.score(tolerance, digits=4)}")
    if history and len(history.runs) >= MIN_HISTORY:
        notes.append(f"noise from the last {len(history.runs)} base runs")
    return f"**Against {where}:** " + " · ".join(parts) + (f" ({', '.join(notes)})" if notes else "")

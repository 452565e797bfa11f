"""The cases in the comment and the summary, each list in a collapsed section and capped with a count of the
rest: the cases that did not pass (each with what was expected and what the agent did), the flaky ones (and
those known flaky on the base branch), and the quarantined ones. Pure.
"""

from __future__ import annotations

from adk_eval_gate import verdict
from adk_eval_gate.model.results import (
    CaseResult,
    CaseStatus,
    Effect,
    Finding,
    MetricStatus,
    ResultsDocument,
    RunRecord,
)
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report import sequential_sections, views
from adk_eval_gate.report.change_sections import known_flaky
from adk_eval_gate.report.sections import ICON, Detail, within
from adk_eval_gate.support.words import plural

LOG_LINES_SHOWN = 20  # of a run's captured log, in a failing case's details (results.json keeps up to 200)


def _turn_block(turn: views.TurnView, text_limit: int) -> str:
    block = []
    if turn.expected_calls is not None:
        block.append("expected tools: " + (", ".join(turn.expected_calls) or "(none)"))
    if turn.actual_calls is not None:
        block.append("actual tools:   " + (", ".join(turn.actual_calls) or "(none)"))
    if turn.expected_answer is not None:
        block.append("expected answer: " + md.truncate(turn.expected_answer, text_limit))
    if turn.actual_answer is not None:
        block.append("actual answer:   " + md.truncate(turn.actual_answer, text_limit))
    return md.code_block("\n".join(block), limit=text_limit * 3) if block else ""


def case_body(case: CaseResult, *, text_limit: int) -> str:
    lines: list[str] = []
    if case.error:
        kind = " (infrastructure)" if case.error_kind == "infrastructure" else ""
        lines.append(f"**Error{kind}:** {md.inline(case.error, limit=max(text_limit, 200))}")
    run = views.worst_run(case)
    findings = [_finding(finding, run) for finding in case.findings if finding.rule != "error"]
    if findings:
        lines.append("\n".join(findings))
    if run is None:
        return "\n\n".join(lines)
    if len(case.runs) > 1:
        lines.append(f"_Run {run.run} of {len(case.runs)} shown; {case.runs_passed or 0} passed._")
    if run.notes:
        lines.append("_Note: " + "; ".join(md.inline(note, limit=300) for note in run.notes) + "._")
    for turn in views.turns(run):
        lines.append(f"**Turn {turn.number}** – user: {md.inline(turn.user, limit=300)}")
        lines.append(_turn_block(turn, text_limit))
    if run.log:
        shown = run.log[-LOG_LINES_SHOWN:]
        lines.append(f"_Log: the last {len(shown)} of {len(run.log)} lines ADK and the agent logged._")
        lines.append(md.code_block("\n".join(shown), limit=text_limit * 3))
    return "\n\n".join(line for line in lines if line)


def _finding(finding: Finding, run: RunRecord | None) -> str:
    """What the verdict found, with what a metric says about its score in the run shown (judge explanations,
    state keys); a note that changed nothing in italics."""
    if finding.effect == Effect.NONE:
        return f"- _{md.inline(finding.reason, limit=400)}_"
    notes = views.metric_notes(run, finding.metric) if run is not None and finding.metric else []
    shown = [f"  - {md.inline(note, limit=400)}" for note in notes]
    return "\n".join([f"- {md.inline(finding.reason, limit=400)}", *shown])


def _summary_line(case: CaseResult, *, flaky: bool = False) -> str:
    """``❌ eval_id <sub>file</sub>``, HTML-escaped for a ``<summary>``."""
    mark = (" · known flaky" if flaky else "") + (" · carried from the base run" if case.carried else "")
    where = md.summary_text(case.file, limit=200)
    return f"{ICON.get(case.status, '❌')} {md.summary_text(case.label)}{mark} <sub>{where}</sub>"


def _reason(case: CaseResult) -> str:
    return case.error or "; ".join(views.case_reasons(case)) or case.status


def failing(doc: ResultsDocument) -> list[CaseResult]:
    return [case for case in doc.cases if case.status != CaseStatus.PASSED and not case.quarantined]


def failing_cases(doc: ResultsDocument, *, detail: Detail, budget: int | None = None) -> str:
    """The cases that did not pass: those new in this change first, then those that failed on the base branch
    too."""
    cases = sorted(failing(doc), key=lambda c: c.failing_on_base)
    if not cases:
        return ""
    shown = cases if detail.max_cases is None else cases[: detail.max_cases]
    flaky = known_flaky(doc)
    if detail.text_limit:
        items = [
            md.details(_summary_line(c, flaky=c.id in flaky), case_body(c, text_limit=detail.text_limit)) for c in shown
        ]
    else:
        items = [
            f"- {md.breakable(c.label, limit=120)} ({md.breakable(c.file, limit=160)})"
            f"{' · known flaky' if c.id in flaky else ''}: {md.inline(_reason(c), limit=200)}"
            for c in shown
        ]
    already = next((index for index, c in enumerate(shown) if c.failing_on_base), None)
    if already is not None:
        items.insert(already, f"**Failing on the base branch too** ({doc.totals.failing_on_base}):")
        if already:
            items.insert(0, f"**New in this change** ({len(cases) - doc.totals.failing_on_base}):")
    body = ("\n\n" if detail.text_limit else "\n").join(within(items, budget))
    if len(cases) > len(shown):
        body += f"\n\n_… and {len(cases) - len(shown)} more: see the job summary and the results artifact._"
    return md.details(f"<strong>Did not pass</strong>: {_status_words(doc)}", body)


def _status_words(doc: ResultsDocument) -> str:
    totals = doc.totals
    words = [f"{totals.failed} failed"] if totals.failed else []
    if totals.error:
        words.append(plural(totals.error, "error"))
    if totals.not_evaluated:
        words.append(f"{totals.not_evaluated} not evaluated")
    text = " · ".join(words)
    if totals.failing_on_base:
        new = totals.failed + totals.error + totals.not_evaluated - totals.failing_on_base
        text += f" ({new} new in this change, {totals.failing_on_base} failing on the base branch too)"
    return text


def _flipping(case: CaseResult) -> list[str]:
    """The metrics that passed in some runs and not in others."""
    statuses: dict[str, set[str]] = {}
    for run in case.runs:
        for metric in run.metrics:
            statuses.setdefault(metric.name, set()).add("passed" if metric.status == MetricStatus.PASSED else "not")
    return [name for name, seen in statuses.items() if len(seen) > 1]


def flaky_cases(doc: ResultsDocument, *, limit: int | None = None) -> str:
    """The cases whose runs disagree (runs passed of k, the metrics that flip), and those known flaky on the base
    branch (their status flips across its history)."""
    cases = verdict.flaky_cases(doc.cases)  # quarantined: listed apart
    known = sorted(known_flaky(doc))
    if not cases and not known:
        return ""
    shown = cases if limit is None else cases[:limit]
    lines = [
        f"- {md.breakable(c.label, limit=120)} ({md.breakable(c.file, limit=160)}): "
        f"{c.runs_passed} of {len(c.runs)} runs passed"
        + (f" ({sequential_sections.decision_words(c)})" if sequential_sections.decision_words(c) else "")
        + (f"; flips: {', '.join(md.breakable(name, limit=80) for name in _flipping(c))}" if _flipping(c) else "")
        + (
            " (passed on a re-run)"
            if c.confirmation and c.confirmation.first_status != CaseStatus.PASSED and c.confirmation.extra_runs
            else ""
        )
        for c in shown
    ]
    if len(cases) > len(shown):
        lines.append(f"- … and {len(cases) - len(shown)} more")
    if known:
        runs = doc.comparison.history.runs if doc.comparison and doc.comparison.history else []
        listed = known if limit is None else known[:limit]
        names = ", ".join(md.breakable(case_id.rsplit("::", 1)[-1], limit=80) for case_id in listed)
        more = f" and {len(known) - len(listed)} more" if len(known) > len(listed) else ""
        lines.append(
            f"\n**Known flaky** (their status flips across the base branch's last {len(runs)} runs): {names}{more}."
        )
    words = [f"{len(cases)} whose runs do not agree"] if cases else []
    if known:
        words.append(f"{len(known)} known flaky on the base branch")
    return md.details(f"<strong>Flaky</strong>: {' · '.join(words)}", "\n".join(lines))


def _quarantine_state(case: CaseResult) -> str:
    state = f"{ICON.get(case.status, '❌')} {case.status.replace('_', ' ')}"
    if case.stability is not None:
        state += f", {case.stability} ({case.runs_passed} of {len(case.runs)} runs passed)"
    return state


def quarantined_cases(doc: ResultsDocument, *, limit: int | None = None) -> str:
    """The quarantined cases with their status and stability, so a team sees when one can leave quarantine."""
    cases = [c for c in doc.cases if c.quarantined]
    if not cases:
        return ""
    shown = cases if limit is None else cases[:limit]
    lines = [
        f"- {md.breakable(c.label, limit=120)} ({md.breakable(c.file, limit=160)}): {_quarantine_state(c)}"
        for c in shown
    ]
    if len(cases) > len(shown):
        lines.append(f"- … and {len(cases) - len(shown)} more")
    heading = (
        f"<strong>Quarantined</strong>: {doc.totals.quarantined} · {doc.totals.quarantined_not_passing} not passing, "
        "none fail the gate"
    )
    return md.details(heading, "\n".join(lines))

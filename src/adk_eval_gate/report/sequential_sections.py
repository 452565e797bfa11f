"""What ``--sequential`` decided, in the outputs' words: the line every output opens with ("Sequential verdicts
(95%, margin 0.10, 2-10 runs): ..."), each undecided case with its runs, mean, interval and threshold, and a case's
decision in a few words (the flaky section, JUnit, report.html). Rendered from ``totals`` and ``cases[].sequential``:
nothing is decided here."""

from __future__ import annotations

from adk_eval_gate.model.results import CaseResult, ResultsDocument
from adk_eval_gate.report import markdown as md
from adk_eval_gate.support.words import plural

UNDECIDED_SHOWN = 10
DECISION_WORDS = {
    "proven-pass": "proven pass",
    "proven-fail": "proven fail",
    "curtailed": "curtailed",
    "undecided": "undecided",
}


def sequential_line(doc: ResultsDocument) -> str:
    """The run's sequential figures in one line; empty without ``--sequential``."""
    settings, totals = doc.run.sequential, doc.totals
    if settings is None or totals.runs is None or totals.runs_fixed is None:
        return ""
    ran = totals.cases - totals.carried
    saved = f"; {round(100 * (totals.runs - totals.runs_fixed) / totals.runs_fixed):+d}%" if totals.runs_fixed else ""
    return (
        f"Sequential verdicts ({settings.confidence:.0%}, margin {settings.margin:.2f}, "
        f"{settings.min_runs}-{settings.max_runs} runs): {plural(ran, 'case')}, "
        f"{totals.runs:,} runs (fixed: {totals.runs_fixed:,}{saved}) · {totals.proven or 0} proven · "
        f"{totals.curtailed or 0} curtailed · {totals.undecided or 0} undecided{_continued(doc)}"
    )


def _continued(doc: ResultsDocument) -> str:
    attempt = doc.run.continued_from_attempt
    return f" · evidence continued from attempt {attempt}" if attempt is not None else ""


def runs_per_case(doc: ResultsDocument) -> str:
    """How many runs each case ran: ``--num-runs``, or with ``--sequential`` the fewest and the most the cases that
    ran spent ("2-10": no single number is true of them)."""
    if doc.run.sequential is None:
        return str(doc.run.num_runs)
    spent = sorted(len(case.runs) for case in doc.cases if case.runs and case.carried is None)
    if not spent or spent[0] == spent[-1]:
        return str(spent[0] if spent else doc.run.num_runs)
    return f"{spent[0]}-{spent[-1]}"


def decision_words(case: CaseResult) -> str:
    """The case's decision and the runs it read ("proven pass after 3 runs"); empty without one."""
    sequential = case.sequential
    if sequential is None or sequential.decision is None:
        return ""
    return f"{DECISION_WORDS[sequential.decision]} after {plural(sequential.runs, 'run')}"


def _undecided_text(case: CaseResult) -> str:
    """An undecided case's runs, mean, interval and threshold, as plain text."""
    sequential = case.sequential
    if sequential is None:
        return ""
    low, high = sequential.interval
    mean = "" if sequential.mean is None else f", mean {sequential.mean:.2f}"
    metric = "" if sequential.metric == "runs" else f" {sequential.metric}"
    return (
        f"{plural(sequential.runs, 'run')}{mean}, interval {low:.2f}-{high:.2f}, threshold{metric} "
        f"{sequential.threshold:g}"
    )


def _undecided_cases(doc: ResultsDocument) -> list[CaseResult]:
    return [case for case in doc.cases if case.sequential is not None and case.sequential.decision == "undecided"]


def sequential_section(doc: ResultsDocument, *, limit: int = UNDECIDED_SHOWN) -> str:
    """The line, then the undecided cases (the first ``limit``), in Markdown."""
    line = sequential_line(doc)
    if not line:
        return ""
    undecided = _undecided_cases(doc)
    rows = [f"- {md.breakable(case.id, limit=160)}: {_undecided_text(case)}" for case in undecided[:limit]]
    if len(undecided) > limit:
        rows.append(f"- … and {len(undecided) - limit} more")
    policy = doc.run.sequential.undecided if doc.run.sequential else "point"
    heading = f"\n\n**Undecided** (--undecided {policy}):\n" if rows else ""
    return line + heading + "\n".join(rows)


def console_lines(doc: ResultsDocument, *, limit: int = UNDECIDED_SHOWN) -> list[str]:
    """The line and the undecided cases, as plain text for the log."""
    line = sequential_line(doc)
    if not line:
        return []
    undecided = _undecided_cases(doc)
    lines = [line, *(f"Undecided: {case.id} ({_undecided_text(case)})" for case in undecided[:limit])]
    if len(undecided) > limit:
        lines.append(f"Undecided: … and {len(undecided) - limit} more (see summary.md)")
    return lines

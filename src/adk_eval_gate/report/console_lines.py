"""Console lines: one per finished case run while they run (their scores, never a verdict: budgets, re-runs and
the baseline can still change it), then once the verdict is decided one line per case with its final status, and
the verdict."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from adk_eval_gate.compare.noise import MIN_HISTORY
from adk_eval_gate.model.results import CaseResult, CaseStatus, MetricStatus, ResultsDocument, RunStatus
from adk_eval_gate.report import costs, sequential_sections, views
from adk_eval_gate.report.carried import affected_line
from adk_eval_gate.report.headline import change_counts, comparison_words, count_words
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict import PASS_RULES, flaky_cases

Shown = TypeVar("Shown", str, list[str])  # what a turn shows: its answer, or its tool calls

_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "not_evaluated": "NOT EVALUATED"}


def _fmt(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.3g}"


_SHOWN_CASES = 20  # the log shows what went wrong for this many cases; the summary and JUnit have them all
_SHOWN_FLAKY = 10  # flaky cases named in the log; the summary lists them all
_TEXT = 160


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT else text[: _TEXT - 1] + "…"


_SHOWN_TURNS = 3  # differing turns of a failing case in the log (and as many notes); the reports have every one


def _differences(case: CaseResult, *, full_report: str) -> list[str]:
    """The first turns of the case's worst run where the tool calls or the answer differ from the expectation, and
    the first notes of its failing metrics; one line saying how many more there are, and where they are."""
    run = views.worst_run(case)
    if run is None:
        return []
    differing = [lines for turn in views.turns(run) if (lines := _turn_differences(turn))]
    notes = [_clip(note) for note in views.failing_metric_notes(run)]
    lines = [line for turn_lines in differing[:_SHOWN_TURNS] for line in turn_lines] + notes[:_SHOWN_TURNS]
    left = ((len(differing) - _SHOWN_TURNS, "more differing turn"), (len(notes) - _SHOWN_TURNS, "more note"))
    more = [plural(count, what) for count, what in left if count > 0]
    if more:
        lines.append(f"... {' and '.join(more)}: see {full_report}")
    return lines


def _turn_differences(turn: views.TurnView) -> list[str]:
    return _difference(
        f"turn {turn.number} tools: ", turn.expected_calls, turn.actual_calls, _calls_text
    ) + _difference(f"turn {turn.number} answer:", turn.expected_answer, turn.actual_answer, _answer_text)


def _calls_text(calls: list[str]) -> str:
    return _clip(", ".join(calls) or "(none)")


def _answer_text(answer: str) -> str:
    return repr(_clip(answer))


def _difference(label: str, expected: Shown | None, actual: Shown | None, show: Callable[[Shown], str]) -> list[str]:
    if expected is None or actual is None or expected == actual:
        return []
    return [f"{label} expected {show(expected)}", f"{'':15}got      {show(actual)}"]


def _stability_lines(doc: ResultsDocument) -> list[str]:
    """The suite's stability over its runs, pass^k and pass@k said in words, then the flaky cases by name (the first
    ``_SHOWN_FLAKY``)."""
    suite = doc.stability
    if suite is None:
        return []
    several = f", {suite.cases} of the {len(doc.cases)} cases" if suite.cases < len(doc.cases) else ""
    counts = f"{suite.stable_pass} stable pass, {suite.flaky} flaky, {suite.stable_fail} stable fail"
    if suite.k is None:
        k = max(len(case.runs) for case in doc.cases)
        shares = (
            f"{_share(suite.pass_hat_k)} passed all {k} runs (pass^{k}), "
            f"{_share(suite.pass_at_k)} passed at least once (pass@{k})"
        )
        head = f"Over {k} runs per case{several}"
    else:
        k = suite.k
        low, high = suite.runs or (k, k)
        shares = (
            f"{_share(suite.pass_hat_k)} average chance that {k} runs of a case all pass (pass^{k}), "
            f"{_share(suite.pass_at_k)} that at least one of {k} does (pass@{k}), from each case's runs"
        )
        head = f"Over {low}-{high} runs per case as the sequential verdicts spent them{several}"
    lines = [f"{head}: {counts}; {shares}; a case passes when {PASS_RULES[doc.run.pass_rule]}"]
    flaky = flaky_cases(doc.cases)
    if flaky:
        shown = [f"{_name(case)} ({_runs_passed(case)})" for case in flaky[:_SHOWN_FLAKY]]
        more = f" and {len(flaky) - _SHOWN_FLAKY} more (see summary.md)" if len(flaky) > _SHOWN_FLAKY else ""
        lines.append(f"Flaky: {', '.join(shown)}{more}")
    return lines


def _name(case: CaseResult) -> str:
    """``FILE::CASE`` on one line, cut when it is very long (names come from the eval files)."""
    return _clip(f"{case.file}::{case.label}")


def _runs_passed(case: CaseResult) -> str:
    return f"{case.runs_passed} of {len(case.runs)} runs passed"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _verdict(doc: ResultsDocument) -> str:
    """PASSED, FAILED or ERROR; a pass with cases that were not evaluated says they were allowed."""
    verdict = doc.status.upper()
    if doc.status == RunStatus.PASSED and doc.totals.not_evaluated:
        verdict += f" (with {doc.totals.not_evaluated} not evaluated, allowed by --allow-not-evaluated)"
    return verdict


def _case_line(case: CaseResult) -> str:
    """``PASS FILE::CASE metric=0.9 ...`` or ``FAIL FILE::CASE: why``, with the case's final status."""
    mark = (
        _MARK[case.status]
        + (f" (flaky: {_runs_passed(case)})" if case.stability == "flaky" else "")
        + (" (quarantined)" if case.quarantined else "")
        + (" (carried)" if case.carried else "")
    )
    name = f"{case.file}::{case.label}"
    if case.status == CaseStatus.PASSED:
        graded = [m for m in case.metrics if m.status != MetricStatus.INFORMATIONAL]
        return f"{mark} {name} " + " ".join(f"{m.name}={_fmt(m.score)}" for m in graded)
    return f"{mark} {name}: {case.error or '; '.join(views.case_reasons(case))}"


def _case_lines(console: Console, doc: ResultsDocument, *, full_report: str) -> None:
    """Each case once, with its final status: those that passed in a group, the others after it with what went
    wrong (annotations: github/annotations.py), up to a few turns each (``full_report``: where the rest is)."""
    passed = [c for c in doc.cases if c.status == CaseStatus.PASSED and not c.quarantined]
    others = [c for c in doc.cases if c.status != CaseStatus.PASSED and not c.quarantined]
    quarantined = [c for c in doc.cases if c.quarantined]
    console.line("")
    if passed:
        console.group(f"{plural(len(passed), 'case')} passed")
        for case in passed:
            console.line(_case_line(case).rstrip())
        console.end_group()
    if others:
        console.line("Cases that did not pass:")
    for index, case in enumerate(others):
        console.line(f"  {_case_line(case)}")
        if index < _SHOWN_CASES and case.status == CaseStatus.FAILED:
            for line in _differences(case, full_report=full_report):
                console.line(f"      {line}")
    if len(others) > _SHOWN_CASES:
        console.line(f"  (expected and actual turns are shown for the first {_SHOWN_CASES}; see summary.md)")
    for case in quarantined:
        console.line(f"  {_case_line(case).rstrip()}")


def final(console: Console, doc: ResultsDocument, *, full_report: str = "report.html or results.json") -> None:
    """``full_report``: where a reader finds what the log leaves out (the paths of report.html and results.json)."""
    totals = doc.totals
    _case_lines(console, doc, full_report=full_report)
    parts = count_words(doc)
    if doc.comparison is not None:
        counts = change_counts(doc)
        parts.append(plural(len(counts.regressions) if counts else 0, "regression") + " against the baseline")
    if doc.error:
        console.line("")
        console.line(f"The run ended in error: {doc.error}")
    if doc.run.unfinished:
        shown = ", ".join(doc.run.unfinished[:_SHOWN_CASES])
        more = f" and {len(doc.run.unfinished) - _SHOWN_CASES} more" if len(doc.run.unfinished) > _SHOWN_CASES else ""
        console.line(f"Interrupted: {plural(len(doc.run.unfinished), 'case')} did not finish: {shown}{more}")
    affected = affected_line(doc, markdown=False)
    if affected:
        console.line("")
        console.line(affected)
    sequential = sequential_sections.console_lines(doc)
    for line in ["", *sequential] if sequential else []:
        console.line(line)
    stability_lines = _stability_lines(doc)
    if stability_lines:
        console.line("")
    for line in stability_lines:
        console.line(line)
    for line in _cost_lines(doc):
        console.line(line)
    console.line("")
    console.line(f"ADK eval gate: {_verdict(doc)} - {plural(totals.cases, 'case')}: " + ", ".join(parts))
    if console.annotations_dropped:
        console.line(f"({console.annotations_dropped} more annotations were not written: GitHub shows at most 50)")


def _cost_lines(doc: ResultsDocument) -> list[str]:
    """The cost line of the comment, as plain text, and each budget of the run."""
    line = costs.cost_line(doc, markdown=False)
    lines = [""] if line or doc.budgets else []
    if line:
        lines.append(line)
    lines += [f"Budget {check.status}: {check.reason}" for check in doc.budgets]
    return lines


def comparison_sentence(doc: ResultsDocument) -> str:
    """The comment's comparison counts, for the log."""
    counts = change_counts(doc)
    history = doc.comparison.history if doc.comparison else None
    against = (
        f" (noise from the last {len(history.runs)} base runs)" if history and len(history.runs) >= MIN_HISTORY else ""
    )
    return (" · ".join(comparison_words(counts)) if counts else "") + against

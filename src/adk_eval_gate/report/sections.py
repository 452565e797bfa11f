"""Markdown pieces shared by the PR comment and the job summary. Pure; untrusted text goes through ``markdown``.

``Detail`` says how much to show; the renderers try levels of detail in a fixed order until the text fits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from adk_eval_gate.report import markdown as md
from adk_eval_gate.report import views
from adk_eval_gate.results import (
    CaseResult,
    MetricChange,
    MetricDelta,
    MetricResult,
    MetricSummary,
    ResultsDocument,
    RunRecord,
)

ICON = {"passed": "✅", "failed": "❌", "error": "💥", "not_evaluated": "⚠️"}
_VERDICT = {"passed": "passed", "failed": "failed", "error": "could not evaluate everything"}
_SIGNIFICANCE = {"significant": "significant", "noise": "within noise", "untested": "single run"}
_RUN_URL = re.compile(r"^https://[A-Za-z0-9.-]+(:\d+)?/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/actions/runs/\d+$")


def plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else (words or word + 's')}"


class TooLong(Exception):
    """A section alone is longer than the whole text may be: the renderer tries the next level of detail."""


def within(items: Iterable[str], budget: int | None) -> list[str]:
    """The items, or ``TooLong`` as soon as they add up to more than ``budget`` characters."""
    kept, total = [], 0
    for item in items:
        total += len(item) + 2
        if budget is not None and total > budget:
            raise TooLong
        kept.append(item)
    return kept


@dataclass(frozen=True)
class Detail:
    text_limit: int  # characters of each answer or tool call text (0: no case details)
    max_cases: int | None  # failing cases shown in full (None: all)
    max_changes: int | None  # rows of the regressions table (None: all)
    max_metrics: int | None = None  # rows of the metric table (None: all)


def fit(
    levels: Sequence[Detail],
    render_at: Callable[[Detail, int, int], str],
    *,
    target: int,
    in_bytes: bool,
    note: str,
) -> str:
    """The most detailed rendering (``render_at(detail, level, budget)``) within ``target`` characters, or
    bytes of UTF-8 (``in_bytes``).

    The last level's budget is generous; if even it is too long (thousands of metrics), its head is kept and
    ``note`` says so.
    """

    def size(text: str) -> int:
        return len(text.encode("utf-8")) if in_bytes else len(text)

    text = ""
    for level, detail in enumerate(levels):
        last = level == len(levels) - 1
        try:
            text = render_at(detail, level, 10 * target if last else target)
        except TooLong:
            continue
        if size(text) <= target:
            return text
    room = target - size(note)
    if in_bytes:
        return text.encode("utf-8")[:room].decode("utf-8", "ignore") + note
    return text[:room] + note


@dataclass
class Cut:
    """What a renderer left out, to say so."""

    cases: int = 0
    changes: int = 0
    metrics: int = 0
    text_limit: int | None = None

    def sentence(self, *, where: str) -> str:
        parts = []
        if self.text_limit:
            parts.append(f"answers and tool calls shortened to {self.text_limit} characters")
        if self.cases:
            parts.append(f"{self.cases} failing case{'s' if self.cases != 1 else ''} not shown")
        if self.changes:
            parts.append(f"{self.changes} change{'s' if self.changes != 1 else ''} not listed")
        if self.metrics:
            parts.append(f"{self.metrics} metric{'s' if self.metrics != 1 else ''} not listed")
        if not parts:
            return ""
        return f"✂️ _Shortened to fit {where}: {'; '.join(parts)}. Everything is in the results artifact._"


def verdict_line(doc: ResultsDocument, *, gate_id: str | None = None) -> str:
    totals = doc.totals
    parts = [f"{totals.passed} passed", f"{totals.failed} failed"]
    if totals.error:
        parts.append(plural(totals.error, "error"))
    if totals.not_evaluated:
        parts.append(f"{totals.not_evaluated} not evaluated")
    if totals.file_errors:
        parts.append(plural(totals.file_errors, "file error"))
    if totals.quarantined:
        parts.append(f"{totals.quarantined} quarantined")
    gate = f" ({md.code(gate_id)})" if gate_id and gate_id != "default" else ""
    comparison = doc.comparison
    if comparison and comparison.regressions and doc.run.fail_on_regression and not totals.failed:
        parts.append(
            f"{plural(comparison.regressions, 'regression')} fail{'s' if comparison.regressions == 1 else ''} the gate"
        )
    icon = ICON.get(doc.status, "❌")
    return f"{icon} **ADK eval gate{gate} {_VERDICT[doc.status]}**: {totals.cases} cases, " + ", ".join(parts)


def run_problems(doc: ResultsDocument) -> str:
    """Why the run as a whole is an error: it crashed, a report failed, or it was interrupted (and what is left)."""
    lines = []
    if doc.error:
        lines.append(f"💥 **The run ended in error:** {md.inline(doc.error, limit=500)}")
    if doc.run.interrupted:
        unfinished = doc.run.unfinished
        names = ", ".join(md.code(case_id, limit=160) for case_id in unfinished[:20])
        more = f" and {len(unfinished) - 20} more" if len(unfinished) > 20 else ""
        rest = f": {plural(len(unfinished), 'case')} did not finish: {names}{more}" if unfinished else ""
        lines.append(f"⏹️ **Interrupted** before every case run finished{rest}.")
    return "\n\n".join(lines)


def _short(sha: str | None) -> str:
    return md.code(sha[:7]) if sha and re.fullmatch(r"[0-9a-fA-F]{7,64}", sha) else ""


def baseline_line(doc: ResultsDocument) -> str:
    comparison = doc.comparison
    if comparison is None:
        if doc.run.baseline_note:
            return f"**No comparison**: {md.inline(doc.run.baseline_note, limit=400)}."
        return "**No comparison**: give `--baseline FILE`, or run in a pull request with the base branch's artifact."
    base = comparison.baseline
    where = md.inline(base.description, limit=200)
    if base.sha:
        where += f" @ {_short(base.sha)}"
    if base.run_url and _RUN_URL.match(base.run_url):
        where = f"[{where}]({base.run_url})"
    counts = [f"**{comparison.regressions}** regression{'s' if comparison.regressions != 1 else ''}"]
    if comparison.noisy_regressions:
        counts.append(f"{plural(comparison.noisy_regressions, 'drop')} within noise")
    counts.append(plural(comparison.improvements, "improvement"))
    if comparison.new:
        counts.append(plural(comparison.new, "new case"))
    if comparison.removed:
        counts.append(f"{comparison.removed} removed")
    tolerance = f" (tolerance {md.score(comparison.tolerance, digits=4)})" if comparison.tolerance else ""
    return f"Compared with {where}{tolerance}: " + ", ".join(counts) + "."


def change_text(delta: float | None, *, kind: str | None = None) -> str:
    if kind == "new":
        return "new"
    if kind == "removed":
        return "removed"
    if delta is None:
        return "–"
    if abs(delta) < 1e-9:
        return "="
    arrow = "▲" if delta > 0 else "▼"
    sign = "+" if delta > 0 else "−"
    return f"{arrow} {sign}{md.score(abs(delta))}"


def _threshold(summary: MetricSummary | None, delta: MetricDelta | None) -> str:
    if summary is not None and summary.threshold is None and summary.thresholds:
        return ", ".join(md.score(t) for t in summary.thresholds)
    value = summary.threshold if summary is not None else (delta.threshold if delta else None)
    return md.score(value)


def metric_table(doc: ResultsDocument, *, limit: int | None = None, cut: Cut | None = None) -> str:
    summaries = {s.name: s for s in doc.metrics if s.kind != "informational"}
    deltas = {d.name: d for d in doc.comparison.metrics} if doc.comparison else {}
    names = list(summaries) + [name for name in deltas if name not in summaries]
    if limit is not None and len(names) > limit:
        if cut is not None:
            cut.metrics += len(names) - limit
        names = names[:limit]
    rows = []
    for name in names:
        summary, delta = summaries.get(name), deltas.get(name)
        head = summary.mean if summary else None
        rate = _pass_rate(summary)
        row = [md.code(name, in_table=True), _threshold(summary, delta)]
        if doc.comparison is not None:
            kind = "removed" if summary is None else ("new" if delta is None or delta.base_mean is None else None)
            row += [
                md.score(delta.base_mean if delta else None),
                md.score(head),
                change_text(delta.delta if delta else None, kind=kind),
            ]
        else:
            row += [md.score(head)]
        row.append(rate)
        rows.append(row)
    if not rows:
        return "_No thresholded metrics._"
    if doc.comparison is not None:
        header = ["Metric", "Threshold", "Base", "Head", "Change", "Pass rate"]
    else:
        header = ["Metric", "Threshold", "Mean", "Pass rate"]
    return md.table(header, rows, align=["---"] + ["--:"] * (len(header) - 1))


def _pass_rate(summary: MetricSummary | None) -> str:
    if summary is None:
        return "–"
    graded = summary.passed + summary.failed
    rate = f"{summary.passed / graded:.0%} ({summary.passed}/{graded})" if graded else "–"
    if summary.not_evaluated:
        rate += f", {summary.not_evaluated} not evaluated"
    return rate


def _case_label(case_id: str) -> str:
    return md.code(case_id, limit=160, in_table=True)


def regressions(
    doc: ResultsDocument,
    *,
    limit: int | None,
    cut: Cut,
    include_improvements: bool = False,
    budget: int | None = None,
) -> str:
    comparison = doc.comparison
    if comparison is None:
        return ""
    kinds = {"regressed", "improved"} if include_improvements else {"regressed"}
    listed = [c for c in comparison.changes if c.kind in kinds]
    order = {"significant": 0, "untested": 1, "noise": 2, None: 3}
    listed.sort(key=lambda c: (c.kind != "regressed", order.get(c.significance, 3), c.delta or 0.0))
    flips = [c for c in comparison.cases if c.kind == "status" and c.base_status == "passed"]
    if not listed and not flips:
        return ""
    title = "Changes against the baseline" if include_improvements else "Regressions"
    parts = [f"### {title} ({len(listed)})"]
    if flips:
        names = ", ".join(md.code(f.case_id, limit=160) for f in flips[:20])
        more = f" and {len(flips) - 20} more" if len(flips) > 20 else ""
        parts.append(f"Passed on the base branch, do not pass now: {names}{more}.")
    if limit is not None and len(listed) > limit:
        cut.changes += len(listed) - limit
        listed = listed[:limit]
    if listed:
        header = md.table(["Case", "Metric", "Base", "Head", "Change", "Noise check"], [], align=_CHANGE_ALIGN)
        rows = within((_change_row(c) for c in listed), budget)
        parts.append("\n".join([header, *rows]))
    return "\n\n".join(parts)


_CHANGE_ALIGN = ["---", "---", "--:", "--:", "--:", "---"]


def _change_row(change: MetricChange) -> str:
    cells = [
        _case_label(change.case_id),
        md.code(change.metric, in_table=True),
        md.score(change.base),
        md.score(change.head),
        change_text(change.delta),
        _SIGNIFICANCE.get(change.significance or "", "–") + _interval(change.interval),
    ]
    return "| " + " | ".join(cells) + " |"


def _interval(interval: list[float] | None) -> str:
    if not interval:
        return ""
    return f" [{md.score(interval[0])}, {md.score(interval[1])}]"


LOG_LINES_SHOWN = 20  # of a run's captured log, in a failing case's details (results.json keeps up to 200)


def case_body(case: CaseResult, *, text_limit: int) -> str:
    lines: list[str] = []
    if case.error:
        lines.append(f"**Error:** {md.inline(case.error, limit=max(text_limit, 200))}")
    failing = views.failing_metrics(case)
    run = views.worst_run(case)
    if failing:
        lines.append("\n".join(_failing_metric(m, run) for m in failing))
    if run is not None:
        if len(case.runs) > 1:
            lines.append(f"_Run {run.run} of {len(case.runs)} shown._")
        if run.notes:
            lines.append("_Note: " + "; ".join(md.inline(note, limit=300) for note in run.notes) + "._")
        for turn in views.turns(run):
            lines.append(f"**Turn {turn.number}** – user: {md.inline(turn.user, limit=300)}")
            block = []
            if turn.expected_calls is not None:
                block.append("expected tools: " + (", ".join(turn.expected_calls) or "(none)"))
            if turn.actual_calls is not None:
                block.append("actual tools:   " + (", ".join(turn.actual_calls) or "(none)"))
            if turn.expected_answer is not None:
                block.append("expected answer: " + md.truncate(turn.expected_answer, text_limit))
            if turn.actual_answer is not None:
                block.append("actual answer:   " + md.truncate(turn.actual_answer, text_limit))
            if block:
                lines.append(md.code_block("\n".join(block), limit=text_limit * 3))
        if run.log:
            shown = run.log[-LOG_LINES_SHOWN:]
            lines.append(f"_Log: the last {len(shown)} of {len(run.log)} lines ADK and the agent logged._")
            lines.append(md.code_block("\n".join(shown), limit=text_limit * 3))
    return "\n\n".join(lines)


def _failing_metric(metric: MetricResult, run: RunRecord | None) -> str:
    """The metric's failure, with what it says about it in the run shown (judge explanations, state keys)."""
    notes = views.metric_notes(run, metric.name) if run is not None else []
    shown = [f"  - {md.inline(note, limit=400)}" for note in notes]
    return "\n".join([f"- {md.inline(views.failure_reason(metric), limit=400)}", *shown])


def case_summary_line(case: CaseResult) -> str:
    icon = ICON.get(case.status, "❌")
    return f"{icon} {md.summary_text(case.eval_id)} <sub>{md.summary_text(case.file, limit=200)}</sub>"


def failing_cases(doc: ResultsDocument, *, detail: Detail, cut: Cut, budget: int | None = None) -> str:
    failing = [c for c in doc.cases if c.status != "passed" and not c.quarantined]
    if not failing:
        return ""
    shown = failing if detail.max_cases is None else failing[: detail.max_cases]
    cut.cases += len(failing) - len(shown)
    parts = [f"### Cases that did not pass ({len(failing)})"]
    if detail.text_limit:
        sections = (md.details(case_summary_line(c), case_body(c, text_limit=detail.text_limit)) for c in shown)
        parts += within(sections, budget)
    else:
        lines = (f"- {md.code(c.id, limit=200)}: {md.inline(_reason(c), limit=200)}" for c in shown)
        parts.append("\n".join(within(lines, budget)))
    return "\n\n".join(parts)


def flaky_cases(doc: ResultsDocument, *, limit: int | None = None) -> str:
    """The cases whose runs disagree: how many runs passed, and the metrics that flip between runs."""
    cases = [c for c in doc.cases if c.stability == "flaky"]
    if not cases:
        return ""
    shown = cases if limit is None else cases[:limit]
    lines = [
        f"- {md.code(c.id, limit=200)}: {c.runs_passed} of {len(c.runs)} runs passed"
        + (f"; flips: {', '.join(md.code(name) for name in _flipping(c))}" if _flipping(c) else "")
        for c in shown
    ]
    if len(cases) > len(shown):
        lines.append(f"- … and {len(cases) - len(shown)} more")
    return md.details(f"Flaky: {plural(len(cases), 'case')} whose runs do not agree", "\n".join(lines))


def _flipping(case: CaseResult) -> list[str]:
    """The metrics that passed in some runs and not in others."""
    statuses: dict[str, set[str]] = {}
    for run in case.runs:
        for metric in run.metrics:
            statuses.setdefault(metric.name, set()).add("passed" if metric.status == "passed" else "not")
    return [name for name, seen in statuses.items() if len(seen) > 1]


def quarantined_cases(doc: ResultsDocument, *, limit: int | None = None) -> str:
    """The quarantined cases with their status and stability, so a team sees when one can leave quarantine."""
    cases = [c for c in doc.cases if c.quarantined]
    if not cases:
        return ""
    shown = cases if limit is None else cases[:limit]
    lines = [f"- {md.code(c.id, limit=200)}: {_quarantine_state(c)}" for c in shown]
    if len(cases) > len(shown):
        lines.append(f"- … and {len(cases) - len(shown)} more")
    heading = f"Quarantined: {plural(len(cases), 'case')} that ran but do not fail the gate"
    return md.details(heading, "\n".join(lines))


def _quarantine_state(case: CaseResult) -> str:
    state = f"{ICON.get(case.status, '❌')} {case.status.replace('_', ' ')}"
    if case.stability is not None:
        state += f", {case.stability} ({case.runs_passed} of {len(case.runs)} runs passed)"
    return state


def _reason(case: CaseResult) -> str:
    return case.error or "; ".join(views.failure_reason(m) for m in views.failing_metrics(case)) or case.status


def links(doc: ResultsDocument) -> str:
    run_url = doc.run.run_url
    if not run_url or not _RUN_URL.match(run_url):
        return ""
    return f"[Workflow run]({run_url}) · [Artifacts]({run_url}#artifacts)"


def footer(doc: ResultsDocument) -> str:
    facts = [  # inside <sub> in a paragraph GitHub still renders Markdown: every field is escaped as such
        f"runner {md.inline(doc.run.runner, limit=40)}" if doc.run.runner else None,
        f"{doc.run.num_runs} runs per case" if doc.run.num_runs > 1 else None,
        f"shard {md.inline(doc.run.shard, limit=20)}" if doc.run.shard else None,
        f"{doc.run.shards_merged} shards merged" if doc.run.shards_merged else None,
        f"adk-eval-gate {md.inline(doc.run.tool_version, limit=40)}" if doc.run.tool_version else None,
    ]
    return "<sub>" + ", ".join(f for f in facts if f) + "</sub>"

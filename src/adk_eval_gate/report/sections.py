"""Markdown pieces shared by the PR comment and the job summary. Pure; untrusted text goes through ``markdown``.

``Detail`` says how much to show; the renderers try levels of detail in a fixed order until the text fits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from adk_eval_gate.model.results import MetricDelta, MetricSummary, ResultsDocument
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report.sequential_sections import runs_per_case
from adk_eval_gate.report.views import computed_by_label
from adk_eval_gate.support.words import plural

NARROW_SPACE = "\u202f"  # keeps a figure and its arrow or count on one line of a narrow table cell
ICON = {"passed": "✅", "failed": "❌", "error": "💥", "not_evaluated": "⚠️"}
RUN_URL = re.compile(r"^https://[A-Za-z0-9.-]+(:\d+)?/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/actions/runs/\d+$")


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

    metrics: int = 0
    text_limit: int | None = None

    def sentence(self, *, where: str) -> str:
        """Lists and sections say themselves how many items they leave out; this says what else was cut."""
        parts = []
        if self.text_limit:
            parts.append(f"answers and tool calls shortened to {self.text_limit} characters")
        if self.metrics:
            parts.append(f"{self.metrics} metric{'s' if self.metrics != 1 else ''} not listed")
        if not parts:
            return ""
        return f"✂️ _Shortened to fit {where}: {'; '.join(parts)}. Everything is in the results artifact._"


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


DIFFERENCES_SHOWN = 3  # inline; the rest in a collapsed list
DIFFERENCES_LISTED = 30


def differences(doc: ResultsDocument) -> str:
    """What head and base did differently, one line each (drops of metrics scored differently are not counted)."""
    found = doc.comparison.differences if doc.comparison else []
    if not found:
        return ""
    lines = [f"⚠️ {md.inline(difference.message, limit=300)}" for difference in found[:DIFFERENCES_SHOWN]]
    text = "  \n".join(lines)
    rest = found[DIFFERENCES_SHOWN:DIFFERENCES_LISTED]
    if rest:
        listed = "\n".join(f"- {md.inline(difference.message, limit=300)}" for difference in rest)
        if len(found) > DIFFERENCES_LISTED:
            listed += f"\n- … and {len(found) - DIFFERENCES_LISTED} more (results.json: comparison.differences)"
        text += "\n\n" + md.details(f"{len(found) - DIFFERENCES_SHOWN} more differences from the baseline", listed)
    return text


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
    return f"{arrow}{NARROW_SPACE}{sign}{md.score(abs(delta))}"


def _threshold(summary: MetricSummary | None, delta: MetricDelta | None) -> str:
    """The metric's threshold (each, when the eval files differ), said when it passes at or below it."""
    lower = " (lower is better)" if summary is not None and summary.lower_is_better else ""
    if summary is not None and summary.threshold is None and summary.thresholds:
        return ", ".join(md.score(t) for t in summary.thresholds) + lower
    value = summary.threshold if summary is not None else (delta.threshold if delta else None)
    return md.score(value) + lower


def metric_table(
    doc: ResultsDocument, *, limit: int | None = None, cut: Cut | None = None, fold_after: int | None = None
) -> str:
    """One row per graded metric; with ``fold_after``, the rows after it in a collapsed table below (the comment
    keeps its height to one screen)."""
    table = _metric_rows(doc, limit=limit, cut=cut)
    if table is None:
        return "_No thresholded metrics._"
    header, rows = table
    align = ["---"] + ["--:"] * (len(header) - 1)
    if fold_after is None or len(rows) <= fold_after + 1:
        return md.table(header, rows, align=align)
    rest = md.table(header, rows[fold_after:], align=align)
    return (
        md.table(header, rows[:fold_after], align=align)
        + "\n\n"
        + md.details(f"{len(rows) - fold_after} more metrics", rest)
    )


def _metric_rows(
    doc: ResultsDocument, *, limit: int | None, cut: Cut | None
) -> tuple[list[str], list[list[str]]] | None:
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
        mark = " ⚠️" if summary is not None and summary.not_evaluated else ""
        label = computed_by_label(name, summary.computed_by if summary else None)
        row = [md.breakable(name, limit=80) + label + mark, _threshold(summary, delta)]
        if doc.comparison is not None:
            kind = _change_kind(summary, delta)
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
        return None
    if doc.comparison is not None:
        return ["Metric", "Threshold", "Base", "Head", "Change", "Pass rate"], rows
    return ["Metric", "Threshold", "Mean", "Pass rate"], rows


def _change_kind(summary: MetricSummary | None, delta: MetricDelta | None) -> str | None:
    """``removed``, ``new`` (no base value, a head value), or None: the change, or a dash when neither has one."""
    if summary is None:
        return "removed"
    if (delta is None or delta.base_mean is None) and summary.mean is not None:
        return "new"
    return None


def _pass_rate(summary: MetricSummary | None) -> str:
    if summary is None:
        return "–"
    graded = summary.passed + summary.failed
    parts = [f"{summary.passed / graded:.0%} ({summary.passed}/{graded})"] if graded else []
    if summary.not_evaluated:
        parts.append(f"{summary.not_evaluated} not evaluated")
    return ", ".join(parts) or "–"


def links(doc: ResultsDocument) -> str:
    run_url = doc.run.run_url
    if not run_url or not RUN_URL.match(run_url):
        return ""
    return f"[Workflow run]({run_url}) · [Artifacts]({run_url}#artifacts) (results.json, junit.xml, report.html)"


def footer(doc: ResultsDocument) -> str:
    facts = [  # inside <sub> in a paragraph GitHub still renders Markdown: every field is escaped as such
        f"runner {md.inline(doc.run.runner, limit=40)}" if doc.run.runner else None,
        f"agent {md.inline(doc.run.served_agent.label(), limit=80)}" if doc.run.served_agent else None,
        f"{runs_per_case(doc)} runs per case" if doc.run.num_runs > 1 else None,
        f"shard {md.inline(doc.run.shard, limit=20)}" if doc.run.shard else None,
        f"{doc.run.shards_merged} shards merged" if doc.run.shards_merged else None,
        f"adk-eval-gate {md.inline(doc.run.tool_version, limit=40)}" if doc.run.tool_version else None,
    ]
    return "<sub>" + ", ".join(f for f in facts if f) + "</sub>"

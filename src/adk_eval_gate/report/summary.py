"""``summary.md`` and the job summary: the comment's content with more detail: a Mermaid chart of the mean
score per metric (base versus head), informational metrics, the LLM judge's usage, every change against the
baseline, and the failing cases with what was expected and what the agent did. Pure: results in, Markdown out.

Kept under GitHub's 1 MiB step-summary limit by the same fixed order of dropping detail as the comment.
"""

from __future__ import annotations

import re

from adk_eval_gate import history as trend
from adk_eval_gate.github import limits
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report import sections
from adk_eval_gate.results import ResultsDocument

SUMMARY_LIMIT = limits.STEP_SUMMARY_BYTES
_MARGIN = 16_384
LEVELS = (
    sections.Detail(text_limit=5000, max_cases=None, max_changes=None),
    sections.Detail(text_limit=1000, max_cases=300, max_changes=1000),
    sections.Detail(text_limit=300, max_cases=150, max_changes=300),
    sections.Detail(text_limit=0, max_cases=1000, max_changes=100),
    sections.Detail(text_limit=0, max_cases=100, max_changes=50, max_metrics=100),
    sections.Detail(text_limit=0, max_cases=0, max_changes=0, max_metrics=30),
)
CHART_METRICS = 20


def _label(name: str) -> str:
    """A metric name safe inside a quoted Mermaid label."""
    return re.sub(r"[^A-Za-z0-9_. -]", "_", name)[:32] or "metric"


def _value(score: float | None) -> str:
    return md.score(score or 0.0)


def chart(doc: ResultsDocument) -> str:
    """A Mermaid xychart: bars for this run's mean score per metric, a line for the baseline's."""
    heads = {s.name: s.mean for s in doc.metrics if s.kind != "informational"}
    bases = {d.name: d.base_mean for d in doc.comparison.metrics} if doc.comparison else {}
    names = [name for name in heads if heads[name] is not None or bases.get(name) is not None][:CHART_METRICS]
    if not names:
        return ""
    values = [heads.get(n) or 0.0 for n in names] + [bases.get(n) or 0.0 for n in names]
    top = max(1.0, *values)
    lines = [
        "```mermaid",
        "xychart-beta",
        '    title "Mean score per metric"',
        "    x-axis [" + ", ".join(f'"{_label(n)}"' for n in names) + "]",
        f'    y-axis "score" 0 --> {md.score(top)}',
        "    bar [" + ", ".join(_value(heads.get(n)) for n in names) + "]",
    ]
    legend = "_Bars: this run._"
    if doc.comparison is not None:
        lines.append("    line [" + ", ".join(_value(bases.get(n)) for n in names) + "]")
        legend = "_Bars: this run; line: the baseline._"
    lines.append("```")
    return "\n".join(lines) + "\n\n" + legend


HISTORY_LINES = 6  # the pass rate and at most 5 metric means: more lines are unreadable in one chart


def history_chart(doc: ResultsDocument) -> str:
    """A Mermaid line chart of the suite over the base branch's history and this run: pass rate, metric means."""
    history = doc.comparison.history if doc.comparison else None
    if history is None or not history.runs:
        return ""
    points = [*history.runs, trend.point(doc)]
    labels = [f"run {p.run_number}" if p.run_number else (p.sha or "?")[:7] for p in history.runs] + ["this run"]
    series = [("pass rate", [p.pass_rate for p in points])]
    names = [name for name in points[-1].metric_means if any(p.metric_means.get(name) is not None for p in points)]
    series += [(name, [p.metric_means.get(name) for p in points]) for name in names[: HISTORY_LINES - 1]]
    lines = [
        "```mermaid",
        "xychart-beta",
        '    title "The base branch\'s last runs and this run"',
        "    x-axis [" + ", ".join(f'"{_label(label)}"' for label in labels) + "]",
        '    y-axis "score" 0 --> 1',
    ]
    lines += ["    line [" + ", ".join(_value(value) for value in values) + "]" for _, values in series]
    lines.append("```")
    key = "; ".join(f"line {number}: {md.code(name)}" for number, (name, _) in enumerate(series, start=1))
    return "\n".join(lines) + f"\n\n_Trend, oldest to newest ({key}); a missing value is drawn as 0._"


def efficiency_table(doc: ResultsDocument) -> str:
    rows = [
        [md.code(s.name, in_table=True), md.score(s.mean, digits=2)]
        for s in doc.metrics
        if s.kind == "informational" and s.mean is not None
    ]
    if not rows:
        return ""
    return md.table(["Efficiency (informational, per turn)", "Mean"], rows, align=["---", "--:"])


def judge_stats(doc: ResultsDocument) -> str:
    judge = doc.judge
    if judge is None:
        return ""
    parts = [f"{judge.calls:,} calls", f"{judge.cached:,} answered from the cache"]
    if judge.failed:
        parts.append(f"{judge.failed:,} failed")
    parts.append(f"{judge.input_tokens:,} input and {judge.output_tokens:,} output tokens")
    return "**LLM judge:** " + ", ".join(parts) + "."


def _file_errors(doc: ResultsDocument) -> str:
    broken = [f for f in doc.files if f.error]
    if not broken:
        return ""
    return "### Files that could not be evaluated\n\n" + "\n".join(
        f"- {md.code(f.path)}{':' + str(f.line) if f.line else ''}: {md.inline(f.error or '', limit=500)}"
        for f in broken
    )


def _new_and_removed(doc: ResultsDocument) -> str:
    if doc.comparison is None:
        return ""
    lines = []
    for kind, label in (("new", "New cases"), ("removed", "Removed cases")):
        ids = [c.case_id for c in doc.comparison.cases if c.kind == kind]
        if ids:
            shown = ", ".join(md.code(i, limit=160) for i in ids[:50])
            lines.append(f"**{label} ({len(ids)}):** {shown}{' …' if len(ids) > 50 else ''}")
    return "\n\n".join(lines)


def _render(doc: ResultsDocument, *, detail: sections.Detail, level: int, budget: int) -> str:
    cut = sections.Cut(text_limit=detail.text_limit if level and detail.text_limit else None)
    parts = [
        "## ADK eval results",
        sections.verdict_line(doc, gate_id=doc.run.gate_id) + "\n\n" + sections.baseline_line(doc),
        sections.differences(doc),
        sections.run_problems(doc),
        sections.metric_table(doc, limit=detail.max_metrics, cut=cut),
        chart(doc),
        history_chart(doc),
        efficiency_table(doc),
        judge_stats(doc),
        _file_errors(doc),
        sections.regressions(doc, limit=detail.max_changes, cut=cut, include_improvements=True, budget=budget),
        _new_and_removed(doc),
        sections.failing_cases(doc, detail=detail, cut=cut, budget=budget),
        sections.flaky_cases(doc, limit=detail.max_cases),
        sections.known_flaky_cases(doc, limit=detail.max_cases),
        sections.quarantined_cases(doc, limit=detail.max_cases),
        cut.sentence(where="GitHub's 1 MiB job-summary limit"),
        " · ".join(part for part in (sections.links(doc), sections.footer(doc)) if part),
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


def render(doc: ResultsDocument, *, limit: int = SUMMARY_LIMIT) -> str:
    """The summary, under ``limit`` bytes of UTF-8."""
    return sections.fit(
        LEVELS,
        lambda detail, level, budget: _render(doc, detail=detail, level=level, budget=budget),
        target=limit - _MARGIN if limit > 4 * _MARGIN else limit,
        in_bytes=True,
        note="\n\n✂️ _Cut at GitHub's job-summary limit; everything is in the results artifact._\n",
    )

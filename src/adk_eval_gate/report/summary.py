"""``summary.md`` and the job summary: the comment's content in the same words, and everything it has no room
for: Mermaid charts (scores per metric against the baseline and the threshold, the trend over the base branch's
history, cost per eval file), the informational metrics, cost and latency in full, the judge's usage, every
change with its interval, the improvements, more of each failing case, and the warnings of the eval files and
configs (what ADK lets pass, such as a misspelt criterion option). Pure: results in, Markdown out.

Kept under GitHub's 1 MiB step-summary limit by the same fixed order of dropping detail as the comment.
"""

from __future__ import annotations

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import carried, case_sections, change_sections, costs, limits, mermaid_charts, sections
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report.comment import header
from adk_eval_gate.report.headline import change_counts
from adk_eval_gate.report.judge_lines import judges_section
from adk_eval_gate.support.words import plural

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


WARNINGS_SHOWN = 20


def _file_warnings(doc: ResultsDocument) -> str:
    """What the eval files and configs have that ADK lets pass, and the gate with it (a misspelt criterion option
    changes how a case is scored): each warning once, though a shared config gives it to every file."""
    warnings = list(dict.fromkeys(warning for file in doc.files for warning in file.warnings))
    if not warnings:
        return ""
    lines = [f"- {md.breakable(warning, limit=300)}" for warning in warnings[:WARNINGS_SHOWN]]
    if len(warnings) > WARNINGS_SHOWN:
        lines.append(f"- … and {len(warnings) - WARNINGS_SHOWN} more (in results.json)")
    heading = f"**⚠️ {plural(len(warnings), 'warning')}** (ADK lets these pass, and so does the gate; check each one):"
    return heading + "\n" + "\n".join(lines)


def _efficiency_table(doc: ResultsDocument) -> str:
    rows = [
        [md.code(s.name, in_table=True), md.score(s.mean, digits=2)]
        for s in doc.metrics
        if s.kind == "informational" and s.mean is not None
    ]
    if not rows:
        return ""
    return md.table(["Efficiency (informational, per turn)", "Mean"], rows, align=["---", "--:"])


def _judge_stats(doc: ResultsDocument) -> str:
    judge = doc.judge
    if judge is None:
        return ""
    parts = [f"{judge.calls:,} calls", f"{judge.cached:,} answered from the cache"]
    if judge.failed:
        parts.append(f"{judge.failed:,} failed")
    parts.append(f"{judge.input_tokens:,} input and {judge.output_tokens:,} output tokens")
    if judge.implausible_counts:
        answers = plural(judge.implausible_counts, "answer")
        parts.append(f"{answers} with impossible token counts (negative or beyond any model's, clamped)")
    return "**LLM judge:** " + ", ".join(parts) + "."


def _calibration_spend(doc: ResultsDocument) -> str:
    """What calibrating the judges asked of them, apart from the evaluation's figures above."""
    spend = doc.calibration_judge
    if spend is None:
        return ""
    reused = f"{plural(spend.reused, 'judge')} unchanged, from the cache" if spend.reused else ""
    if not spend.calibrated:
        return f"**Judge calibration:** {reused or 'no judge metric in use'}, no calls."
    asked = (
        f"{spend.calls:,} calls, {spend.cached:,} answered from the cache, {spend.input_tokens:,} input and "
        f"{spend.output_tokens:,} output tokens"
    )
    return (
        f"**Judge calibration** (not counted in the judge's figures): {asked}" + (f"; {reused}" if reused else "") + "."
    )


def _render(doc: ResultsDocument, *, detail: sections.Detail, level: int, budget: int) -> str:
    cut = sections.Cut(text_limit=detail.text_limit if level and detail.text_limit else None)
    parts = [
        "## ADK eval results",
        *header(doc, gate_id=doc.run.gate_id),
        _file_warnings(doc),
        sections.metric_table(doc, limit=detail.max_metrics, cut=cut),
        mermaid_charts.metric_charts(doc),
        mermaid_charts.history_chart(doc),
        _efficiency_table(doc),
        costs.usage_table(doc),
        mermaid_charts.cost_chart(doc),
        costs.rising_cases(doc, limit=None),
        _judge_stats(doc),
        _calibration_spend(doc),
        judges_section(doc),
        change_sections.regressions(doc, limit=detail.max_changes, budget=budget, interval=True),
        change_sections.improvements(doc, limit=detail.max_changes, budget=budget),
        change_sections.new_and_removed(change_counts(doc)),
        case_sections.failing_cases(doc, detail=detail, budget=budget),
        case_sections.flaky_cases(doc, limit=detail.max_cases),
        case_sections.quarantined_cases(doc, limit=detail.max_cases),
        carried.carried_cases(doc, limit=detail.max_cases, budget=budget),
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

"""``summary.md``: the verdict, a per-metric table, then the failing cases with what was expected and what
the agent did, in collapsible sections. Pure: results in, Markdown out."""

from __future__ import annotations

from adk_eval_gate import results as r
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report import views

_ICON = {"passed": "✅", "failed": "❌", "error": "💥", "not_evaluated": "⚠️"}
_VERDICT = {"passed": "passed", "failed": "failed", "error": "could not evaluate everything"}


def verdict_line(doc: r.ResultsDocument) -> str:
    totals = doc.totals
    parts = [f"{totals.passed} passed", f"{totals.failed} failed"]
    if totals.error:
        parts.append(f"{totals.error} errors")
    if totals.not_evaluated:
        parts.append(f"{totals.not_evaluated} not evaluated")
    if totals.file_errors:
        parts.append(f"{totals.file_errors} file errors")
    icon = _ICON.get(doc.status, "❌")
    return f"{icon} **ADK eval gate {_VERDICT[doc.status]}**: {totals.cases} cases, " + ", ".join(parts)


def metric_table(doc: r.ResultsDocument) -> str:
    rows = []
    for summary in doc.metrics:
        if summary.kind == "informational":
            continue
        threshold = (
            md.score(summary.threshold)
            if summary.threshold is not None
            else (", ".join(md.score(t) for t in summary.thresholds) or "–")
        )
        rate = f"{summary.pass_rate:.0%}" if summary.pass_rate is not None else "–"
        rows.append(
            [
                md.code(summary.name, in_table=True),
                threshold,
                md.score(summary.mean),
                f"{rate} ({summary.passed}/{summary.cases})",
                str(summary.not_evaluated) if summary.not_evaluated else "",
            ]
        )
    if not rows:
        return "_No thresholded metrics._"
    return md.table(
        ["Metric", "Threshold", "Mean", "Pass rate", "Not evaluated"],
        rows,
        align=["---", "--:", "--:", "--:", "--:"],
    )


def efficiency_table(doc: r.ResultsDocument) -> str:
    rows = [
        [md.code(s.name, in_table=True), md.score(s.mean, digits=2)]
        for s in doc.metrics
        if s.kind == "informational" and s.mean is not None
    ]
    if not rows:
        return ""
    return md.table(["Efficiency (informational, per turn)", "Mean"], rows, align=["---", "--:"])


def case_body(case: r.CaseResult, *, text_limit: int = 2000) -> str:
    lines: list[str] = []
    if case.error:
        lines.append(f"**Error:** {md.inline(case.error, limit=text_limit)}")
    failing = views.failing_metrics(case)
    if failing:
        lines.append("\n".join(f"- {md.inline(views.failure_reason(m), limit=400)}" for m in failing))
    run = views.worst_run(case)
    if run is not None:
        if len(case.runs) > 1:
            lines.append(f"_Run {run.run} of {len(case.runs)} shown._")
        for turn in views.turns(run):
            lines.append(f"**Turn {turn.number}** – user: {md.inline(turn.user, limit=300)}")
            block = []
            if turn.expected_calls is not None:
                block.append("expected tools: " + (", ".join(turn.expected_calls) or "(none)"))
            if turn.actual_calls is not None:
                block.append("actual tools:   " + (", ".join(turn.actual_calls) or "(none)"))
            if turn.expected_answer is not None:
                block.append("expected answer: " + turn.expected_answer)
            if turn.actual_answer is not None:
                block.append("actual answer:   " + turn.actual_answer)
            if block:
                lines.append(md.code_block("\n".join(block), limit=text_limit))
    return "\n\n".join(lines)


def case_summary_line(case: r.CaseResult) -> str:
    icon = _ICON.get(case.status, "❌")
    return f"{icon} {md.summary_text(case.eval_id)} <sub>{md.summary_text(case.file, limit=200)}</sub>"


def render(doc: r.ResultsDocument) -> str:
    sections = [f"## ADK eval results\n\n{verdict_line(doc)}", metric_table(doc)]
    efficiency = efficiency_table(doc)
    if efficiency:
        sections.append(efficiency)
    file_errors = [f for f in doc.files if f.error]
    if file_errors:
        sections.append(
            "### Files that could not be evaluated\n\n"
            + "\n".join(
                f"- {md.code(f.path)}{':' + str(f.line) if f.line else ''}: {md.inline(f.error or '')}"
                for f in file_errors
            )
        )
    failing = [c for c in doc.cases if c.status != "passed"]
    if failing:
        sections.append(f"### Cases that did not pass ({len(failing)})")
        sections.extend(md.details(case_summary_line(case), case_body(case)) for case in failing)
    sections.append(
        "<sub>"
        + ", ".join(
            filter(
                None,
                [
                    f"runner {md.inline(doc.run.runner)}" if doc.run.runner else None,
                    f"{doc.run.num_runs} runs per case" if doc.run.num_runs > 1 else None,
                    f"shard {doc.run.shard}" if doc.run.shard else None,
                    f"adk-eval-gate {md.inline(doc.run.tool_version)}" if doc.run.tool_version else None,
                ],
            )
        )
        + "</sub>"
    )
    return "\n\n".join(sections) + "\n"

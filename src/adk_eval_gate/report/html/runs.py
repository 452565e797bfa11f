"""One run of a case in report.html: its turns side by side (user, tool calls, answers, timings and tokens), the
judge's explanations and rubric verdicts, the attempts run again, the notes and the captured log.

``RUN_PARTS`` lists the parts in order; each is a small function of the run, so a new part is one function.
"""

from __future__ import annotations

from collections.abc import Callable

from adk_eval_gate.metrics.efficiency import token_usage_of
from adk_eval_gate.model import compact
from adk_eval_gate.model.results import RunMetric, RunRecord
from adk_eval_gate.report.html.calls import calls_table
from adk_eval_gate.report.html.parts import (
    as_json,
    badge,
    count,
    element,
    key_values,
    number,
    pre,
    seconds,
    section,
    table,
    text,
)
from adk_eval_gate.report.views import TurnView, computed_by_label, turns
from adk_eval_gate.support.words import plural


def _timing(actual: compact.Turn | None) -> str:
    """The actual turn's wall time (model, tool) and its tokens over the model calls, when recorded."""
    if actual is None:
        return ""
    duration, model, tools = compact.timing(actual)
    tokens = token_usage_of(compact.usages(actual))
    parts = [
        ("time", seconds(duration)),
        ("model", seconds(model)),
        ("tools", seconds(tools)),
        ("input tokens", count(tokens.input_tokens)),
        ("output tokens", count(tokens.output_tokens)),
        ("cached tokens", count(tokens.cached_tokens)),
    ]
    shown = [element("span", f"{text(name)} {text(value)}") for name, value in parts if value is not None]
    return element("div", " · ".join(shown), cls="timing") if shown else ""


def _answer(title: str, answer: str | None, *, side: str) -> str:
    body = pre(answer, cls=f"answer {side}") if answer is not None else element("p", "—", cls="muted")
    return element("div", element("h6", text(title)) + body)


def _turn(turn: TurnView) -> str:
    expected_calls = compact.tool_calls(turn.expected)
    actual_calls = compact.tool_calls(turn.actual)
    comparable = turn.expected_answer is not None and turn.actual_answer is not None
    answers = element(
        "div",
        _answer("Expected answer", turn.expected_answer, side="expected")
        + _answer("Actual answer", turn.actual_answer, side="actual"),
        cls="answers",
        attrs={"data-diff": "words"} if comparable else None,
    )
    head = element("h5", f"Turn {turn.number}") + _timing(turn.actual)
    user = element("div", element("span", "User", cls="label") + pre(turn.user, cls="user"), cls="user-turn")
    return element("div", head + user + calls_table(expected_calls, actual_calls) + answers, cls="turn")


def _turns(run: RunRecord) -> str:
    views = turns(run)
    if not views:
        return ""
    return section("Turns: expected and actual", "".join(_turn(view) for view in views))


def _explained(metric: RunMetric) -> bool:
    return bool(metric.reason or metric.rubric_scores or metric.details)


def _rubrics(metric: RunMetric) -> str:
    rows = [
        [text(item.rubric_id), text(number(item.score)), text(item.rationale or "")]
        for item in metric.rubric_scores or []
    ]
    return table(["Rubric", "Verdict", "Rationale"], rows, cls="rubrics") if rows else ""


def _judge(run: RunRecord) -> str:
    """Per metric of the run: its score, the judge's reason, its rubric verdicts and its details."""
    blocks = []
    for metric in (m for m in run.metrics if _explained(m)):
        name = metric.name + computed_by_label(metric.name, metric.computed_by)
        head = element("div", text(name) + " " + badge(str(metric.status)) + " " + text(number(metric.score)))
        reason = pre(metric.reason, cls="reason") if metric.reason else ""
        details = ""
        if metric.details:
            details = element("details", element("summary", "details") + pre(as_json(metric.details)))
        blocks.append(element("div", head + reason + _rubrics(metric) + details, cls="explained"))
    return section("Judge explanations and rubric verdicts", "".join(blocks)) if blocks else ""


def _scores(run: RunRecord) -> str:
    if not run.metrics:
        return ""
    rows = [
        [text(m.name + computed_by_label(m.name, m.computed_by)), badge(str(m.status)), text(number(m.score))]
        for m in run.metrics
    ]
    return section("Scores of this run", table(["Metric", "Status", "Score"], rows))


def _notes(run: RunRecord) -> str:
    items = "".join(element("li", text(note)) for note in run.notes)
    return section("Notes", element("ul", items)) if items else ""


def _retries(run: RunRecord) -> str:
    """The attempts before the last, each with why it failed around the agent and was run again."""
    items = "".join(element("li", text(f"attempt {n}: {reason}")) for n, reason in enumerate(run.retries, start=1))
    return section(f"Retried {plural(len(run.retries), 'time')}", element("ul", items)) if items else ""


def _log(run: RunRecord) -> str:
    if not run.log:
        return ""
    return section(f"Captured log ({len(run.log)} lines)", pre("\n".join(run.log), cls="log"))


def _error(run: RunRecord) -> str:
    return section("Error", pre(run.error, cls="error")) if run.error else ""


RunPart = Callable[[RunRecord], str]
RUN_PARTS: tuple[RunPart, ...] = (_error, _retries, _scores, _turns, _judge, _notes, _log)


def run_block(run: RunRecord, *, of: int) -> str:
    """One run with its header (number, status, time, session) and every part that has something to show."""
    facts = key_values(
        [
            ("time", text(seconds(run.duration_seconds)) if run.duration_seconds is not None else None),
            ("session", text(run.session_id) if run.session_id else None),
        ]
    )
    title = element("h4", f"Run {run.run} of {of} " + badge(run.status))
    return element("div", title + facts + "".join(part(run) for part in RUN_PARTS), cls="run")

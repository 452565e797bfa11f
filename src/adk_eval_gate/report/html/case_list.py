"""The cases of report.html: one row per case (``COLUMNS``) and, when it is opened, its details (``SECTIONS``).

A new column is one ``Column`` (a header and a function of the case giving the ``Piece``s of its cell), a new
section one function of the case; both get the ``Context`` of the whole document (the comparison's changes, the
indexes the filters use). The rows are data the page's script builds (``case_rows``), the details escaped HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adk_eval_gate.model.results import CaseResult, Effect, MetricChange, MetricResult, MetricStatus, ResultsDocument
from adk_eval_gate.report.html.parts import (
    STATUS_LABELS,
    badge,
    badge_class,
    element,
    key_values,
    number,
    plain,
    pre,
    section,
    table,
    text,
)
from adk_eval_gate.report.html.runs import run_block
from adk_eval_gate.report.views import computed_by_label


@dataclass
class Context:
    """What the rows and sections need from the whole document, looked up once."""

    doc: ResultsDocument
    files: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    changes: dict[str, list[MetricChange]] = field(default_factory=dict)
    file_index: dict[str, int] = field(default_factory=dict)
    metric_index: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, doc: ResultsDocument) -> Context:
        context = cls(doc=doc)
        context.files = sorted({case.file for case in doc.cases})
        context.metrics = list(dict.fromkeys(m.name for case in doc.cases for m in case.metrics))
        context.file_index = {name: number for number, name in enumerate(context.files)}
        context.metric_index = {name: number for number, name in enumerate(context.metrics)}
        for change in doc.comparison.changes if doc.comparison else []:
            context.changes.setdefault(change.case_id, []).append(change)
        return context


@dataclass(frozen=True)
class Piece:
    """A part of a row's cell: text the script shows as text, in a ``<span>`` of ``cls`` (with ``title``) or bare."""

    text: str
    cls: str = ""
    title: str = ""


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[CaseResult, Context], list[Piece]]
    cls: str = ""


def _badge(status: str) -> Piece:
    return Piece(STATUS_LABELS.get(status, status), badge_class(status))


def _status(case: CaseResult, context: Context) -> list[Piece]:
    """Its status; a quarantined case is quarantined first (it never fails the gate), then what it did."""
    carried = [Piece("carried", "muted")] if case.carried is not None else []
    if case.quarantined:
        return [_badge("quarantined"), Piece(STATUS_LABELS[case.status], "muted"), *carried]
    return [_badge(case.status), *carried]


def _name(case: CaseResult, context: Context) -> list[Piece]:
    where = f"{case.file}:{case.line}" if case.line else case.file
    return [Piece(case.label, "eval-id"), Piece(where, "where")]


def _threshold(metric: MetricResult) -> str:
    """``0.5``, or ``0.5 (lower is better)`` for a metric that passes at or below it."""
    return number(metric.threshold) + (" (lower is better)" if metric.lower_is_better else "")


def _metric_chip(metric: MetricResult) -> Piece:
    threshold = f" / {_threshold(metric)}" if metric.threshold is not None else ""
    return Piece(f"{metric.name} {number(metric.score)}{threshold}", f"chip s-{metric.status}", str(metric.status))


def _metrics(case: CaseResult, context: Context) -> list[Piece]:
    return [_metric_chip(metric) for metric in case.metrics] or [Piece("no metrics", "muted")]


def _runs(case: CaseResult, context: Context) -> list[Piece]:
    """``3/5 passed flaky``: the runs the verdict counted as passed (``runs_passed``), and its stability."""
    if len(case.runs) < 2:
        return []
    passed = case.runs_passed or 0
    stability = f" {case.stability}" if case.stability else ""
    return [Piece(f"{passed}/{len(case.runs)} passed{stability}")]


def _change(case: CaseResult, context: Context) -> list[Piece]:
    kinds = [change.kind for change in context.changes.get(case.id, [])]
    shown = [f"{kinds.count(kind)} {kind}" for kind in ("regressed", "improved", "new", "removed") if kind in kinds]
    return [Piece(", ".join(shown))] if shown else []


COLUMNS: tuple[Column, ...] = (
    Column("Status", _status, "c-status"),
    Column("Case", _name, "c-case"),
    Column("Metrics (score / threshold)", _metrics, "c-metrics"),
    Column("Runs", _runs, "c-runs"),
    Column("Against the baseline", _change, "c-change"),
)


def _case_error(case: CaseResult, context: Context) -> str:
    return section("Error", pre(case.error, cls="error")) if case.error else ""


def _findings(case: CaseResult, context: Context) -> str:
    """What the verdict found: why the case has its status (a failed budget, a metric, the pass rule), and what
    it noted (its confirmation re-runs)."""
    found = [finding for finding in case.findings if finding.rule != "error"]
    if not found:
        return ""
    items = "".join(
        element(
            "li", badge(finding.effect if finding.effect != Effect.NONE else "informational") + text(finding.reason)
        )
        for finding in found
    )
    title = (
        "Why it is "
        + STATUS_LABELS[case.status]
        + (" (quarantined: it does not fail the gate)" if case.quarantined else "")
    )
    return section(title, element("ul", items, cls="findings"))


def _metric_table(case: CaseResult, context: Context) -> str:
    rows = [
        [
            text(m.name),
            text(m.kind + computed_by_label(m.name, m.computed_by)),
            badge(str(m.status)),
            text(number(m.score)),
            text(_threshold(m)),
            text(", ".join(number(score) for score in m.run_scores)),
            text(number(m.stdev)),
            text(m.reason or ""),
        ]
        for m in case.metrics
    ]
    header = ["Metric", "Kind", "Status", "Score", "Threshold", "Run scores", "Spread", "Why not evaluated"]
    return section("Metrics", table(header, rows)) if rows else ""


def _baseline_changes(case: CaseResult, context: Context) -> str:
    rows = [
        [
            text(c.metric),
            text(c.kind),
            text(number(c.base)),
            text(number(c.head)),
            text(number(c.delta)),
            text(c.significance or ""),
        ]
        for c in context.changes.get(case.id, [])
    ]
    header = ["Metric", "Change", "Base", "Head", "Delta", "Noise check"]
    return section("Against the baseline", table(header, rows)) if rows else ""


def _runs_detail(case: CaseResult, context: Context) -> str:
    return "".join(run_block(run, of=len(case.runs)) for run in case.runs)


Section = Callable[[CaseResult, Context], str]


def _sequential(case: CaseResult, context: Context) -> str:
    """``--sequential``: the case's decision, the runs it read, its e-values and its anytime interval."""
    sequential = case.sequential
    if sequential is None:
        return ""
    low, high = sequential.interval
    pairs = [
        ("Decision", sequential.decision or "none: its runs stopped before one"),
        ("Runs read", str(sequential.runs)),
        ("Evidence for a pass (e-value)", number(sequential.e_pass)),
        ("Evidence for a failure (e-value)", number(sequential.e_fail)),
        (f"Interval of {sequential.metric}", f"{number(low)} to {number(high)}"),
        ("Mean, threshold", f"{number(sequential.mean)}, {number(sequential.threshold)}"),
    ]
    return section("Sequential verdict", key_values((key, text(value)) for key, value in pairs))


def _carried_from(case: CaseResult, context: Context) -> str:
    """--only-affected: nothing the case depends on changed, so its result is the base run's."""
    if case.carried is None:
        return ""
    origin = case.carried
    where = origin.description + (f" @ {origin.sha[:12]}" if origin.sha else "")
    body = element("p", text(f"Not run again: nothing it depends on changed. The result is that of {where}."))
    return section("Carried from the base run", body)


SECTIONS: tuple[Section, ...] = (
    _carried_from,
    _case_error,
    _findings,
    _sequential,
    _metric_table,
    _baseline_changes,
    _runs_detail,
)


def case_details(case: CaseResult, context: Context) -> str:
    return "".join(part(case, context) for part in SECTIONS) or element("p", "Nothing recorded.", cls="muted")


def header_row() -> str:
    cells = "".join(element("span", text(column.header), cls=f"cell {column.cls}") for column in COLUMNS)
    return element("div", cells, cls="row head")


# A row of ``case_rows``: what the filters read, then the cells (in the order of ``COLUMNS``).
ROW_FIELDS = ("status", "file", "metrics", "failing", "name", "cells")


def _filtered_by(case: CaseResult, context: Context) -> list[object]:
    """What the filters read: the status (quarantined apart), the file's and metrics' indexes in the lists the
    filters show, the metrics that did not pass, and the case's id in lower case (the search), uncut."""
    not_passing = [m for m in case.metrics if m.status in (MetricStatus.FAILED, MetricStatus.NOT_EVALUATED)]
    return [
        "quarantined" if case.quarantined else str(case.status),
        context.file_index[case.file],
        [context.metric_index[m.name] for m in case.metrics],
        [context.metric_index[m.name] for m in not_passing],
        plain(case.id.lower(), limit=None),
    ]


def case_rows(cases: list[CaseResult], context: Context) -> dict[str, Any]:
    """The case list as data for the page's script, which builds the rows (``<details>`` with the cells as their
    summary) and shows every piece's text as text. A row is ``ROW_FIELDS``; a cell is a list of pieces, each a
    string (bare text) or ``[text, style]``, ``style`` an index in ``styles``: ``[class, title]`` pairs, each
    written once. Every text goes through ``plain`` here (revealed and cut) and nowhere else."""
    styles: dict[tuple[str, str], int] = {}

    def encoded(piece: Piece) -> str | list[object]:
        shown = plain(piece.text)
        if not piece.cls and not piece.title:
            return shown
        return [shown, styles.setdefault((piece.cls, piece.title), len(styles))]

    rows = [
        [*_filtered_by(case, context), [[encoded(p) for p in column.cell(case, context)] for column in COLUMNS]]
        for case in cases
    ]
    columns = [f"cell {column.cls}" for column in COLUMNS]
    return {"columns": columns, "styles": [list(style) for style in styles], "rows": rows}

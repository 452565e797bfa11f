"""The cases of report.html: one row per case (``COLUMNS``) and, when it is opened, its details (``SECTIONS``).

A new column is one ``Column`` (a header and a function of the case), a new section one function of the case;
both get the ``Context`` of the whole document (the comparison's changes, the indexes the filters use).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from adk_eval_gate.model.results import CaseResult, MetricChange, MetricResult, ResultsDocument
from adk_eval_gate.model.results_base import CaseStatus, Effect, MetricStatus
from adk_eval_gate.report.html.parts import STATUS_LABELS, badge, element, number, pre, section, table, text
from adk_eval_gate.report.html.runs import run_block


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
class Column:
    header: str
    cell: Callable[[CaseResult, Context], str]  # escaped HTML
    cls: str = ""


def _status(case: CaseResult, context: Context) -> str:
    """Its status; a quarantined case is quarantined first (it never fails the gate), then what it did."""
    if case.quarantined:
        return badge("quarantined") + element("span", text(STATUS_LABELS[case.status]), cls="muted") + _carried(case)
    return badge(case.status) + _carried(case)


def _carried(case: CaseResult) -> str:
    return element("span", "carried", cls="muted") if case.carried is not None else ""


def _name(case: CaseResult, context: Context) -> str:
    where = f"{case.file}:{case.line}" if case.line else case.file
    return element("span", text(case.label), cls="eval-id") + element("span", text(where), cls="where")


def _metric_chip(metric: MetricResult) -> str:
    threshold = f" / {number(metric.threshold)}" if metric.threshold is not None else ""
    label = f"{metric.name} {number(metric.score)}{threshold}"
    return element("span", text(label), cls=f"chip s-{metric.status}", attrs={"title": text(str(metric.status))})


def _metrics(case: CaseResult, context: Context) -> str:
    return "".join(_metric_chip(metric) for metric in case.metrics) or element("span", "no metrics", cls="muted")


def _runs(case: CaseResult, context: Context) -> str:
    if len(case.runs) < 2:
        return ""
    passed = (
        case.runs_passed if case.runs_passed is not None else sum(run.status == CaseStatus.PASSED for run in case.runs)
    )
    stability = f" {case.stability}" if case.stability else ""
    return text(f"{passed}/{len(case.runs)} passed{stability}")


def _change(case: CaseResult, context: Context) -> str:
    kinds = [change.kind for change in context.changes.get(case.id, [])]
    shown = [f"{kinds.count(kind)} {kind}" for kind in ("regressed", "improved", "new", "removed") if kind in kinds]
    return text(", ".join(shown))


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
            text(m.kind),
            badge(str(m.status)),
            text(number(m.score)),
            text(number(m.threshold)),
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
    _metric_table,
    _baseline_changes,
    _runs_detail,
)


def case_details(case: CaseResult, context: Context) -> str:
    return "".join(part(case, context) for part in SECTIONS) or element("p", "Nothing recorded.", cls="muted")


def header_row() -> str:
    cells = "".join(element("span", text(column.header), cls=f"cell {column.cls}") for column in COLUMNS)
    return element("div", cells, cls="row head")


def case_row(case: CaseResult, *, index: int, context: Context) -> str:
    """The case's ``<details>``: the columns as its summary, an empty body that the script fills when it opens.

    The data attributes are what the filters read: the status, the file's and metrics' indexes in the lists
    the page's filters show, and the metrics that did not pass.
    """
    cells = "".join(element("span", column.cell(case, context), cls=f"cell {column.cls}") for column in COLUMNS)
    metrics = " ".join(str(context.metric_index[m.name]) for m in case.metrics)
    not_passing = [m for m in case.metrics if m.status in (MetricStatus.FAILED, MetricStatus.NOT_EVALUATED)]
    failing = " ".join(str(context.metric_index[m.name]) for m in not_passing)
    attributes = {
        "id": f"case-{index}",
        "data-index": str(index),
        "data-status": "quarantined" if case.quarantined else case.status,
        "data-file": str(context.file_index[case.file]),
        "data-metrics": metrics,
        "data-failing": failing,
        "data-name": text(case.id.lower(), limit=None),
    }
    body = element("div", "", cls="case-body")
    return element("details", element("summary", cells, cls="row") + body, cls="case", attrs=attributes)

"""The charts of report.html, drawn as inline SVG (no library, nothing loaded): the mean score per metric with
its threshold, this run against the baseline when there is a comparison, and the cases by status."""

from __future__ import annotations

from dataclasses import dataclass

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report.html.parts import element, number, text

WIDTH = 760
LABEL_WIDTH = 250
BAR_WIDTH = 380
LABEL_CHARS = 36
STATUS_ORDER = ("passed", "failed", "error", "not_evaluated")


@dataclass(frozen=True)
class _Bar:
    name: str
    head: float | None
    base: float | None
    thresholds: list[float]


def _bars(doc: ResultsDocument) -> list[_Bar]:
    base_means = {m.name: m.base_mean for m in doc.comparison.metrics} if doc.comparison else {}
    bars = []
    for summary in doc.metrics:
        if summary.kind == "informational":
            continue
        thresholds = summary.thresholds or ([summary.threshold] if summary.threshold is not None else [])
        bars.append(_Bar(summary.name, summary.mean, base_means.get(summary.name), thresholds))
    return bars


def _label(name: str, y: float) -> str:
    shown = name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"
    title = element("title", text(name))
    return f'<text x="{LABEL_WIDTH - 8}" y="{y:.1f}" text-anchor="end" class="label">{title}{text(shown)}</text>'


def _rect(*, x: float, y: float, width: float, height: float, cls: str, title: str = "") -> str:
    tooltip = element("title", text(title)) if title else ""
    box = f'x="{x:.1f}" y="{y:.1f}" width="{max(width, 0):.1f}" height="{height:.1f}"'
    return f'<rect {box} class="{cls}">{tooltip}</rect>'


def _row(bar: _Bar, *, y: float, scale: float, compared: bool) -> str:
    def x(value: float) -> float:
        return LABEL_WIDTH + BAR_WIDTH * min(value, scale) / scale

    parts = [_label(bar.name, y + 13)]
    if bar.head is not None:
        parts.append(_rect(x=LABEL_WIDTH, y=y + 2, width=x(bar.head) - LABEL_WIDTH, height=14, cls="bar head"))
    value = f"{number(bar.head)}" + (f" (base {number(bar.base)})" if compared else "")
    parts.append(f'<text x="{LABEL_WIDTH + BAR_WIDTH + 8}" y="{y + 13:.1f}" class="value">{text(value)}</text>')
    if compared and bar.base is not None:
        parts.append(_rect(x=LABEL_WIDTH, y=y + 18, width=x(bar.base) - LABEL_WIDTH, height=7, cls="bar base"))
    for threshold in bar.thresholds:
        at = x(threshold)
        tick = f'<line x1="{at:.1f}" x2="{at:.1f}" y1="{y:.1f}" y2="{y + 27:.1f}" class="threshold">'
        parts.append(tick + element("title", text(f"threshold {number(threshold)}")) + "</line>")
    return "".join(parts)


def _legend(*, y: float, compared: bool) -> str:
    items = [("bar head", "this run"), ("threshold", "threshold")]
    if compared:
        items.insert(1, ("bar base", "baseline"))
    parts, x = [], LABEL_WIDTH
    for cls, label in items:
        if cls == "threshold":
            parts.append(f'<line x1="{x + 5}" x2="{x + 5}" y1="{y - 10}" y2="{y + 2}" class="threshold"/>')
        else:
            parts.append(_rect(x=x, y=y - 10, width=12, height=12, cls=f"{cls} key"))
        parts.append(f'<text x="{x + 16}" y="{y}" class="legend">{text(label)}</text>')
        x += 30 + 8 * len(label)
    return "".join(parts)


def score_chart(doc: ResultsDocument) -> str:
    """Mean score per metric (bars) with its thresholds (ticks), and the baseline's means with a comparison."""
    bars = _bars(doc)
    if not bars:
        return ""
    compared = doc.comparison is not None
    values = [value for bar in bars for value in (bar.head, bar.base, *bar.thresholds) if value is not None]
    scale = max([1.0, *values])
    row_height = 32 if compared else 24
    height = 40 + row_height * len(bars)
    rows = "".join(_row(bar, y=10 + i * row_height, scale=scale, compared=compared) for i, bar in enumerate(bars))
    axis = f'<line x1="{LABEL_WIDTH}" x2="{LABEL_WIDTH}" y1="6" y2="{height - 26}" class="axis"/>'
    title = "Mean score per metric" + (": this run and the baseline" if compared else "")
    svg = (
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}">'
        f"{element('title', text(title))}{axis}{rows}{_legend(y=height - 8, compared=compared)}</svg>"
    )
    return element("figure", element("figcaption", text(title)) + svg, cls="chart-box")


def status_chart(doc: ResultsDocument) -> str:
    """The cases by status, as one stacked bar: the verdict's totals, quarantined cases apart."""
    totals = doc.totals
    counts = [(status, getattr(totals, status)) for status in STATUS_ORDER] + [("quarantined", totals.quarantined)]
    total = sum(n for _, n in counts)
    if not total:
        return ""
    parts, x = [], 0.0
    for status, n in counts:
        if n:
            width = (WIDTH - 20) * n / total
            cls = f"st s-{status if status != 'quarantined' else 'other'}"
            parts.append(_rect(x=10 + x, y=8, width=width, height=20, cls=cls, title=f"{status}: {n}"))
            x += width
    legend = " · ".join(f"{status.replace('_', ' ')} {n}" for status, n in counts if n)
    svg = (
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} 36" width="{WIDTH}" height="36">'
        f"{element('title', text('Cases by status'))}{''.join(parts)}</svg>"
    )
    return element("figure", element("figcaption", text(f"Cases by status: {legend}")) + svg, cls="chart-box")

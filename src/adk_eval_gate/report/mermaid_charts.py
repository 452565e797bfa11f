"""Mermaid charts for the job summary (GitHub renders ``mermaid`` code blocks): the mean score per metric, base
and head side by side with the threshold drawn; the trend over the base branch's history; the cost of one pass
per eval file. Labels are short keys (``M1 base``) so they never clip, explained with their values in a table
below each chart; at most ``PER_CHART`` metrics or files per chart. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adk_eval_gate.compare import history as trend
from adk_eval_gate.model.results import MetricSummary, ResultsDocument
from adk_eval_gate.report import markdown as md
from adk_eval_gate.support.words import money

PER_CHART = 6
MAX_CHARTS = 8  # metrics are charted by threshold; the rest are in the metric table
WIDTH = 700  # px: fits a pull-request comment's 850 px and the job summary
BASE, HEAD, THRESHOLD = "#8c959f", "#0969da", "#cf222e"
TREND_COLOURS = (
    ("blue", "#0969da"),
    ("orange", "#bc4c00"),
    ("green", "#1a7f37"),
    ("purple", "#8250df"),
    ("red", "#cf222e"),
    ("grey", "#6e7781"),
)


@dataclass(frozen=True)
class Series:
    kind: str  # "bar" or "line"
    values: list[float]


def _number(value: float) -> str:
    return f"{value:.4g}"


def chart(
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    *,
    y_label: str,
    colours: Sequence[str],
    scores: bool = True,
) -> str:
    """One ``xychart-beta`` block; ``labels`` and ``title`` must already be safe (they are ours, never a user's).
    A score axis starts at 0 and reaches at least 1."""
    values = [value for s in series for value in s.values]
    top = max([1.0, *values]) if scores else max([*values, 1e-9]) * 1.1
    lines = [
        "```mermaid",
        "---",
        "config:",
        "  xyChart:",
        f"    width: {WIDTH}",
        "    height: 320",
        "  themeVariables:",
        "    xyChart:",
        f'      plotColorPalette: "{", ".join(colours)}"',
        "---",
        "xychart-beta",
        f'    title "{title}"',
        "    x-axis [" + ", ".join(f'"{label}"' for label in labels) + "]",
        f'    y-axis "{y_label}" 0 --> {_number(top * 1.05 if scores and top > 1 else top)}',
    ]
    lines += [f"    {s.kind} [" + ", ".join(_number(v) for v in s.values) + "]" for s in series]
    return "\n".join([*lines, "```"])


def _graded(doc: ResultsDocument) -> list[MetricSummary]:
    return [s for s in doc.metrics if s.kind != "informational"]


def _thresholds(summary: MetricSummary) -> tuple[float, ...]:
    return tuple(summary.thresholds) if summary.thresholds else (summary.threshold,) if summary.threshold else ()


def metric_charts(doc: ResultsDocument) -> str:
    """Per group of metrics that share their threshold: base and head bars side by side (head only without a
    baseline), the threshold as a flat line (so a line never slopes from one metric's threshold to the next),
    and the key with every value; metrics without a score this run are named under the charts."""
    bases = {d.name: d.base_mean for d in doc.comparison.metrics} if doc.comparison else {}
    scored = [s for s in _graded(doc) if s.mean is not None]
    by_threshold: dict[tuple[float, ...], list[MetricSummary]] = {}
    for summary in scored:
        by_threshold.setdefault(_thresholds(summary), []).append(summary)
    groups = [own[i : i + PER_CHART] for own in by_threshold.values() for i in range(0, len(own), PER_CHART)]
    shown = groups[:MAX_CHARTS]
    blocks, start = [], 0
    for group in shown:
        blocks.append(_metric_chart(group, start, bases, compared=doc.comparison is not None))
        start += len(group)
    unscored = [s.name for s in _graded(doc) if s.mean is None]
    if unscored:
        names = ", ".join(md.code(name, limit=60) for name in unscored)
        blocks.append(f"_Not evaluated in this run (no score to chart): {names}._")
    if len(scored) > start:
        blocks.append(f"_{len(scored) - start} more metrics are in the table above._")
    return "\n\n".join(blocks)


@dataclass(frozen=True)
class _Bars:
    """The bars of a chart: its x-axis labels, its bar series and their colours, and the words of its legend."""

    labels: list[str]
    series: list[Series]
    colours: list[str]
    legend: str


def _bars(entries: Sequence[tuple[str, float | None, float]], *, compared: bool) -> _Bars:
    """``entries``: (key, base, head). With a baseline, each entry's base bar (``b``) beside its head bar (``h``),
    an entry the baseline has no figure for with its head bar alone; without one, or when the baseline has no
    figure for any entry, no base series at all (never an empty bar for a base that does not exist)."""
    based = compared and any(base is not None for _, base, _ in entries)
    labels: list[str] = []
    base_bars: list[float] = []
    head_bars: list[float] = []
    for key, base, head in entries:
        if based and base is not None:
            labels += [f"{key} b", f"{key} h"]
            base_bars += [base, 0.0]
            head_bars += [0.0, head]
        else:
            labels.append(f"{key} h" if based else key)
            base_bars.append(0.0)
            head_bars.append(head)
    if based:
        return _Bars(
            labels,
            [Series("bar", base_bars), Series("bar", head_bars)],
            [BASE, HEAD],
            "b, grey bars: base; h, blue bars: this run",
        )
    legend = "bars: this run" + (" (the baseline has no figure for them)" if compared else "")
    return _Bars(labels, [Series("bar", head_bars)], [HEAD], legend)


_CHART_NAME = re.compile(r"[A-Za-z0-9_.-]{1,60}")  # a metric name safe in a Mermaid title as it is


def _metric_title(group: list[MetricSummary], start: int) -> str:
    """``Mean score of response_match_score (M2)`` for one metric (its name when it is plain, else its key only),
    ``Mean score per metric (M1-M3)`` for several."""
    if len(group) > 1:
        return f"Mean score per metric (M{start + 1}-M{start + len(group)})"
    name = group[0].name
    return f"Mean score of {name} (M{start + 1})" if _CHART_NAME.fullmatch(name) else f"Mean score of M{start + 1}"


def _metric_chart(group: list[MetricSummary], start: int, bases: dict[str, float | None], *, compared: bool) -> str:
    """The metrics of ``group`` share their thresholds: each is one flat line across the chart."""
    entries = []
    rows = []
    for number, summary in enumerate(group, start=start + 1):
        key, base = f"M{number}", bases.get(summary.name)
        entries.append((key, base, summary.mean or 0.0))
        rows.append(
            [key, md.breakable(summary.name, limit=80), ", ".join(md.score(t) for t in _thresholds(summary)) or "–"]
            + ([md.score(base)] if compared else [])
            + [md.score(summary.mean)]
        )
    bars = _bars(entries, compared=compared)
    thresholds = _thresholds(group[0])
    series = [*bars.series, *(Series("line", [threshold] * len(bars.labels)) for threshold in thresholds)]
    lines = (
        f"red line: threshold {md.score(thresholds[0])}"
        if len(thresholds) == 1
        else f"red lines: thresholds {', '.join(md.score(t) for t in thresholds)} (the eval files differ)"
        if thresholds
        else "no threshold"
    )
    header = ["Key", "Metric", "Threshold", *(["Base"] if compared else []), "Head"]
    table = md.table(header, rows, align=["---", "---"] + ["--:"] * (len(header) - 2))
    colours = [*bars.colours, *[THRESHOLD] * len(thresholds)]
    body = chart(_metric_title(group, start), bars.labels, series, y_label="score", colours=colours)
    return body + f"\n\n_{bars.legend}; {lines}._\n\n" + table


def history_chart(doc: ResultsDocument) -> str:
    """The suite's pass rate and metric means over the base branch's last runs and this run."""
    history = doc.comparison.history if doc.comparison else None
    if history is None or not history.runs:
        return ""
    points = [*history.runs, trend.point(doc)]
    labels = [f"run {p.run_number}" if p.run_number else f"base {i}" for i, p in enumerate(history.runs, 1)]
    labels.append("this run")
    named = [("pass rate", [p.pass_rate for p in points])]
    means = [name for name in points[-1].metric_means if any(p.metric_means.get(name) is not None for p in points)]
    named += [(name, [p.metric_means.get(name) for p in points]) for name in means[: len(TREND_COLOURS) - 1]]
    series = [Series("line", [value or 0.0 for value in values]) for _, values in named]
    colours = [colour for _, colour in TREND_COLOURS[: len(series)]]
    body = chart("The base branch's last runs and this run", labels, series, y_label="score", colours=colours)
    key = ", ".join(
        f"{colour}: {md.code(name, limit=60)}" for (colour, _), (name, _) in zip(TREND_COLOURS, named, strict=False)
    )
    return body + f"\n\n_Oldest to newest; {key} (a missing value is drawn at 0)._"


def cost_chart(doc: ResultsDocument) -> str:
    """The cost of one pass over each eval file, base and head side by side."""
    files = [f for f in (doc.usage.files if doc.usage else []) if f.cost_usd is not None][: PER_CHART * 2]
    if not files:
        return ""
    compared = doc.comparison.usage if doc.comparison else None
    bases = {f.path: f.cost_usd for f in compared.base_files} if compared else None
    entries, rows = [], []
    for number, file in enumerate(files, start=1):
        base = bases.get(file.path) if bases is not None else None
        entries.append((f"F{number}", base, file.cost_usd or 0.0))
        rows.append(
            [f"F{number}", md.breakable(file.path, limit=160)]
            + ([money(base)] if bases is not None else [])
            + [money(file.cost_usd)]
        )
    bars = _bars(entries, compared=bases is not None)
    body = chart(
        "Cost of one pass per eval file (USD)",
        bars.labels,
        bars.series,
        y_label="USD",
        colours=bars.colours,
        scores=False,
    )
    header = ["Key", "Eval file", *(["Base"] if bases is not None else []), "Head"]
    table = md.table(header, rows, align=["---", "---"] + ["--:"] * (len(header) - 2))
    return body + f"\n\n_{bars.legend}._\n\n" + table

"""The changes against the baseline, in the comment and the summary: the regressions (significant or single run
first, then those within noise, then those not comparable), grouped by eval file with the case's id in a cell
that wraps, never a long code span; the summary adds the improvements. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from adk_eval_gate.model.results import MetricChange, ResultsDocument, case_label
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report.headline import ChangeCounts, change_counts, drop_words
from adk_eval_gate.report.sections import change_text, within
from adk_eval_gate.support.words import plural

_SIGNIFICANCE = {"significant": "significant", "noise": "within noise", "untested": "single run"}
_HEADER = ["Case", "Metric", "Base", "Head", "Change", "Noise check"]
_ALIGN = ["---", "---", "--:", "--:", "--:", "---"]


def significance_text(significance: str | None, noise: str | None) -> str:
    """``within noise (history)``: a change's noise check and the model that decided it, in the reports' words."""
    text = _SIGNIFICANCE.get(significance or "", "–")
    return text + f" ({noise})" if noise in ("history", "anytime") else text


def _noise_text(change: MetricChange, *, interval: bool = False) -> str:
    if not change.comparable:
        return "not comparable"
    text = significance_text(change.significance, change.noise)
    if interval and change.interval:
        text += f" [{md.score(change.interval[0])}, {md.score(change.interval[1])}]"
    return text


def _file_of(change: MetricChange) -> str:
    return change.case_id.rsplit("::", 1)[0]


def _row(change: MetricChange, known_flaky: frozenset[str], *, interval: bool) -> str:
    file, _, eval_id = change.case_id.rpartition("::")
    flaky = " · known flaky" if change.case_id in known_flaky else ""
    cells = [
        md.breakable(case_label(file, eval_id), limit=120) + flaky,
        md.breakable(change.metric, limit=80),
        md.score(change.base),
        md.score(change.head),
        change_text(change.delta),
        _noise_text(change, interval=interval),
    ]
    return "| " + " | ".join(cells) + " |"


def _grouped_table(
    changes: Sequence[MetricChange], *, known_flaky: frozenset[str], budget: int | None, interval: bool = False
) -> str:
    """One table per eval file (in the order they first appear), its path above it."""
    blocks = []
    for path, own in groupby(sorted(changes, key=_file_of), key=_file_of):
        header = md.table(_HEADER, [], align=_ALIGN)
        rows = [_row(change, known_flaky, interval=interval) for change in own]
        blocks.append(f"**{md.breakable(path, limit=200)}**\n\n" + "\n".join([header, *rows]))
    return "\n\n".join(within(blocks, budget))


def _capped(changes: list[MetricChange], limit: int | None) -> list[MetricChange]:
    """The first ``limit`` changes; the section says how many more there are."""
    return changes if limit is None else changes[:limit]


def regressions(doc: ResultsDocument, *, limit: int | None, budget: int | None = None, interval: bool = False) -> str:
    """A collapsed section; its heading has the comparison line's counts."""
    counts = change_counts(doc)
    if counts is None or not (counts.drops or counts.flips):
        return ""
    flaky = known_flaky(doc)
    parts = []
    if counts.flips:
        names = ", ".join(md.breakable(f.case_id.rsplit("::", 1)[-1], limit=80) for f in counts.flips[:20])
        more = f" and {len(counts.flips) - 20} more" if len(counts.flips) > 20 else ""
        parts.append(f"Passed on the base branch, do not pass now: {names}{more}.")
    remaining = limit
    for title, listed in (
        ("", counts.regressions),
        ("Within noise", counts.noisy),
        ("Not comparable", counts.incomparable),
    ):
        shown = _capped(listed, remaining)
        remaining = None if remaining is None else max(0, remaining - len(shown))
        if shown:
            table = _grouped_table(shown, known_flaky=flaky, budget=budget, interval=interval)
            parts.append(f"**{title}** ({len(listed)})\n\n{table}" if title else table)
        if len(shown) < len(listed):
            parts.append(
                f"_… and {len(listed) - len(shown)} more {title.lower() or 'regressions'}: see the job summary._"
            )
    first, *rest = drop_words(counts)
    summary = " · ".join([f"<strong>{first}</strong>", *rest])
    return md.details(summary, "\n\n".join(parts))


def improvements(doc: ResultsDocument, *, limit: int | None, budget: int | None = None) -> str:
    counts = change_counts(doc)
    if counts is None or not counts.improvements:
        return ""
    shown = _capped(counts.improvements, limit)
    table = _grouped_table(shown, known_flaky=frozenset(), budget=budget, interval=True)
    if len(shown) < len(counts.improvements):
        table += f"\n\n_… and {len(counts.improvements) - len(shown)} more: see the results artifact._"
    return md.details(f"<strong>{plural(len(counts.improvements), 'improvement')}</strong>", table)


def new_and_removed(counts: ChangeCounts | None) -> str:
    if counts is None:
        return ""
    lines = []
    for label, ids in (("New cases", counts.new), ("Removed cases", counts.removed)):
        if ids:
            shown = ", ".join(md.breakable(i, limit=160) for i in ids[:50])
            lines.append(f"**{label} ({len(ids)}):** {shown}{' …' if len(ids) > 50 else ''}")
    return "\n\n".join(lines)


def known_flaky(doc: ResultsDocument) -> frozenset[str]:
    history = doc.comparison.history if doc.comparison else None
    return frozenset(history.known_flaky) if history else frozenset()

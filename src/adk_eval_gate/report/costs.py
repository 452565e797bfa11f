"""Cost and latency in the reports: the one line under the verdict, the cases that rose most, the summary's full
table and chart, and the run's budgets. Pure; every figure came from results.json.
"""

from __future__ import annotations

from collections.abc import Callable

from adk_eval_gate.model.results import Quantity, QuantityChange, ResultsDocument, SuiteUsage, UsageTotals
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report.change_sections import significance_text
from adk_eval_gate.support.words import money, plural

LABELS: dict[Quantity, str] = {
    "cost_usd": "Cost per pass",
    "tokens": "Tokens per pass",
    "model_calls": "Model calls per pass",
    "p50_turn_seconds": "p50 turn time",
    "p95_turn_seconds": "p95 turn time",
}
_BUDGET_ICON = {"passed": "✅", "failed": "❌", "unchecked": "💥", "skipped": "➖"}


def count(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.3g}M"
    if value >= 1_000:
        return f"{value / 1_000:.3g}k"
    return f"{value:.3g}"


def seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g} s"


def figure(change: QuantityChange, value: float | None) -> str:
    if change.quantity == "cost_usd":
        return money(value)
    return seconds(value) if change.quantity.endswith("seconds") else count(value)


def percent(change: QuantityChange | None) -> str:
    if change is None or change.change_pct is None:
        return ""
    if abs(change.change_pct) < 0.05:
        return "="
    arrow = "▲" if change.change_pct > 0 else "▼"
    return (
        f"{arrow} {abs(change.change_pct):.0f}%"
        if abs(change.change_pct) >= 1
        else f"{arrow} {abs(change.change_pct):.1f}%"
    )


def _suite_change(doc: ResultsDocument, quantity: str) -> QuantityChange | None:
    usage = doc.comparison.usage if doc.comparison else None
    return next((c for c in usage.suite if c.quantity == quantity), None) if usage else None


def _unpriced(totals: UsageTotals, *, markdown: bool = True) -> str:
    shown = totals.unpriced_models[:3]
    names = ", ".join(md.code(name, limit=60) for name in shown) if markdown else ", ".join(shown)
    return f"cost unknown for {names}" + (" …" if len(totals.unpriced_models) > 3 else "")


def cost_line(doc: ResultsDocument, *, markdown: bool = True) -> str:
    """``💲 Cost per pass $0.0123 (base $0.01, ▲ 23%) · 45.2k tokens (...) · p95 turn 1.8 s (...) · judge $0.002``."""
    usage = doc.usage
    if usage is None or not usage.runs:
        return ""
    parts = []
    per_pass = usage.per_pass
    compared_on = _compared_on(doc)  # said once, at the first figure it applies to
    for quantity, label, value, shown in (
        ("cost_usd", "Cost per pass", per_pass.cost_usd, money),
        ("tokens", "tokens", per_pass.tokens, count),
        ("p95_turn_seconds", "p95 turn", per_pass.p95_turn_seconds, seconds),
    ):
        if value is None:
            if quantity == "cost_usd" and usage.agent.unpriced_models:
                parts.append(f"Cost per pass: {_unpriced(usage.agent, markdown=markdown)}")
            continue
        change = _suite_change(doc, quantity)
        base = _against(change, value, shown, compared_on)
        if compared_on and base.startswith(compared_on):
            compared_on = ""
        text = f"{shown(value)} {label}" if quantity == "tokens" else f"{label} {shown(value)}"
        parts.append(text + (f" ({base})" if base else ""))
    apart = _apart_words(doc)
    if apart:
        parts.append(apart)
    judging = _judging_words(usage)
    if judging:
        parts.append(judging)
    if not parts:
        return ""
    if usage.runs_without_usage:
        missing = f"no token counts from {plural(usage.runs_without_usage, 'run')}"
        parts.append(f"_{missing}_" if markdown else missing)
    return ("💲 " if markdown else "") + " · ".join(parts)


def _judging_words(usage: SuiteUsage) -> str:
    """``judge $0.002 + calibration $0.001``: the evaluation's judge, and apart from it the judges' calibration
    against the human labels (asked before the evaluation)."""
    judge = usage.judge.cost_usd if usage.judge else None
    calibration = usage.calibration.cost_usd if usage.calibration else None
    words = [f"judge {money(judge)}"] if judge is not None else []
    if calibration is not None:
        words.append(f"calibration {money(calibration)}")
    return " + ".join(words)


def _compared_on(doc: ResultsDocument) -> str | None:
    """Which cases the comparison's figures cover (``on the 38 cases both ran``, ``, quarantined left out`` when
    there are quarantined ones), when this run's per-pass figures cover more: cases the baseline did not run, or
    quarantined cases, whose figures the comparison keeps apart."""
    compared = doc.comparison.usage if doc.comparison else None
    if compared is None or compared.common_cases is None:
        return None
    if compared.added is None and compared.quarantined is None:
        return None
    left_out = ", quarantined left out" if compared.quarantined is not None else ""
    return f"on the {plural(compared.common_cases, 'case')} both ran{left_out}"


def _against(
    change: QuantityChange | None, value: float, shown: Callable[[float | None], str], compared_on: str | None
) -> str:
    """``base $0.01, ▲ 23%``, or when the comparison covers fewer cases than the run's figure:
    ``on the 38 cases both ran: $0.01 → $0.0123, ▲ 23%`` (the same cases on both sides; ``compared_on`` empty: it
    was said before)."""
    if change is None or change.base is None:
        return ""
    if compared_on is None or change.head == value:
        return f"base {shown(change.base)}, {percent(change)}"
    said = f"{compared_on}: " if compared_on else ""
    return f"{said}{shown(change.base)} → {shown(change.head)}, {percent(change)}"


def _apart_words(doc: ResultsDocument) -> str:
    """The cost of the cases the comparison leaves out (only one side ran them, or they are quarantined), never
    part of a rise."""
    compared = doc.comparison.usage if doc.comparison else None
    if compared is None:
        return ""
    words = []
    for figures, what in (
        (compared.added, "new"),
        (compared.removed, "removed"),
        (compared.quarantined, "quarantined"),
    ):
        if figures is not None and figures.cost_usd is not None:
            words.append(f"{what} cases {money(figures.cost_usd)}")
    return f"not compared: {', '.join(words)}" if words else ""


def rising_cases(doc: ResultsDocument, *, limit: int | None) -> str:
    """The cases whose cost or latency rose beyond the noise, largest first."""
    usage = doc.comparison.usage if doc.comparison else None
    if usage is None or not usage.cases:
        return ""
    listed = usage.cases if limit is None else usage.cases[:limit]
    rows = [
        [
            md.breakable((change.case_id or "").rsplit("::", 1)[-1], limit=120),
            LABELS[change.quantity].replace(" per pass", ""),
            figure(change, change.base),
            figure(change, change.head),
            percent(change),
        ]
        for change in listed
    ]
    more = f"\n\n_… and {len(usage.cases) - len(listed)} more rises._" if len(usage.cases) > len(listed) else ""
    table = md.table(["Case", "Figure", "Base", "Head", "Change"], rows, align=["---", "---", "--:", "--:", "--:"])
    return md.details(f"<strong>Cost and latency rose</strong>: {plural(usage.rising_cases, 'case')}", table + more)


def usage_table(doc: ResultsDocument) -> str:
    """The summary's table: every suite figure, head against base, with its noise check."""
    usage = doc.usage
    if usage is None or not usage.runs:
        return ""
    compared = doc.comparison is not None and doc.comparison.usage is not None
    rows = []
    for quantity, label in LABELS.items():
        value = getattr(usage.per_pass, quantity)
        change = _suite_change(doc, quantity) or QuantityChange(quantity=quantity, head=value)
        row = [label, figure(change, value)]
        if compared:
            row[1:2] = [figure(change, change.base), figure(change, change.head)]
            row += [percent(change) or "–", significance_text(change.significance, change.noise)]
        rows.append(row)
    header = ["Agent", "Base", "Head", "Change", "Noise check"] if compared else ["Agent", "This run"]
    parts = [md.table(header, rows, align=["---"] + ["--:"] * (len(header) - 2) + ["---" if compared else "--:"])]
    compared_on = _compared_on(doc)
    if compared_on is not None:
        apart = _apart_words(doc)
        parts.append(f"_Compared {compared_on}" + (f"; {apart}" if apart else "") + "._")
    parts.append(_parties(doc))
    return "### Cost and latency\n\n" + "\n\n".join(part for part in parts if part)


def _parties(doc: ResultsDocument) -> str:
    usage = doc.usage
    assert usage is not None
    lines = []
    for name, totals in (
        ("Agent, all runs", usage.agent),
        ("LLM judge", usage.judge),
        ("Judge calibration", usage.calibration),
        ("User simulator", usage.simulator),
    ):
        if totals is None or not totals.models:
            continue
        cost = money(totals.cost_usd) if totals.cost_usd is not None else "–"
        unknown = f" ({_unpriced(totals)})" if totals.unpriced_models else ""
        lines.append(
            f"- **{name}:** {cost}{unknown}, {count(totals.tokens)} tokens in {plural(totals.calls, 'model call')}"
        )
    if usage.runs_without_usage:
        lines.append(f"- No token counts were reported for {usage.runs_without_usage} of {usage.runs} runs.")
    if usage.prices:
        lines.append(
            f"- Prices: {md.inline(usage.prices.source, limit=120)}, {md.inline(usage.prices.date, limit=20)}"
            + (f", with {md.code(usage.prices.file, limit=80)}" if usage.prices.file else "")
        )
    return "\n".join(lines)


def budget_lines(doc: ResultsDocument) -> str:
    """The run's budgets: each one that was given, with its figures."""
    if not doc.budgets:
        return ""
    lines = [f"- {_BUDGET_ICON[check.status]} {md.inline(check.reason, limit=300)}" for check in doc.budgets]
    return "**Budgets:**\n" + "\n".join(lines)

"""Cost and latency against the baseline: the suite per pass and each case, lower is better, with the same noise
rules as the scores (``noise``: the base branch's history when there is one, else the spread of the runs).

A rise is *flagged* when it is beyond the noise and large enough to matter: at least ``MATERIAL`` of the base
figure (5% for counts and dollars, 20% for times), and for times also ``MATERIAL_SECONDS`` (a scripted agent's
milliseconds, or a busy CI runner, jitter by more than 10% and mean nothing). Counts and dollars repeat exactly
from run to run, so an untested rise of theirs counts (as a score's drop does); a time must be shown significant,
by the runs' spread or the history. A case's time is tested on all its turns (every turn of every run). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from adk_eval_gate.history import BaseRuns
from adk_eval_gate.noise import significance
from adk_eval_gate.results import CaseResult, ResultsDocument
from adk_eval_gate.results_usage import CaseUsage, PassFigures, Quantity, QuantityChange, UsageComparison
from adk_eval_gate.usage import percentile

MATERIAL = {"cost_usd": 0.05, "tokens": 0.05, "model_calls": 0.05, "p50_turn_seconds": 0.20, "p95_turn_seconds": 0.20}
MATERIAL_SECONDS = 0.1
SUITE_QUANTITIES: tuple[Quantity, ...] = ("cost_usd", "tokens", "model_calls", "p50_turn_seconds", "p95_turn_seconds")
CASE_QUANTITIES: tuple[Quantity, ...] = ("cost_usd", "tokens", "model_calls", "p95_turn_seconds")
CASES_LISTED = 50


def quantity_change(
    quantity: Quantity,
    *,
    base: float | None,
    head: float | None,
    base_runs: Sequence[float] = (),
    head_runs: Sequence[float] = (),
    history: Sequence[float] = (),
    case_id: str | None = None,
) -> QuantityChange:
    if base is None or head is None:
        return QuantityChange(quantity=quantity, case_id=case_id, base=base, head=head)
    change_pct = (head - base) / base * 100 if base else (0.0 if head == base else None)
    change = QuantityChange(quantity=quantity, case_id=case_id, base=base, head=head, change_pct=change_pct)
    if head == base:
        return change
    verdict, model, interval = significance(
        direction="rise" if head > base else "drop",
        head_value=head,
        head_runs=head_runs,
        base_runs=base_runs,
        history=history,
        tolerance=0.0,
    )
    material = change_pct is None or change_pct >= MATERIAL[quantity] * 100
    tested = verdict == "significant"
    if quantity.endswith("seconds"):  # times always jitter: only a rise shown to be beyond the noise counts
        material = material and head - base >= MATERIAL_SECONDS
    else:  # counts and dollars repeat exactly run to run: an untested rise counts, as a score's drop does
        tested = verdict != "noise"
    flagged = head > base and tested and material
    return change.model_copy(update={"significance": verdict, "noise": model, "interval": interval, "flagged": flagged})


def _present(values: Sequence[float | int | None]) -> list[float]:
    return [float(value) for value in values if value is not None]


def _suite(head: ResultsDocument, base: ResultsDocument, history: BaseRuns) -> list[QuantityChange]:
    assert head.usage is not None and base.usage is not None
    past = [doc.usage.per_pass for _, doc in reversed(history) if doc.usage]
    return [
        quantity_change(
            quantity,
            base=_figure(base.usage.per_pass, quantity),
            head=_figure(head.usage.per_pass, quantity),
            base_runs=_present([_figure(p, quantity) for p in base.usage.run_passes]),
            head_runs=_present([_figure(p, quantity) for p in head.usage.run_passes]),
            history=_present([_figure(p, quantity) for p in past]),
        )
        for quantity in SUITE_QUANTITIES
    ]


def _figure(passes: PassFigures, quantity: Quantity) -> float | None:
    value: float | None = getattr(passes, quantity)
    return value


_CASE_FIGURES: dict[Quantity, tuple[Callable[[CaseUsage], float | None], Callable[[CaseUsage], list[float]]]] = {
    "cost_usd": (lambda u: u.cost_usd, lambda u: _present(u.run_cost_usd)),
    "tokens": (lambda u: u.tokens, lambda u: _present(u.run_tokens)),
    "model_calls": (lambda u: u.model_calls, lambda u: _present(u.run_model_calls)),
    "p95_turn_seconds": (lambda u: percentile(u.turn_seconds, 0.95), lambda u: u.turn_seconds),
}


def _case(head: CaseResult, base: CaseResult, past: Sequence[CaseUsage]) -> list[QuantityChange]:
    """``past``: the case's usage in the base branch's history, oldest first."""
    if head.usage is None or base.usage is None:
        return []
    changes = []
    for quantity in CASE_QUANTITIES:
        value, runs = _CASE_FIGURES[quantity]
        changes.append(
            quantity_change(
                quantity,
                base=value(base.usage),
                head=value(head.usage),
                base_runs=runs(base.usage),
                head_runs=runs(head.usage),
                history=_present([value(usage) for usage in past]),
                case_id=head.id,
            )
        )
    return changes


def compare_usage(head: ResultsDocument, base: ResultsDocument, *, history: BaseRuns = ()) -> UsageComparison | None:
    """None when either side has no usage (an older baseline)."""
    if head.usage is None or base.usage is None:
        return None
    base_cases = {case.id: case for case in base.cases}
    past: dict[str, list[CaseUsage]] = {}
    for _, doc in reversed(history):
        for case in doc.cases:
            if case.usage is not None:
                past.setdefault(case.id, []).append(case.usage)
    rises = [
        change
        for case in head.cases
        if case.id in base_cases and not case.quarantined
        for change in _case(case, base_cases[case.id], past.get(case.id, []))
        if change.flagged
    ]
    rises.sort(key=lambda change: -(change.change_pct if change.change_pct is not None else float("inf")))
    return UsageComparison(
        suite=_suite(head, base, history),
        cases=rises[:CASES_LISTED],
        rising_cases=len({change.case_id for change in rises}),
        base_files=base.usage.files,
    )

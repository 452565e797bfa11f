"""Cost and latency against the baseline: the suite per pass (on the gated cases both sides ran: a case added,
removed or quarantined is shown apart, never a rise) and each case, lower is better, with the same noise rules as
the scores (``noise``: the base branch's history when there is one, else the spread of the runs).

A rise is *flagged* when it is beyond the noise and large enough to matter: at least ``MATERIAL`` of the base
figure (5% for counts and dollars, 20% for times), and for times also ``MATERIAL_SECONDS`` (a scripted agent's
milliseconds, or a busy CI runner, jitter by more than 10% and mean nothing). Counts and dollars repeat exactly
from run to run, so an untested rise of theirs counts (as a score's drop does); a time must be shown significant,
by the runs' spread or the history. Times are tested on all their turns (every turn of every run). Pure.

``flagged`` is the one rule of a rise: the reports show the flagged ones and the increase budgets fail only on them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from adk_eval_gate.aggregate.usage import SHARES, pass_figure, percentile
from adk_eval_gate.compare.history import BaseRuns
from adk_eval_gate.compare.noise import significance
from adk_eval_gate.model.results import (
    CaseResult,
    CaseUsage,
    PassFigures,
    Quantity,
    QuantityChange,
    ResultsDocument,
    UsageComparison,
)

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


_RUN_FIGURES: dict[Quantity, Callable[[CaseUsage], Sequence[float | int | None]]] = {
    "cost_usd": lambda u: u.run_cost_usd,
    "tokens": lambda u: u.run_tokens,
    "model_calls": lambda u: u.run_model_calls,
}


def _samples(cases: Sequence[CaseResult], quantity: Quantity) -> list[float]:
    """What the noise check compares: the figure of each pass (run 1 of every case, run 2, ...) where every case
    has that run. Times too: the turns of one run share the machine's moment (a busy runner slows all of them),
    so only runs apart, or the base branch's history, say how much a time moves by chance."""
    if quantity in SHARES:
        return _time_passes(cases, SHARES[quantity])
    runs = [_RUN_FIGURES[quantity](case.usage) for case in cases if case.usage is not None]
    passes = min((len(values) for values in runs), default=0)
    sums = []
    for index in range(passes):
        values = [values[index] for values in runs]
        if all(value is not None for value in values):
            sums.append(float(sum(value or 0 for value in values)))
    return sums


def _time_passes(cases: Sequence[CaseResult], share: float) -> list[float]:
    by_number: list[dict[int, list[float]]] = [
        {
            run.run: [turn.seconds for turn in run.usage.turns if turn.seconds is not None]
            for run in case.runs
            if run.usage is not None and not run.confirmation
        }
        for case in cases
    ]
    numbers = set.intersection(*(set(runs) for runs in by_number)) if by_number else set()
    figures = [percentile([s for runs in by_number for s in runs[number]], share) for number in sorted(numbers)]
    return [figure for figure in figures if figure is not None]


def _cases(doc: ResultsDocument, ids: Sequence[str]) -> list[CaseResult] | None:
    """The cases ``ids`` of ``doc``, each with its usage; None when one of them is missing there."""
    by_id = {case.id: case for case in doc.cases if case.usage is not None}
    found = [by_id.get(case_id) for case_id in ids]
    return None if any(case is None for case in found) else [case for case in found if case is not None]


def _usages(cases: Sequence[CaseResult]) -> list[CaseUsage]:
    return [case.usage for case in cases if case.usage is not None]


def common_cases(head: ResultsDocument, base: ResultsDocument) -> list[str]:
    """The gated cases both sides ran with usage: a rise is measured on them only, so a case added or removed
    is never a rise."""
    base_ids = {case.id for case in base.cases if case.usage is not None}
    return [case.id for case in head.cases if case.usage is not None and not case.quarantined and case.id in base_ids]


def _suite(head: ResultsDocument, base: ResultsDocument, history: BaseRuns, ids: list[str]) -> list[QuantityChange]:
    heads, bases = _cases(head, ids) or [], _cases(base, ids) or []
    pasts = [_usages(cases) for _, doc in reversed(history) if (cases := _cases(doc, ids))]
    return [
        quantity_change(
            quantity,
            base=pass_figure(_usages(bases), quantity),
            head=pass_figure(_usages(heads), quantity),
            base_runs=_samples(bases, quantity),
            head_runs=_samples(heads, quantity),
            history=_present([pass_figure(usages, quantity) for usages in pasts]),
        )
        for quantity in SUITE_QUANTITIES
    ]


def _apart(doc: ResultsDocument, ids: set[str]) -> PassFigures | None:
    """The figures of the cases of ``doc`` not in ``ids`` (new, removed or quarantined): shown apart, never
    compared."""
    usages = [case.usage for case in doc.cases if case.id not in ids and case.usage is not None]
    if not usages:
        return None
    return PassFigures(**{quantity: pass_figure(usages, quantity) for quantity in SUITE_QUANTITIES})


def _case(head: CaseResult, base: CaseResult, past: Sequence[CaseUsage]) -> list[QuantityChange]:
    """``past``: the case's usage in the base branch's history, oldest first."""
    if head.usage is None or base.usage is None:
        return []
    return [
        quantity_change(
            quantity,
            base=pass_figure([base.usage], quantity),
            head=pass_figure([head.usage], quantity),
            base_runs=_samples([base], quantity),
            head_runs=_samples([head], quantity),
            history=_present([pass_figure([usage], quantity) for usage in past]),
            case_id=head.id,
        )
        for quantity in CASE_QUANTITIES
    ]


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
    ids = common_cases(head, base)
    quarantined = {case.id for case in head.cases if case.quarantined}
    return UsageComparison(
        suite=_suite(head, base, history, ids),
        common_cases=len(ids),
        added=_apart(head, set(ids) | quarantined),
        removed=_apart(base, {case.id for case in head.cases}),
        quarantined=_apart(head, {case.id for case in head.cases} - quarantined),
        cases=rises[:CASES_LISTED],
        rising_cases=len({change.case_id for change in rises}),
        base_files=base.usage.files,
    )

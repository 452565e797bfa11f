"""Tokens, model and tool calls, time and dollars: per turn from the agent's own events (the invocation events
ADK records, the same the efficiency metrics read, so the counts equal ADK's ``token_usage_v1`` and
``inference_call_count_v1``), per run with the user simulator's calls kept apart, per case and for the suite with
the judge's calls apart. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import get_args

from adk_eval_gate.aggregate.pricing import Prices, call_cost
from adk_eval_gate.metrics.efficiency import TurnFacts
from adk_eval_gate.model.results import (
    CaseResult,
    CaseUsage,
    FileUsage,
    ModelUsage,
    PassFigures,
    PriceSource,
    Quantity,
    ResultsDocument,
    RunUsage,
    SuiteUsage,
    TurnUsage,
    UsageTotals,
)
from adk_eval_gate.model.tokens import Tokens
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.stats import mean, total


def _sum(values: Iterable[int | None]) -> int | None:
    present = [value for value in values if value is not None]
    return sum(present) if present else None


def _total(calls: Sequence[Tokens]) -> int | None:
    inputs, outputs = _sum(c.input_tokens for c in calls), _sum(c.output_tokens for c in calls)
    return None if inputs is None and outputs is None else (inputs or 0) + (outputs or 0)


def _cost(calls: Sequence[Tokens], prices: Prices) -> tuple[float | None, str | None]:
    priced: list[float] = []
    why = None
    for call in calls:
        dollars, reason = call_cost(prices.price_of(call.model), call)
        if dollars is None:
            why = why or reason
        else:
            priced.append(dollars)
    return (None, why) if why else (total(priced), None)


def by_model(calls: Sequence[Tokens], prices: Prices) -> list[ModelUsage]:
    """The calls summed per model, each with its cost (or why it has none)."""
    models: dict[str, list[Tokens]] = {}
    for call in calls:
        models.setdefault(call.model, []).append(call)
    usages = []
    for model, own in models.items():
        cost, why = _cost(own, prices)
        usages.append(
            ModelUsage(
                model=model,
                calls=len(own),
                input_tokens=_sum(c.input_tokens for c in own),
                cached_tokens=_sum(c.cached_tokens for c in own),
                output_tokens=_sum(c.output_tokens for c in own),
                reasoning_tokens=_sum(c.reasoning_tokens for c in own),
                cost_usd=cost,
                unpriced=why,
            )
        )
    return usages


def _turn_usage(facts: TurnFacts, prices: Prices) -> TurnUsage:
    calls, timing = facts.calls, facts.timing
    return TurnUsage(
        tokens=_total(calls) if calls is not None else None,
        model_calls=len(calls) if calls is not None else None,
        tool_calls=facts.tool_calls,
        seconds=timing.total_seconds,
        model_seconds=timing.model_seconds,
        tool_seconds=timing.tool_seconds,
        framework_seconds=timing.framework_seconds,
        cost_usd=_cost(calls, prices)[0] if calls else None,
    )


def usage_of_turns(facts: Sequence[TurnFacts], prices: Prices, *, simulator: Sequence[Tokens] = ()) -> RunUsage:
    """A run's usage from what each of its turns recorded (``TurnFacts``, taken where the turns were made)."""
    calls = [call for turn in facts for call in turn.calls or []]
    turns = [_turn_usage(turn, prices) for turn in facts]
    counted = [turn.model_calls for turn in turns if turn.model_calls is not None]
    return RunUsage(
        turns=turns,
        models=by_model(calls, prices),
        simulator=by_model(simulator, prices),
        tokens=_total(calls),
        model_calls=sum(counted) if counted else None,
        tool_calls=sum(turn.tool_calls for turn in turns),
        cost_usd=_cost(calls, prices)[0] if calls else None,
    )


def percentile(values: Sequence[float], share: float) -> float | None:
    """The ``share`` quantile (0.5, 0.95) by linear interpolation between the closest ranks."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    ordered = sorted(values)
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _mean(values: Iterable[float | int | None]) -> float | None:
    present = [float(value) for value in values if value is not None]
    return mean(present) if present else None


def case_usage(runs: Sequence[RunUsage | None]) -> CaseUsage:
    """A case's figures over its runs (means over the runs that reported them)."""
    reported = [run for run in runs if run is not None]
    seconds = [turn.seconds for run in reported for turn in run.turns if turn.seconds is not None]
    costs = [run.cost_usd for run in reported]
    return CaseUsage(
        run_tokens=[run.tokens for run in reported],
        run_model_calls=[run.model_calls for run in reported],
        run_cost_usd=costs,
        turn_seconds=[round(value, 3) for value in seconds],
        tokens=_mean(run.tokens for run in reported),
        model_calls=_mean(run.model_calls for run in reported),
        cost_usd=None if any(cost is None for cost in costs) else _mean(costs),
        p95_turn_seconds=percentile(seconds, 0.95),
        runs_without_usage=sum(1 for run in reported if run.tokens is None),
    )


def totals(models: Sequence[ModelUsage]) -> UsageTotals:
    """One party's usage over every model it called."""
    priced = [m.cost_usd for m in models if m.cost_usd is not None]
    return UsageTotals(
        models=list(models),
        calls=sum(m.calls for m in models),
        input_tokens=_sum(m.input_tokens for m in models),
        cached_tokens=_sum(m.cached_tokens for m in models),
        output_tokens=_sum(m.output_tokens for m in models),
        reasoning_tokens=_sum(m.reasoning_tokens for m in models),
        tokens=_sum([_sum([m.input_tokens, m.output_tokens]) for m in models]),
        cost_usd=total(priced) if priced else None,
        unpriced_models=[m.model for m in models if m.cost_usd is None],
    )


def merged(models: Iterable[ModelUsage]) -> list[ModelUsage]:
    """Per model usages of many runs added up, per model."""
    by_name: dict[str, list[ModelUsage]] = {}
    for usage in models:
        by_name.setdefault(usage.model, []).append(usage)
    return [
        ModelUsage(
            model=name,
            calls=sum(u.calls for u in own),
            input_tokens=_sum(u.input_tokens for u in own),
            cached_tokens=_sum(u.cached_tokens for u in own),
            output_tokens=_sum(u.output_tokens for u in own),
            reasoning_tokens=_sum(u.reasoning_tokens for u in own),
            cost_usd=None if any(u.cost_usd is None for u in own) else total(u.cost_usd or 0.0 for u in own),
            unpriced=next((u.unpriced for u in own if u.unpriced), None),
        )
        for name, own in by_name.items()
    ]


def _pass_figures(runs: Sequence[RunUsage]) -> PassFigures:
    """The suite in one pass: the runs of that pass (one per case) added up."""
    seconds = [turn.seconds for run in runs for turn in run.turns if turn.seconds is not None]
    costs = [run.cost_usd for run in runs]
    return PassFigures(
        tokens=_sum(run.tokens for run in runs),
        cost_usd=None if not runs or any(cost is None for cost in costs) else total(cost or 0.0 for cost in costs),
        model_calls=_sum(run.model_calls for run in runs),
        p50_turn_seconds=percentile(seconds, 0.5),
        p95_turn_seconds=percentile(seconds, 0.95),
    )


_MEANS: dict[Quantity, Callable[[CaseUsage], float | None]] = {
    "cost_usd": lambda u: u.cost_usd,
    "tokens": lambda u: u.tokens,
    "model_calls": lambda u: u.model_calls,
}
SHARES = {"p50_turn_seconds": 0.5, "p95_turn_seconds": 0.95}


def pass_figure(usages: Sequence[CaseUsage], quantity: Quantity) -> float | None:
    """The cases in one pass: their mean counts and dollars added up, or the percentile of all their turns."""
    if not usages:
        return None
    if quantity in SHARES:
        return percentile([second for usage in usages for second in usage.turn_seconds], SHARES[quantity])
    means = [_MEANS[quantity](usage) for usage in usages]
    return None if any(mean is None for mean in means) else sum(mean or 0.0 for mean in means)


def suite_usage(cases: Sequence[CaseResult], *, judge: UsageTotals | None, prices: PriceSource | None) -> SuiteUsage:
    """The whole run: every run's usage added up (what was spent), and the suite per pass (what is compared):
    each case's mean figures added up and the percentiles of every turn (``pass_figure``), and the runs planned
    with --num-runs grouped by their number (the noise), re-runs of --confirm-failures left out."""
    runs = [run for case in cases for run in case.runs]
    usages = [case.usage for case in cases if case.usage is not None]
    used = [run.usage for run in runs if run.usage is not None]
    simulator = merged(model for usage in used for model in usage.simulator)
    by_number: dict[int, list[RunUsage]] = {}
    for run in runs:
        if run.usage is not None and not run.confirmation:
            by_number.setdefault(run.run, []).append(run.usage)
    passes = [_pass_figures(by_number[number]) for number in sorted(by_number)]
    return SuiteUsage(
        agent=totals(merged(model for usage in used for model in usage.models)),
        judge=judge,
        simulator=totals(simulator) if simulator else None,
        per_pass=PassFigures(**{name: pass_figure(usages, name) for name in get_args(Quantity)}),
        run_passes=passes,
        runs=len(runs),
        runs_without_usage=sum(1 for run in runs if run.usage is None or run.usage.tokens is None),
        timed_turns=sum(1 for usage in used for turn in usage.turns if turn.seconds is not None),
        files=_files(cases),
        prices=prices,
    )


def _files(cases: Sequence[CaseResult]) -> list[FileUsage]:
    """Per eval file, its cases' mean figures added up: one pass over the file."""
    by_file: dict[str, list[CaseUsage]] = {}
    for case in cases:
        if case.usage is not None:
            by_file.setdefault(case.file, []).append(case.usage)
    return [
        FileUsage(
            path=path,
            tokens=None if any(u.tokens is None for u in usages) else sum(u.tokens or 0.0 for u in usages),
            cost_usd=None if any(u.cost_usd is None for u in usages) else sum(u.cost_usd or 0.0 for u in usages),
        )
        for path, usages in by_file.items()
    ]


def judge_totals(calls: Sequence[Tokens], prices: Prices) -> UsageTotals | None:
    return totals(by_model(calls, prices)) if calls else None


def report_unpriced(doc: ResultsDocument, console: Console, *, local: Collection[str] = ()) -> None:
    """ "Cost unknown for model X" once per model, naming every party whose calls to it have no cost, with why:
    never a guess. Not for ``local`` models (the agent's calls answered by a model class of the user's own,
    docs/cost.md): the reports still say their cost is unknown."""
    usage = doc.usage
    if usage is None:
        return
    parties = (("the agent", usage.agent), ("the judge", usage.judge), ("the user simulator", usage.simulator))
    unpriced: dict[str, tuple[list[str], str]] = {}
    for party, found in parties:
        for model in found.models if found else []:
            if model.cost_usd is None and not (party == "the agent" and model.model in local):
                named, why = unpriced.setdefault(model.model, ([], model.unpriced or "no price"))
                named.append(party)
    for model_name, (named, why) in unpriced.items():
        hint = "; add its price with --prices FILE" if why.startswith("no price") else ""
        console.line(f"Cost unknown for model {model_name} ({', '.join(named)}): {why}{hint}")

"""Budgets. Per case (``"budgets"`` in test_config.json, a key of ours that ADK ignores): every turn of every run
within ``max_tokens_per_turn``, ``max_seconds_per_turn`` and ``max_model_calls_per_turn``; a run over one fails,
and the case is decided with the pass rule (mean: the mean over runs of each run's worst turn). For the run
(``--max-cost``, ``--max-cost-increase``, ``--max-latency-increase``): this run's agent cost, and the suite's
significant rise against the baseline.

A budget whose figure was not reported (no token counts, no price for a model) cannot pass: the case is not
evaluated, the run an error, and the reason says which figure is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adk_eval_gate.model.eval_config import Budgets
from adk_eval_gate.model.results import (
    BudgetCheck,
    BudgetLimits,
    BudgetStatus,
    Comparison,
    PassRule,
    QuantityChange,
    ResultsDocument,
    RunRecord,
    SuiteUsage,
    TurnUsage,
)
from adk_eval_gate.support.stats import mean
from adk_eval_gate.support.words import money


@dataclass(frozen=True)
class TurnLimit:
    name: str
    unit: str
    figure: Callable[[TurnUsage], float | None]
    missing: str  # why the figure can be absent


TURN_LIMITS = (
    TurnLimit("max_tokens_per_turn", "tokens", lambda t: t.tokens, "the agent's model reported no token counts"),
    TurnLimit("max_seconds_per_turn", "s", lambda t: t.seconds, "the turns were not timed"),
    TurnLimit("max_model_calls_per_turn", "model calls", lambda t: t.model_calls, "the turns have no recorded events"),
)


def _number(value: float, unit: str) -> str:
    return f"{value:,.3f} {unit}".replace(".000 ", " ") if unit == "s" else f"{value:,.0f} {unit}"


def _worst(run: RunRecord, limit: TurnLimit) -> tuple[float, int] | None:
    """The run's largest figure and its turn (1-based); None when no turn has the figure."""
    figures = [(limit.figure(turn), number) for number, turn in enumerate(run.usage.turns if run.usage else [], 1)]
    present = [(value, number) for value, number in figures if value is not None]
    return max(present) if present else None


def run_overruns(run: RunRecord, budgets: Budgets | None) -> list[str]:
    """The budgets this run exceeded, each with its figures."""
    overruns = []
    for limit in TURN_LIMITS:
        allowed = getattr(budgets, limit.name, None) if budgets else None
        worst = _worst(run, limit) if allowed is not None else None
        if allowed is not None and worst is not None and worst[0] > allowed:
            overruns.append(
                f"{limit.name} {_number(allowed, limit.unit)}: turn {worst[1]} used {_number(worst[0], limit.unit)}"
            )
    return overruns


def case_checks(runs: list[RunRecord], budgets: Budgets | None, *, pass_rule: PassRule) -> list[BudgetCheck]:
    """Each configured budget over the case's runs, decided with the pass rule."""
    checks = []
    for limit in TURN_LIMITS:
        allowed = getattr(budgets, limit.name, None) if budgets else None
        if allowed is not None:
            checks.append(_case_check(runs, limit, float(allowed), pass_rule=pass_rule))
    return checks


def _case_check(runs: list[RunRecord], limit: TurnLimit, allowed: float, *, pass_rule: PassRule) -> BudgetCheck:
    scored = [(run, worst) for run in runs if (worst := _worst(run, limit)) is not None]
    if not scored:
        reason = f"{limit.name} cannot be checked: {limit.missing}"
        return BudgetCheck(name=limit.name, limit=allowed, status=BudgetStatus.UNCHECKED, reason=reason)
    within = sum(1 for _, (value, _) in scored if value <= allowed)
    value = mean([value for _, (value, _) in scored])
    if pass_rule == "mean":
        passed = value <= allowed
    else:
        passed = within == len(scored) if pass_rule == "all" else within * 2 > len(scored)
    run, (highest, turn) = max(scored, key=lambda pair: pair[1][0])
    reason = (
        f"{limit.name} {_number(allowed, limit.unit)}: turn {turn} of run {run.run} used {_number(highest, limit.unit)}"
    )
    if len(scored) > 1:
        reason += f" ({within} of {len(scored)} runs within; their worst turns average {_number(value, limit.unit)})"
    return BudgetCheck(
        name=limit.name,
        limit=allowed,
        value=round(value, 6),
        status=BudgetStatus.PASSED if passed else BudgetStatus.FAILED,
        reason=reason,
    )


def cost_check(usage: SuiteUsage | None, allowed: float) -> BudgetCheck:
    """``--max-cost``: the agent's cost over every run of every case."""
    agent = usage.agent if usage else None
    if agent is None or agent.unpriced_models or agent.cost_usd is None:
        missing = ", ".join(agent.unpriced_models) if agent and agent.unpriced_models else "no model call was priced"
        return BudgetCheck(
            name="max-cost",
            limit=allowed,
            status=BudgetStatus.UNCHECKED,
            reason=f"--max-cost {money(allowed)} cannot be checked: cost unknown for model {missing} "
            "(add its price with --prices)",
        )
    passed = agent.cost_usd <= allowed
    verb = "is within" if passed else "is over"
    return BudgetCheck(
        name="max-cost",
        limit=allowed,
        value=round(agent.cost_usd, 6),
        status=BudgetStatus.PASSED if passed else BudgetStatus.FAILED,
        reason=f"the agent's cost {money(agent.cost_usd)} {verb} --max-cost {money(allowed)}",
    )


INCREASES = {
    "max-cost-increase": ("cost_usd", "the cost per pass of the cases both sides ran"),
    "max-latency-increase": ("p95_turn_seconds", "the p95 turn time of the cases both sides ran"),
}


def increase_check(name: str, allowed: float, comparison: Comparison | None) -> BudgetCheck:
    """``--max-cost-increase`` / ``--max-latency-increase``: the rise against the baseline, in percent, of the
    cases both sides ran; it fails only on a rise the comparison flags (beyond the noise, above the floors), so a
    budget never fails a change the reports call unchanged. Without a case in common it is skipped, as it is
    without a baseline: no figure is missing, there is only nothing to compare."""
    quantity, what = INCREASES[name]
    if comparison is None or comparison.usage is None:
        why = "no baseline" if comparison is None else "the baseline has no cost and latency figures"
        return BudgetCheck(
            name=name, limit=allowed, status=BudgetStatus.SKIPPED, reason=f"--{name} {allowed:g}% not checked: {why}"
        )
    if comparison.usage.common_cases == 0:  # every case is new (or removed): nothing to compare, nothing missing
        return BudgetCheck(
            name=name,
            limit=allowed,
            status=BudgetStatus.SKIPPED,
            reason=f"--{name} {allowed:g}% not checked: this run and the baseline have no case in common (every "
            "case is new), so there is nothing to compare",
        )
    change = next((c for c in comparison.usage.suite if c.quantity == quantity), None)
    if change is None or change.change_pct is None:
        return BudgetCheck(
            name=name,
            limit=allowed,
            status=BudgetStatus.UNCHECKED,
            reason=f"--{name} {allowed:g}% cannot be checked: {what} is unknown on "
            f"{'this run' if change is None or change.head is None else 'the baseline'}",
        )
    over = change.flagged and change.change_pct > allowed
    figures = f"from {_figure(quantity, change.base)} to {_figure(quantity, change.head)}"
    noise = "" if change.flagged or change.change_pct <= 0 else f" ({_unflagged(change)})"
    moved = f"rose {change.change_pct:.1f}%" if change.change_pct >= 0 else f"fell {-change.change_pct:.1f}%"
    value = round(change.change_pct, 3)
    if change.change_pct > allowed and not over and change.significance == "untested":
        return BudgetCheck(
            name=name,
            limit=allowed,
            value=value,
            status=BudgetStatus.SKIPPED,
            reason=f"--{name} {allowed:g}% not checked: {what} {moved} {figures}, but a time's rise is only shown "
            "beyond the noise by several runs (--num-runs 2 or more) or the base branch's history (--history)",
        )
    return BudgetCheck(
        name=name,
        limit=allowed,
        value=value,
        status=BudgetStatus.FAILED if over else BudgetStatus.PASSED,
        reason=f"{what} {moved}{noise} {figures}, {'more than' if over else 'within'} --{name} {allowed:g}%",
    )


def run_checks(doc: ResultsDocument, comparison: Comparison | None, limits: BudgetLimits | None) -> list[BudgetCheck]:
    """The run's budgets that were given, each checked."""
    if limits is None:
        return []
    checks = [cost_check(doc.usage, limits.max_cost)] if limits.max_cost is not None else []
    if limits.max_cost_increase is not None:
        checks.append(increase_check("max-cost-increase", limits.max_cost_increase, comparison))
    if limits.max_latency_increase is not None:
        checks.append(increase_check("max-latency-increase", limits.max_latency_increase, comparison))
    return checks


def _unflagged(change: QuantityChange) -> str:
    """Why a rise is not one the comparison flags (the same rule for the budget as for the reports)."""
    if change.significance == "noise":
        return "within noise"
    return "too small to matter"


def _figure(quantity: str, value: float | None) -> str:
    if value is None:
        return "?"
    return money(value) if quantity == "cost_usd" else f"{value:.3f} s"

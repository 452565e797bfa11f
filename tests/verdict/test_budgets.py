"""Budgets per case (test_config.json) and for the run (--max-cost and the increase limits), and the comparison
of cost and latency with the baseline."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.aggregate.pricing import Prices
from adk_eval_gate.compare.changes import compare
from adk_eval_gate.compare.cost_latency import compare_usage, quantity_change
from adk_eval_gate.finish.against_baseline import decide_with_comparison
from adk_eval_gate.inputs.configs import ConfigSource, load_config
from adk_eval_gate.metrics.metric import MetricOutcome
from adk_eval_gate.metrics.score import ScoredMetric
from adk_eval_gate.model.eval_config import Budgets
from adk_eval_gate.model.results import BudgetLimits
from adk_eval_gate.report import costs
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.support.errors import ConfigError
from adk_eval_gate.support.words import money
from adk_eval_gate.verdict import Policy
from adk_eval_gate.verdict.budgets import cost_check, increase_check, run_checks
from tests.aggregate.test_costs import call, turn
from tests.aggregate.test_records import CASE, CONFIGURED, _turn
from tests.report.builders import baseline_info, document, priced_document


def _run(number: int, *tokens_per_turn: int, model: str = "gemini-2.5-flash", seconds: float = 0.5):  # type: ignore[no-untyped-def]
    turns = [turn(call(model, count - 10, 10), seconds=seconds) for count in tokens_per_turn]
    for invocation in turns:
        invocation.user_content = _turn("weather in Paris?", "sunny").user_content
    outcome = MetricOutcome(1.0)
    return aggregate.FinishedRun(number, Inference(invocations=turns), [ScoredMetric(CONFIGURED, outcome)])


def _case(*runs, budgets: Budgets | None, pass_rule="mean"):  # type: ignore[no-untyped-def]
    return aggregate.case_result(
        place=aggregate.CasePlace("a.evalset.json", "set", index=0, line=3),
        case=CASE,
        metrics=[CONFIGURED],
        finished=list(runs),
        rules=aggregate.CaseRules(pass_rule=pass_rule, prices=Prices.shipped(), budgets=budgets),
    )


def test_a_turn_over_a_case_budget_fails_its_run_and_the_case_with_the_figures() -> None:
    budgets = Budgets(max_tokens_per_turn=500)
    within = _case(_run(1, 100, 400), budgets=budgets)
    over = _case(_run(1, 100, 620), budgets=budgets)
    assert within.status == "passed" and within.budgets[0].status == "passed"
    assert over.status == "failed" and over.runs[0].status == "failed"
    assert over.runs[0].over_budget == ["max_tokens_per_turn 500 tokens: turn 2 used 620 tokens"]
    assert over.budgets[0].reason == "max_tokens_per_turn 500 tokens: turn 2 of run 1 used 620 tokens"


def test_a_case_budget_over_turns_near_the_largest_float_is_decided_on_a_finite_mean() -> None:
    case = _case(_run(1, 10**308), _run(2, 10**308), budgets=Budgets(max_tokens_per_turn=500))  # their sum overflows
    assert case.status == "failed" and case.budgets[0].value == 1e308
    assert case.usage is not None and case.usage.tokens == 1e308


@pytest.mark.parametrize("field", ["max_tokens_per_turn", "max_seconds_per_turn", "maxModelCallsPerTurn"])
def test_a_budget_of_true_is_a_type_error_naming_the_line_and_field(tmp_path: Path, field: str) -> None:
    path = tmp_path / "test_config.json"
    path.write_text(f'{{"criteria": {{"response_match_score": 0.5}},\n "budgets": {{"{field}": true}}}}', "utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(ConfigSource("folder", path), root=tmp_path)
    line = raised.value.one_line()
    assert f"test_config.json:2: budgets.{field}: Input should be a number, not true" in line, line


def test_a_case_budget_over_several_runs_follows_the_pass_rule() -> None:
    budgets = Budgets(max_tokens_per_turn=500)
    runs = (_run(1, 600), _run(2, 300), _run(3, 300))  # worst turns 600, 300, 300: mean 400
    assert _case(*runs, budgets=budgets).status == "passed"
    assert _case(*runs, budgets=budgets, pass_rule="all").status == "failed"
    assert _case(*runs, budgets=budgets, pass_rule="majority").status == "passed"
    check = _case(*runs, budgets=budgets).budgets[0]
    assert check.value == pytest.approx(400) and "(2 of 3 runs within" in check.reason


def test_a_budget_whose_figure_was_not_reported_leaves_the_case_not_evaluated() -> None:
    silent = aggregate.FinishedRun(
        1,
        Inference(invocations=[_turn("weather in Paris?", "sunny")]),
        [ScoredMetric(CONFIGURED, MetricOutcome(1.0))],
    )
    case = _case(silent, budgets=Budgets(max_model_calls_per_turn=3, max_seconds_per_turn=10))
    assert case.status == "not_evaluated"
    assert [c.status for c in case.budgets] == ["unchecked", "unchecked"]
    assert case.budgets[0].reason == "max_seconds_per_turn cannot be checked: the turns were not timed"


def test_max_cost_passes_fails_or_cannot_be_checked() -> None:
    priced = aggregate.document([_case(_run(1, 1000, 1000), budgets=None)], [], run=_info())
    assert priced.usage is not None
    spent = priced.usage.agent.cost_usd
    assert spent == pytest.approx(2 * (990 * 0.30 + 10 * 2.50) / 1e6)
    assert cost_check(priced.usage, 1.0).status == "passed"
    over = cost_check(priced.usage, 0.0001)
    assert over.status == "failed" and over.reason == f"the agent's cost {money(spent)} is over --max-cost $0.0001"
    unknown = aggregate.document([_case(_run(1, 100, model="my-model"), budgets=None)], [], run=_info())
    check = cost_check(unknown.usage, 1.0)
    assert check.status == "unchecked" and "cost unknown for model my-model" in check.reason
    ruled = decide_with_comparison(
        unknown, None, Policy(fail_on_regression=False, tolerance=0.0, limits=BudgetLimits(max_cost=1.0))
    )
    assert ruled.status == "error" and ruled.budgets[0].status == "unchecked"
    assert (
        decide_with_comparison(unknown, None, Policy(fail_on_regression=False, tolerance=0.0)).status == "passed"
    )  # no budget: no error


def _info():  # type: ignore[no-untyped-def]
    from adk_eval_gate.model.results import RunInfo

    return RunInfo(tool_version="t")


def test_one_more_model_call_per_turn_is_a_significant_rise_and_fails_max_cost_increase() -> None:
    base, head = priced_document(calls=[1] * 3, runs=5), priced_document(calls=[2] * 3, runs=5)
    comparison = compare(head, base, baseline=baseline_info())
    assert comparison.usage is not None
    cost = next(c for c in comparison.usage.suite if c.quantity == "cost_usd")
    assert (cost.change_pct, cost.significance, cost.flagged) == (pytest.approx(100.0), "significant", True)
    assert comparison.usage.rising_cases == 3
    [check] = run_checks(head, comparison, BudgetLimits(max_cost_increase=20))
    assert check.status == "failed"
    assert (
        check.reason.startswith("the cost per pass of the cases both sides ran rose 100.0% from $0.00")
        and "more than --max-cost-increase 20%" in check.reason
    )
    ruled = decide_with_comparison(
        head, comparison, Policy(fail_on_regression=False, tolerance=0.0, limits=BudgetLimits(max_cost_increase=20))
    )
    assert ruled.status == "failed"


def test_the_same_agent_on_both_sides_flags_nothing() -> None:
    base, head = priced_document(calls=[1] * 3, runs=5), priced_document(calls=[1] * 3, runs=5, jitter=0.012)
    usage = compare_usage(head, base)
    assert usage is not None and not any(c.flagged for c in usage.suite) and usage.cases == []
    assert increase_check("max-latency-increase", 10, compare(head, base, baseline=baseline_info())).status == "passed"


def test_increase_budgets_without_a_baseline_are_skipped_not_failed() -> None:
    check = increase_check("max-cost-increase", 20, None)
    assert check.status == "skipped" and check.reason == "--max-cost-increase 20% not checked: no baseline"
    doc = document([])
    assert (
        decide_with_comparison(
            doc, None, Policy(fail_on_regression=False, tolerance=0.0, limits=BudgetLimits(max_cost_increase=20))
        )
        .budgets[0]
        .status
        == "skipped"
    )


def test_small_time_changes_are_never_flagged() -> None:
    jitter = quantity_change(
        "p95_turn_seconds", base=0.010, head=0.019, base_runs=[0.01, 0.01], head_runs=[0.019, 0.019]
    )
    assert jitter.significance == "significant" and jitter.change_pct == pytest.approx(90) and not jitter.flagged


def test_a_case_added_to_the_suite_is_never_a_cost_rise() -> None:
    """The trial's false failure: one more eval case made 'cost per pass rose 18.2%' fail --max-cost-increase 10."""
    base, head = priced_document(calls=[1] * 5, runs=2), priced_document(calls=[1] * 5 + [1], runs=2)
    comparison = compare(head, base, baseline=baseline_info())
    assert comparison.usage is not None and comparison.usage.common_cases == 5
    cost = next(c for c in comparison.usage.suite if c.quantity == "cost_usd")
    assert cost.change_pct == pytest.approx(0.0) and not cost.flagged
    assert comparison.usage.added is not None and comparison.usage.added.cost_usd == pytest.approx(cost.head / 5)
    [check] = run_checks(head, comparison, BudgetLimits(max_cost_increase=10))
    assert check.status == "passed"
    shown = decide_with_comparison(head, comparison, Policy(limits=BudgetLimits(max_cost_increase=10)))
    assert shown.status == "passed"
    line = costs.cost_line(shown)
    assert "on the 5 cases both ran" in line and "not compared: new cases $" in line
    removed = compare(base, head, baseline=baseline_info())
    assert removed.usage is not None and removed.usage.removed is not None and removed.usage.added is None
    assert run_checks(base, removed, BudgetLimits(max_cost_increase=10))[0].status == "passed"


def test_a_quarantined_case_is_left_out_of_both_sides_of_the_cost_line_and_shown_apart() -> None:
    """The trial's confusing line: with a case quarantined, "Cost per pass $0.00072 (base $0.00028, ▲ 100%)" put
    this run's cost of every case beside the baseline's of the gated cases only. The line compares the same cases
    on both sides, says which, and shows the quarantined case's cost apart."""
    base, head = priced_document(calls=[1, 1, 2], runs=2), priced_document(calls=[2, 2, 4], runs=2)
    parked = head.cases[2].model_copy(update={"quarantined": True})
    head = decide_with_comparison(head.model_copy(update={"cases": [*head.cases[:2], parked]}), None, Policy())
    comparison = compare(head, base, baseline=baseline_info())
    usage = comparison.usage
    assert usage is not None and usage.common_cases == 2 and usage.added is None
    cost = next(c for c in usage.suite if c.quantity == "cost_usd")
    assert usage.quarantined is not None and usage.quarantined.cost_usd is not None
    assert head.usage is not None and head.usage.per_pass.cost_usd is not None
    assert cost.base is not None and cost.head is not None and cost.change_pct == pytest.approx(100.0)
    assert cost.head + usage.quarantined.cost_usd == pytest.approx(head.usage.per_pass.cost_usd)
    shown = decide_with_comparison(head, comparison, Policy())
    line = costs.cost_line(shown)
    assert (
        f"Cost per pass {money(head.usage.per_pass.cost_usd)} (on the 2 cases both ran, quarantined left out: "
        f"{money(cost.base)} → {money(cost.head)}, ▲ 100%) · "
    ) in line, line
    assert f"not compared: quarantined cases {money(usage.quarantined.cost_usd)}" in line
    assert f"base {money(cost.base)}" not in line  # never the gated cases' base beside every case's head
    table = costs.usage_table(shown)
    assert "_Compared on the 2 cases both ran, quarantined left out; not compared: quarantined cases $" in table
    assert "tokens (2.1k → 4.2k, ▲ 100%)" in line  # which cases is said once, at the first figure


def test_a_latency_rise_under_the_floor_never_fails_the_latency_budget() -> None:
    """The trial's false failure: p95 0.091 s -> 0.137 s, a rise the comparison does not flag (under 0.1 s),
    failed --max-latency-increase 20. A budget fails only on a flagged rise."""
    from adk_eval_gate.model.results import BaselineInfo, Comparison, UsageComparison

    rise = quantity_change(
        "p95_turn_seconds", base=0.091, head=0.137, base_runs=[0.09, 0.091], head_runs=[0.137, 0.138]
    )
    assert rise.significance == "significant" and not rise.flagged
    comparison = Comparison(baseline=BaselineInfo(source="file", description="x"), usage=UsageComparison(suite=[rise]))
    check = increase_check("max-latency-increase", 20, comparison)
    assert check.status == "passed"
    assert "(too small to matter)" in check.reason and "within --max-latency-increase 20%" in check.reason
    doubled = quantity_change("p95_turn_seconds", base=0.5, head=1.0, base_runs=[0.5, 0.51], head_runs=[1.0, 1.01])
    assert doubled.flagged
    slow = Comparison(baseline=BaselineInfo(source="file", description="x"), usage=UsageComparison(suite=[doubled]))
    assert increase_check("max-latency-increase", 20, slow).status == "failed"


def test_increase_budgets_without_a_case_in_common_are_skipped_and_every_output_says_so() -> None:
    """Every case new: the increase budgets were an error ("unknown on this run") and the run failed with it,
    though nothing was missing; there is only nothing to compare, as without a baseline."""
    import html
    import io

    from adk_eval_gate.report import comment, summary
    from adk_eval_gate.report import console_lines as console_report
    from adk_eval_gate.report import markdown as md
    from adk_eval_gate.report.html import page
    from adk_eval_gate.support.console import Console

    base = priced_document(calls=[1, 2], runs=2)
    head = priced_document(calls=[1, 2], runs=2)
    head = head.model_copy(
        update={
            "cases": [
                case.model_copy(update={"id": f"{case.id}_new", "eval_id": f"{case.eval_id}_new"})
                for case in head.cases
            ]
        }
    )
    comparison = compare(head, base, baseline=baseline_info())
    assert comparison.usage is not None and comparison.usage.common_cases == 0
    limits = BudgetLimits(max_cost_increase=10, max_latency_increase=10)
    shown = decide_with_comparison(head, comparison, Policy(limits=limits))
    assert shown.status == "passed" and shown.totals.budgets_unchecked == 0
    reasons = {check.name: check.reason for check in shown.budgets if check.status == "skipped"}
    assert reasons == {
        name: f"--{name} 10% not checked: this run and the baseline have no case in common (every case is new), so "
        "there is nothing to compare"
        for name in ("max-cost-increase", "max-latency-increase")
    }
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), shown)
    markdown = [comment.render(shown), summary.render(shown)]
    for reason in reasons.values():
        assert f"Budget skipped: {reason}" in out.getvalue().splitlines()
        assert all(f"- ➖ {md.inline(reason, limit=300)}" in text for text in markdown)
        assert html.escape(reason) in page.render(shown)
    assert "not compared: new cases $" in costs.cost_line(shown) and "removed cases $" in costs.cost_line(shown)

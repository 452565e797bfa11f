"""--sequential in the verdict: a case's decision read from its runs, the findings it gives under each --undecided
policy, the totals of runs spent, and saved results decided again from their runs."""

from __future__ import annotations

import json

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.model.results import CaseResult, ResultsDocument, SequentialRun, UndecidedPolicy, parse_document
from adk_eval_gate.model.results import dump_json as results_json
from adk_eval_gate.verdict import Policy
from tests.report.builders import case, document, metric

RESPONSE = "response_match_score"


def _settings(*, undecided: UndecidedPolicy = "point", max_runs: int = 10) -> SequentialRun:
    return SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=max_runs, undecided=undecided)


def _decided(scores: list[float | None], settings: SequentialRun, *, threshold: float = 0.8) -> CaseResult:
    built = case("paris", [metric(RESPONSE, scores, threshold=threshold)])
    return verdict.decide_case(built, pass_rule="mean", sequential=settings)


def _sequential_findings(decided: CaseResult) -> list[tuple[str, str]]:
    return [(found.effect, found.reason) for found in decided.findings if found.rule == "sequential"]


def test_a_case_that_always_scores_the_top_is_proven_to_pass_on_the_runs_it_read() -> None:
    decided = _decided([1.0] * 20, _settings(max_runs=20))
    assert decided.status == "passed" and decided.sequential is not None
    assert decided.sequential.decision == "proven-pass" and decided.sequential.runs < 20
    assert decided.sequential.e_pass >= 20 and decided.sequential.verdict == "pass"
    [(effect, reason)] = _sequential_findings(decided)
    assert effect == "none" and reason.startswith("proven to pass at 95% after ")


def test_a_case_that_always_scores_zero_is_proven_to_fail_and_says_so() -> None:
    decided = _decided([0.0] * 4, _settings())
    assert decided.status == "failed" and decided.sequential is not None
    assert decided.sequential.decision == "proven-fail"
    [(effect, reason)] = _sequential_findings(decided)
    assert effect == "failed" and reason.startswith("proven to fail at 95% after 2 runs")


@pytest.mark.parametrize(
    ("scores", "undecided", "status", "effect"),
    [
        ([1.0, 0.5, 1.0, 0.5], "point", "failed", "failed"),  # today's verdict on its runs: 0.75 < 0.8
        ([1.0, 0.5, 1.0, 0.5], "neutral", "passed", "none"),  # no regression proven: it does not fail the gate
        ([1.0, 0.6, 1.0, 0.6], "point", "passed", "none"),  # today's verdict: 0.8 meets 0.8
        ([1.0, 0.6, 1.0, 0.6], "fail", "failed", "failed"),
    ],
)
def test_a_case_still_open_at_its_most_runs_follows_the_undecided_policy(
    scores: list[float | None], undecided: UndecidedPolicy, status: str, effect: str
) -> None:
    decided = _decided(scores, _settings(undecided=undecided, max_runs=4))
    assert decided.sequential is not None and decided.sequential.decision == "undecided"
    assert decided.status == status
    [(found_effect, reason)] = _sequential_findings(decided)
    assert found_effect == effect
    assert reason.startswith("undecided after 4 runs (mean 0.") and "threshold 0.8" in reason
    assert f"--undecided {undecided}" in reason
    threshold_effects = {found.effect for found in decided.findings if found.rule == "threshold"}
    assert threshold_effects <= ({"failed"} if status == "failed" else {"none"})


def test_a_score_outside_the_metric_range_is_no_evidence_and_today_verdict_stands() -> None:
    decided = _decided([1.0, 7.5, 1.0], _settings(max_runs=3), threshold=0.8)
    assert decided.sequential is not None and decided.sequential.decision is None
    assert decided.sequential.runs == 1  # the runs before the one out of range
    [(effect, reason)] = _sequential_findings(decided)
    assert effect == "none" and reason.startswith("no sequential decision after 1 run: a decision needed more")
    assert decided.status == "passed"  # today's verdict on its runs


def test_the_totals_count_the_runs_spent_against_a_fixed_num_runs_and_the_decisions() -> None:
    settings = _settings(max_runs=20)
    cases = [_decided([1.0] * 20, settings), _decided([0.0] * 2, settings), case("plain", [metric(RESPONSE, 0.9)])]
    totals = verdict.totals(cases, [], sequential=settings)
    assert (totals.runs, totals.runs_fixed) == (sum(len(c.runs) for c in cases), 60)
    assert (totals.proven, totals.curtailed, totals.undecided) == (2, 0, 0)
    assert verdict.totals(cases, []).runs is None  # without --sequential the totals are today's


def test_saved_results_are_decided_again_from_their_runs_whatever_their_sequential_record_claims() -> None:
    settings = _settings(max_runs=4)
    failing = _decided([0.0] * 4, settings)
    assert failing.sequential is not None
    forged = failing.sequential.model_copy(update={"decision": "proven-pass", "verdict": "pass", "e_pass": 1e9})
    doc = document([failing.model_copy(update={"sequential": forged, "status": "passed", "findings": []})])
    doc = doc.model_copy(update={"run": Policy(sequential=settings).record(doc.run)})
    decided, claims = verdict.redecide(parse_document(json.loads(results_json(doc)), shown="results.json"))
    [again] = decided.cases
    assert again.sequential is not None and again.sequential.decision == "proven-fail"
    assert again.status == "failed" and claims


@pytest.mark.parametrize("bounds", [[1.0, 0.0], [0.5, 0.5], [1e308, -1e308]])
def test_a_saved_range_that_is_not_a_range_leaves_the_case_to_today_verdict(bounds: list[float]) -> None:
    decided = _decided([0.0] * 4, _settings(max_runs=4))
    assert decided.sequential is not None
    forged = decided.sequential.model_copy(update={"ranges": {RESPONSE: bounds}})
    again = verdict.decide_case(
        decided.model_copy(update={"sequential": forged}), pass_rule="mean", sequential=_settings(max_runs=4)
    )
    assert again.sequential is None and again.status == "failed"
    assert not [found for found in again.findings if found.rule == "sequential"]


def _varying_runs_document(settings: SequentialRun) -> ResultsDocument:
    cases = [
        case("steady", [metric(RESPONSE, [1.0, 1.0])]),  # 2 of 2 runs pass
        case("coin", [metric(RESPONSE, [1.0, 0.0, 1.0, 0.0])]),  # 2 of 4 pass
        case("often", [metric(RESPONSE, [1.0, 1.0, 0.0, 1.0, 1.0, 1.0])]),  # 5 of 6 pass
    ]
    built = document(cases, num_runs=settings.max_runs)
    return verdict.decide(built, None, Policy(sequential=settings))


def test_with_varying_run_counts_pass_k_is_each_cases_chance_that_k_of_its_runs_all_pass_at_min_runs() -> None:
    suite = _varying_runs_document(_settings()).stability
    assert suite is not None and suite.k == 2 and suite.runs == [2, 6]
    # C(c,2)/C(n,2): 1, 1/6 and 10/15, averaged; pass@2: 1 - C(n-c,2)/C(n,2): 1, 5/6 and 1
    assert suite.pass_hat_k == pytest.approx((1 + 1 / 6 + 10 / 15) / 3)
    assert suite.pass_at_k == pytest.approx((1 + 5 / 6 + 1) / 3)


def test_pass_k_is_stated_at_the_fewest_runs_a_case_ran_when_that_is_below_min_runs() -> None:
    settings = SequentialRun(confidence=0.95, margin=0.1, min_runs=3, max_runs=10, undecided="point")
    suite = _varying_runs_document(settings).stability
    assert suite is not None and suite.k == 2  # "steady" ran 2: C(2,3) has no meaning


def test_without_sequential_pass_k_is_the_share_of_cases_that_passed_all_their_runs_and_says_no_k() -> None:
    cases = [case("steady", [metric(RESPONSE, [1.0, 1.0, 1.0])]), case("coin", [metric(RESPONSE, [1.0, 0.0, 1.0])])]
    doc = document(cases, num_runs=3)
    assert doc.stability is not None and doc.stability.k is None and doc.stability.runs is None
    assert doc.stability.pass_hat_k == 0.5 and doc.stability.pass_at_k == 1.0
    saved = json.loads(results_json(doc))
    assert "k" not in saved["stability"] and "runs" not in saved["stability"]  # what it always wrote

"""--undecided neutral's suite-wide proof: once every case is decided, e-BH over the cases' FAIL e-values, across
the suite's cases, fails those it proves failing; the same in a run, in saved results decided again and in merged
shards."""

from __future__ import annotations

import json
import random

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.aggregate.merged_shards import merge_documents
from adk_eval_gate.model.results import (
    CaseResult,
    ResultsDocument,
    SequentialCase,
    SequentialRun,
    UndecidedPolicy,
    parse_document,
)
from adk_eval_gate.model.results import dump_json as results_json
from adk_eval_gate.verdict import Policy
from adk_eval_gate.verdict.sequential import (
    MetricSpec,
    RunOutcome,
    SequentialSettings,
    consume,
    e_bh,
    open_evidence,
)
from adk_eval_gate.verdict.sequential_suite import proven_across_suite
from tests.report.builders import case, document, metric

RESPONSE = "response_match_score"
ALPHA = 0.05


def _settings(*, suite: int, undecided: UndecidedPolicy = "neutral") -> SequentialRun:
    return SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=10, undecided=undecided, fail_split=suite)


def _with_e_fail(eval_id: str, e_fail: float) -> CaseResult:
    record = SequentialCase(
        decision="undecided", verdict="neutral", runs=10, e_pass=1.0, e_fail=e_fail, interval=[0.0, 1.0],
        metric=RESPONSE, threshold=0.8,
    )  # fmt: skip
    return case(eval_id, [metric(RESPONSE, [0.5], threshold=0.8)]).model_copy(update={"sequential": record})


def test_e_bh_fails_the_largest_k_cases_whose_kth_e_value_meets_m_over_k_alpha() -> None:
    cases = [_with_e_fail(name, e) for name, e in [("a", 150.0), ("b", 1.0), ("c", 40.0), ("d", 60.0), ("e", 0.5)]]
    # m = 5 at 5%: bars 100, 50, 33.3, 25 for k = 1..4; 150, 60 and 40 meet theirs, 1 does not
    proven = proven_across_suite(cases, _settings(suite=5))
    assert sorted(proven) == [cases[0].id, cases[2].id, cases[3].id]
    [proof] = set(proven.values())
    assert proof.cases == 5 and proof.bar == pytest.approx(5 / (ALPHA * 3))
    # the same five as one shard of a suite of 10: the cases it lacks count as nothing, the bars double
    assert proven_across_suite(cases, _settings(suite=10)) == {}
    assert proven_across_suite(cases, _settings(suite=5, undecided="point")) == {}


def _half_scoring(count: int, settings: SequentialRun) -> list[CaseResult]:
    """Cases that score 0.5 against a threshold of 0.8 on each of their 10 runs: alone, each stays undecided
    (an e-value of about 400 against the bar 200 / 0.05 = 4,000)."""
    built = [case(f"half-{index}", [metric(RESPONSE, [0.5] * 10, threshold=0.8)]) for index in range(count)]
    return [verdict.decide_case(each, pass_rule="mean", sequential=settings) for each in built]


def _decided(cases: list[CaseResult], settings: SequentialRun) -> ResultsDocument:
    doc = document(cases)
    doc = doc.model_copy(update={"run": Policy(sequential=settings).record(doc.run)})
    return verdict.decide(doc, None, Policy.recorded(doc.run))


def test_under_neutral_cases_undecided_alone_fail_once_enough_of_the_suite_fails_with_them() -> None:
    settings = _settings(suite=200)
    ten = _decided(_half_scoring(10, settings), settings)  # k = 10: bar 400, above their e-values
    assert ten.status == "passed" and {c.sequential.decision for c in ten.cases if c.sequential} == {"undecided"}
    eleven = _decided(_half_scoring(11, settings), settings)  # k = 11: bar 364
    assert eleven.status == "failed" and eleven.totals.failed == 11
    for decided in eleven.cases:
        assert decided.sequential is not None and decided.fails_gate
        assert (decided.sequential.decision, decided.sequential.verdict) == ("proven-fail", "fail")
        [found] = [f for f in decided.findings if f.rule == "sequential"]
        assert found.effect == "failed"
        assert found.reason.startswith("proven failing across the suite's 200 cases at 95% after 10 runs (e-BH:")
        assert "bar 364)" in found.reason
        assert {f.effect for f in decided.findings if f.rule == "threshold"} == {"failed"}
    assert verdict.decide(eleven, None, Policy.recorded(eleven.run)) == eleven  # deciding again changes nothing


def test_saved_results_and_merged_shards_give_the_suite_wide_proof_again() -> None:
    settings = _settings(suite=200)
    cases = _half_scoring(11, settings)
    whole = _decided(cases, settings)
    saved = parse_document(json.loads(results_json(whole)), shown="results.json")
    again, claims = verdict.redecide(saved)
    assert claims == [] and again.cases == whole.cases and again.status == "failed"
    shards = [_decided(cases[:6], settings), _decided(cases[6:], settings)]
    assert {shard.status for shard in shards} == {"passed"}  # neither shard alone has enough of the suite
    merged = merge_documents(shards)
    assert merged.status == "failed" and [c.sequential for c in merged.cases] == [c.sequential for c in whole.cases]


def _final_e_fail(settings: SequentialSettings, rng: random.Random, rate: float) -> float:
    spec = MetricSpec("runs", 0.5)  # majority: half the runs must pass
    runs = {run: RunOutcome(passed=rng.random() < rate) for run in range(1, settings.max_runs + 1)}
    return consume(open_evidence(settings, [spec]), runs).e_fail


def test_e_bh_over_stopped_e_values_fails_a_healthy_suite_at_most_alpha_of_the_time() -> None:
    settings = SequentialSettings(pass_rule="majority", undecided="neutral", fail_split=20)
    rng = random.Random(7)
    failed = sum(bool(e_bh([_final_e_fail(settings, rng, 0.5) for _ in range(20)], alpha=ALPHA)) for _ in range(40))
    assert failed / 40 <= ALPHA


def test_e_bh_fails_always_failing_cases_the_split_bar_leaves_undecided() -> None:
    settings = SequentialSettings(pass_rule="majority", undecided="neutral", fail_split=200)
    rng = random.Random(7)
    e_values = [_final_e_fail(settings, rng, 0.0) for _ in range(20)] + [1.0] * 180
    assert max(e_values) < 200 / ALPHA  # each alone undecided after its 10 runs
    assert e_bh(e_values, alpha=ALPHA) == list(range(20))


def test_saved_e_values_are_not_trusted_the_suite_wide_proof_reads_the_runs() -> None:
    settings = _settings(suite=200)
    cases = _half_scoring(10, settings)  # k = 10: bar 400, above the e-values their runs give
    forged = [
        c.model_copy(update={"sequential": c.sequential.model_copy(update={"e_fail": 1e12})})
        for c in cases
        if c.sequential is not None
    ]
    saved = _decided(cases, settings).model_copy(update={"cases": forged})
    again, _ = verdict.redecide(parse_document(json.loads(results_json(saved)), shown="results.json"))
    assert again.status == "passed"
    assert {(c.sequential.decision, c.sequential.e_fail < 400) for c in again.cases if c.sequential} == {
        ("undecided", True)
    }

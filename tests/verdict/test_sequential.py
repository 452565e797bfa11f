"""Sequential verdicts on a case's runs: what each pass rule proves and when, curtailment, the undecided policies,
the runs read in run-number order, several metrics, the wave planner, the comparison with the base branch and e-BH,
and evidence saved and continued."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from typing import Any

import pydantic
import pytest

from adk_eval_gate.model.results import PassRule
from adk_eval_gate.verdict.sequential import (
    CaseEvidence,
    MetricSpec,
    RunOutcome,
    SequentialSettings,
    base_settled,
    compare_with_base,
    consume,
    continue_evidence,
    e_bh,
    evidence_from_json,
    evidence_json,
    gate_verdict,
    interval,
    next_wave,
    open_evidence,
    regression_e_value,
)
from adk_eval_gate.verdict.sequential.evidence import point_verdict
from adk_eval_gate.verdict.sequential.streams import point_passes, run_streams


def _by_outcome(rule: PassRule, passes: list[int], **settings: object) -> CaseEvidence:
    chosen = SequentialSettings(pass_rule=rule, **settings)  # type: ignore[arg-type]
    return consume(open_evidence(chosen), {run: RunOutcome(bool(ok)) for run, ok in enumerate(passes, start=1)})


def _by_score(scores: list[float], *, metrics: list[MetricSpec] | None = None, **settings: object) -> CaseEvidence:
    chosen = SequentialSettings(pass_rule="mean", **settings)  # type: ignore[arg-type]
    specs = metrics or [MetricSpec("response_match_score", 0.7)]
    runs = {run: RunOutcome(True, {spec.name: score for spec in specs}) for run, score in enumerate(scores, start=1)}
    return consume(open_evidence(chosen, specs), runs)


# --- what each pass rule proves --------------------------------------------------------------------------------


def test_a_case_that_always_passes_under_majority_is_proven_passing_after_four_runs() -> None:
    evidence = _by_outcome("majority", [1] * 10)
    assert (evidence.decision, evidence.passed, evidence.runs) == ("proven-pass", True, 4)
    assert evidence.e_pass >= 20 > evidence.e_fail


def test_a_case_that_always_fails_under_majority_is_proven_failing() -> None:
    evidence = _by_outcome("majority", [0] * 10)
    assert (evidence.decision, evidence.passed) == ("proven-fail", False)
    assert evidence.runs < 10 and evidence.e_fail >= 20


def test_a_case_whose_runs_always_score_one_under_mean_at_0_7_is_proven_passing_after_seven_runs() -> None:
    evidence = _by_score([1.0] * 10)
    assert (evidence.decision, evidence.runs) == ("proven-pass", 7)


def test_no_decision_is_taken_before_the_minimum_runs() -> None:
    evidence = _by_outcome("all", [0], min_runs=2)
    assert (evidence.decision, evidence.runs) == (None, 1)
    assert gate_verdict(evidence) is None


def test_under_all_a_pass_needs_every_one_of_the_n_runs_and_is_never_claimed_sooner() -> None:
    passing = _by_outcome("all", [1] * 30, max_runs=20)
    assert (passing.decision, passing.passed, passing.runs) == ("curtailed", True, 20)
    assert passing.e_pass == 1.0  # no PASS test: ten clean runs prove only a rate above 0.74


def test_under_all_the_first_failing_run_decides_a_fail() -> None:
    evidence = _by_outcome("all", [1, 1, 1, 0, 1, 1])
    assert (evidence.decision, evidence.passed, evidence.runs) == ("proven-fail", False, 4)


def test_a_threshold_at_the_top_of_the_range_is_decided_as_all_is() -> None:
    evidence = _by_score([1.0] * 20, metrics=[MetricSpec("tool_trajectory_avg_score", 1.0)], max_runs=20)
    assert (evidence.decision, evidence.runs) == ("curtailed", 20)
    assert _by_score([1.0, 0.5, 1.0]).decision is None
    assert _by_score([1.0, 0.5], metrics=[MetricSpec("t", 1.0)]).decision == "proven-fail"


def test_a_metric_where_lower_is_better_is_decided_in_its_direction() -> None:
    spec = MetricSpec("hallucinations", 0.3, higher_is_better=False)
    assert _by_score([0.0] * 10, metrics=[spec]).decision == "proven-pass"
    assert _by_score([1.0] * 10, metrics=[spec]).decision == "proven-fail"


def test_a_metric_on_its_own_range_is_rescaled_and_its_interval_is_on_that_range() -> None:
    evidence = _by_score([4.5] * 10, metrics=[MetricSpec("rubric", 3.0, low=1.0, high=5.0)])
    low, high = interval(evidence)
    assert evidence.decision == "proven-pass"
    assert 1.0 <= low < 4.5 <= high <= 5.0


# --- curtailment and the undecided ------------------------------------------------------------------------------


def test_a_majority_case_stops_once_its_n_run_verdict_can_no_longer_change() -> None:
    evidence = _by_outcome("majority", [1, 1, 0, 1, 1, 1, 1, 0, 1, 1])
    assert (evidence.decision, evidence.passed, evidence.runs) == ("curtailed", True, 7)


@pytest.mark.slow  # 800 simulated cases
def test_curtailment_never_changes_the_verdict_of_the_n_runs() -> None:
    rng = random.Random(3)
    for rule in ("majority", "all"):
        for _ in range(200):
            rate = rng.uniform(0.3, 0.9)
            runs = [int(rng.random() < rate) for _ in range(10)]
            evidence = _by_outcome(rule, runs)  # type: ignore[arg-type]
            if evidence.decision == "curtailed":
                assert evidence.passed == point_passes(run_streams(rule, [])[0], [float(ok) for ok in runs])  # type: ignore[arg-type]
    for _ in range(200):
        scores = [rng.betavariate(3, 1.5) for _ in range(10)]
        evidence = _by_score(scores)
        if evidence.decision == "curtailed":
            assert evidence.passed == (math.fsum(scores) / 10 >= 0.7)


def test_a_case_still_open_at_n_is_undecided_with_the_verdict_of_its_n_runs() -> None:
    evidence = _by_outcome("majority", [1, 0] * 5)
    assert (evidence.decision, evidence.passed, evidence.runs) == ("undecided", False, 10)
    assert point_verdict(evidence) is False


@pytest.mark.parametrize(("policy", "expected"), [("point", "fail"), ("neutral", "neutral"), ("fail", "fail")])
def test_the_undecided_policy_decides_what_an_undecided_case_does_to_the_gate(policy: str, expected: str) -> None:
    assert gate_verdict(_by_outcome("majority", [1, 0] * 5, undecided=policy)) == expected


def test_an_undecided_case_that_passes_on_its_runs_fails_the_gate_only_under_the_fail_policy() -> None:
    runs = [1, 0] * 5 + [1, 1]
    assert gate_verdict(_by_outcome("majority", runs, max_runs=12, undecided="point")) == "pass"
    assert gate_verdict(_by_outcome("majority", runs, max_runs=12, undecided="fail")) == "fail"


def test_a_proven_verdict_is_the_gate_verdict_whatever_the_undecided_policy() -> None:
    assert gate_verdict(_by_outcome("majority", [0] * 10, undecided="neutral")) == "fail"
    assert gate_verdict(_by_outcome("majority", [1] * 10, undecided="fail")) == "pass"


def test_under_neutral_a_case_heading_for_an_unproven_failure_runs_on_for_a_proof() -> None:
    heading_to_fail = [1, 0, 0, 1, 0, 0, 1, 0, 1, 1]
    assert _by_outcome("majority", heading_to_fail).decision == "curtailed"
    assert gate_verdict(_by_outcome("majority", heading_to_fail, undecided="point")) == "fail"
    assert gate_verdict(_by_outcome("majority", heading_to_fail, undecided="fail")) == "fail"
    neutral = _by_outcome("majority", heading_to_fail, undecided="neutral")
    assert (neutral.decision, neutral.runs, gate_verdict(neutral)) == ("undecided", 10, "neutral")
    assert _by_score([1.0] + [0.0] * 9, undecided="point").decision == "curtailed"
    failing = _by_score([1.0] + [0.0] * 9, undecided="neutral")
    assert (failing.decision, failing.runs, gate_verdict(failing)) == ("proven-fail", 7, "fail")
    assert gate_verdict(_by_outcome("majority", [1, 1, 0, 1, 1, 1, 1], undecided="neutral")) == "pass"


# --- run-number order, gaps and continuation --------------------------------------------------------------------


def test_a_failure_split_across_the_suite_needs_its_share_of_the_error_and_is_still_proven_when_clear() -> None:
    runs = [0.0] * 10
    per_case = _by_score(runs, undecided="neutral")
    split = _by_score(runs, undecided="neutral", fail_split=200)
    assert per_case.decision == "proven-fail" and per_case.runs == 3  # e-value 30: at least 1 / 0.05
    assert split.decision == "proven-fail" and split.runs == 8  # needs 200 / 0.05 = 4,000
    assert split.e_fail >= 200 / 0.05 > _by_score(runs[:7], undecided="neutral", fail_split=200).e_fail


def test_a_failure_a_split_cannot_prove_within_n_stays_undecided_under_neutral() -> None:
    evidence = _by_outcome("majority", [0] * 10, undecided="neutral", fail_split=200)
    assert (evidence.decision, evidence.runs, gate_verdict(evidence)) == ("undecided", 10, "neutral")


def test_only_the_runs_that_follow_on_in_run_number_order_are_read() -> None:
    settings = SequentialSettings(pass_rule="majority")
    evidence = consume(open_evidence(settings), {1: RunOutcome(True), 2: RunOutcome(True), 4: RunOutcome(False)})
    assert evidence.runs == 2  # run 3 (re-queued after an infrastructure error) has not finished
    later = consume(evidence, {1: RunOutcome(True), 2: RunOutcome(True), 3: RunOutcome(True), 4: RunOutcome(True)})
    assert (later.decision, later.runs) == ("proven-pass", 4)


def test_runs_that_finish_after_the_decision_are_not_read() -> None:
    evidence = _by_outcome("majority", [1, 1, 1, 1, 0, 0, 0])
    assert (evidence.runs, evidence.decision) == (4, "proven-pass")
    assert consume(evidence, {5: RunOutcome(False)}) == evidence


def test_saved_evidence_read_back_continues_exactly_as_if_it_had_never_been_saved() -> None:
    rng = random.Random(4)
    specs = [MetricSpec("a", 0.7), MetricSpec("b", 2.0, low=0.0, high=5.0)]
    settings = SequentialSettings(pass_rule="mean", max_runs=20)
    runs = {run: RunOutcome(True, {"a": rng.random(), "b": rng.uniform(0, 5)}) for run in range(1, 21)}
    whole = consume(open_evidence(settings, specs), runs)
    first = consume(open_evidence(settings, specs), {run: runs[run] for run in range(1, 4)})
    saved = json.loads(json.dumps(evidence_json(first)))
    assert {"decision", "runs", "e_pass", "e_fail", "interval"} <= set(saved)
    assert consume(evidence_from_json(saved), runs) == whole


def test_a_job_re_run_keeps_a_proof_and_reopens_an_undecided_case_with_its_capitals() -> None:
    proven = _by_outcome("majority", [1] * 10)
    assert continue_evidence(proven) == proven
    undecided = _by_outcome("majority", [1, 0] * 5)
    reopened = continue_evidence(undecided)
    assert (reopened.decision, reopened.runs, reopened.window_start) == (None, 10, 10)
    assert reopened.streams == undecided.streams
    more = consume(reopened, {run: RunOutcome(True) for run in range(11, 21)})
    assert more.runs > 10 and more.decision is not None


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda saved: saved["streams"][0]["capitals"].update(log_pass=9.0), "capitals of runs do not follow"),
        (lambda saved: saved["streams"][0]["raws"].append(1.0), "capitals of runs do not follow"),
        (lambda saved: saved.update(decision="proven-pass", passed=True), "claims a proven pass"),
        (lambda saved: saved.update(window_start=99), "runs and window do not add up"),
        (lambda saved: saved["streams"][0]["raws"].__setitem__(0, 7.0), "outside its declared range"),
    ],
)
def test_saved_evidence_whose_figures_do_not_follow_from_its_runs_is_refused(
    edit: Callable[[dict[str, Any]], None], reason: str
) -> None:
    saved = evidence_json(_by_outcome("majority", [1, 0, 1]))
    edit(saved)
    with pytest.raises(ValueError, match=reason) as err:
        evidence_from_json(saved)
    assert "\n" not in str(err.value)


def test_a_saved_evidence_that_is_not_one_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError):
        evidence_from_json({"settings": {"pass_rule": "mean"}, "streams": "\x00" * 10})


# --- several metrics --------------------------------------------------------------------------------------------


def test_a_case_fails_when_any_one_of_its_metrics_is_proven_failing() -> None:
    specs = [MetricSpec("good", 0.7), MetricSpec("bad", 0.7)]
    settings = SequentialSettings(pass_rule="mean")
    runs = {run: RunOutcome(True, {"good": 1.0, "bad": 0.0}) for run in range(1, 11)}
    evidence = consume(open_evidence(settings, specs), runs)
    assert (evidence.decision, evidence.passed) == ("proven-fail", False)
    assert interval(evidence)[1] < 0.7  # the interval is the failing metric's


def test_a_case_is_proven_passing_only_when_every_metric_is() -> None:
    specs = [MetricSpec("sure", 0.5), MetricSpec("slow", 0.8)]
    settings = SequentialSettings(pass_rule="mean", max_runs=30)
    runs = {run: RunOutcome(True, {"sure": 1.0, "slow": 1.0}) for run in range(1, 31)}
    assert (
        consume(open_evidence(settings, specs), runs).runs
        == _by_score([1.0] * 30, metrics=[specs[1]], max_runs=30).runs
    )


def test_the_error_budget_across_metrics_rejects_wherever_bonferroni_would() -> None:
    specs = [MetricSpec(name, 0.7) for name in ("a", "b", "c")]
    settings = SequentialSettings(pass_rule="mean", max_runs=30)
    runs = {run: RunOutcome(True, {"a": 0.0, "b": 0.8, "c": 0.8}) for run in range(1, 31)}
    evidence = consume(open_evidence(settings, specs), runs)
    alone = _by_score([0.0] * 30, metrics=[specs[0]], max_runs=30)
    assert evidence.decision == "proven-fail"
    assert evidence.runs >= alone.runs  # the budget is shared, so a little more evidence is needed


# --- the wave planner -------------------------------------------------------------------------------------------


def test_the_first_wave_is_the_minimum_runs_or_more_for_a_case_history_shows_flaky() -> None:
    evidence = open_evidence(SequentialSettings(pass_rule="majority"))
    assert next_wave(evidence, in_flight=0, free_slots=8) == 2
    assert next_wave(evidence, in_flight=0, free_slots=8, known_flaky=True) == 5
    assert next_wave(evidence, in_flight=0, free_slots=1) == 1


def test_a_later_wave_starts_the_runs_the_earliest_decision_needs_less_those_in_flight() -> None:
    evidence = _by_outcome("majority", [1, 1])
    assert next_wave(evidence, in_flight=0, free_slots=8) == 2  # four clean runs prove a pass
    assert next_wave(evidence, in_flight=1, free_slots=8) == 1
    assert next_wave(evidence, in_flight=8, free_slots=8) == 0


def test_runs_finished_after_a_gap_count_as_in_flight_so_no_case_exceeds_n() -> None:
    settings = SequentialSettings(pass_rule="majority")
    evidence = consume(open_evidence(settings), {run: RunOutcome(run % 2 == 0) for run in range(2, 11)})
    assert evidence.runs == 0  # run 1 still running: nine runs finished, none read
    assert next_wave(evidence, in_flight=10, free_slots=8) == 0


def test_a_decided_case_starts_no_runs_and_none_exceeds_n() -> None:
    assert next_wave(_by_outcome("majority", [1] * 4), in_flight=0, free_slots=8) == 0
    open_case = _by_outcome("majority", [1, 0] * 4)
    assert next_wave(open_case, in_flight=1, free_slots=8) <= 1


# --- the base branch --------------------------------------------------------------------------------------------


def test_a_regression_is_proven_only_when_the_head_lies_below_the_base_minus_the_tolerance() -> None:
    assert compare_with_base(head=(0.1, 0.5), base=(0.7, 0.9), tolerance=0.1) == "regression"
    assert compare_with_base(head=(0.1, 0.65), base=(0.7, 0.9), tolerance=0.1) == "within-noise"
    assert compare_with_base(head=(0.85, 1.0), base=(0.7, 0.9), tolerance=0.1) == "no-regression"


def test_a_head_that_always_fails_against_a_passing_base_has_a_large_regression_e_value() -> None:
    assert regression_e_value([0.0] * 10, base_low=0.8, tolerance=0.1, alpha=0.05) > 20
    assert regression_e_value([1.0] * 10, base_low=0.8, tolerance=0.1, alpha=0.05) < 1
    assert regression_e_value([0.0] * 10, base_low=0.05, tolerance=0.1, alpha=0.05) == 1.0


def test_the_comparison_with_the_base_is_settled_by_a_proven_regression_or_no_regression_on_every_metric() -> None:
    base = {"a": [1.0] * 20, "b": [1.0] * 20}
    assert not base_settled({"a": [1.0] * 2, "b": [1.0] * 2}, base, confidence=0.95, tolerance=0.0)  # too few runs
    assert base_settled({"a": [1.0] * 10, "b": [1.0] * 10}, base, confidence=0.95, tolerance=0.4)  # no regression
    assert base_settled({"a": [0.0] * 10, "b": [1.0] * 2}, base, confidence=0.95, tolerance=0.0)  # a regression
    assert not base_settled({"a": [1.0] * 10}, base, confidence=0.95, tolerance=0.4)  # b not run yet


def test_a_metric_outside_0_to_1_or_without_base_values_has_nothing_to_settle() -> None:
    base = {"a": [1.0] * 20, "steps": [3.0, 4.0], "empty": []}
    head = {"a": [1.0] * 10, "steps": [5.0] * 10}
    assert base_settled(head, base, confidence=0.95, tolerance=0.4)


def test_e_bh_flags_the_largest_e_values_that_clear_their_rank_s_bar() -> None:
    assert e_bh([100.0, 1.0, 50.0, 0.5], alpha=0.1) == [0, 2]  # bars 40 and 20 for ranks 1 and 2
    assert e_bh([30.0, 1.0, 1.0, 1.0], alpha=0.1) == []
    assert e_bh([], alpha=0.1) == []


def test_e_bh_keeps_the_share_of_false_flags_at_most_alpha() -> None:
    rng = random.Random(5)
    false_share = []
    for _ in range(200):
        nulls = [
            regression_e_value([float(rng.random() < 0.8) for _ in range(10)], base_low=0.8, tolerance=0.0, alpha=0.05)
            for _ in range(18)
        ]
        real = [regression_e_value([0.0] * 10, base_low=0.8, tolerance=0.0, alpha=0.05) for _ in range(2)]
        flagged = e_bh(nulls + real, alpha=0.05)
        false_share.append(sum(index < 18 for index in flagged) / max(len(flagged), 1))
    assert sum(false_share) / len(false_share) <= 0.05


# --- hostile inputs ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("score", [math.nan, math.inf, -0.5, 1.5, 1e308])
def test_a_score_outside_the_metric_s_range_is_refused_in_one_line_naming_the_metric(score: float) -> None:
    with pytest.raises(ValueError, match=r"^metric response_match_score: score .* outside its declared range") as err:
        _by_score([score])
    assert "\n" not in str(err.value)


def test_a_run_without_a_score_for_a_metric_is_refused_naming_the_run_and_the_metric() -> None:
    settings = SequentialSettings(pass_rule="mean")
    with pytest.raises(ValueError, match=r"^run 1 has no score for metric m"):
        consume(open_evidence(settings, [MetricSpec("m", 0.5)]), {1: RunOutcome(True, {"other\x00<b>": 1.0})})


@pytest.mark.parametrize(
    "settings",
    [{"confidence": 1.0}, {"confidence": 0.0}, {"margin": -0.1}, {"min_runs": 0}, {"min_runs": 11}, {"fail_split": 0}],
)
def test_settings_out_of_range_are_refused(settings: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="give"):
        SequentialSettings(**settings)  # type: ignore[arg-type]


def test_a_metric_range_that_is_not_one_or_mean_without_metrics_is_refused() -> None:
    with pytest.raises(ValueError, match="is not a range"):
        open_evidence(SequentialSettings(), [MetricSpec("m", 0.5, low=1.0, high=1.0)])
    with pytest.raises(ValueError, match="at least one thresholded metric"):
        open_evidence(SequentialSettings())


def test_a_very_long_stream_keeps_its_e_values_finite_and_its_json_valid() -> None:
    evidence = _by_score([0.0] * 1000, max_runs=1000, min_runs=1000)
    saved = json.dumps(evidence_json(evidence), allow_nan=False)
    assert math.isfinite(evidence.e_fail) and evidence.e_fail > 1e300
    assert evidence_from_json(json.loads(saved)) == evidence

"""The guarantees of sequential verdicts, checked by simulation on seeded streams of 0/1 runs (the worst case for a
mean in [0, 1]: the most variable one): a proven pass at a true rate of threshold - margin, and a proven fail at a
true rate equal to the threshold, each at most alpha (5%), looked at after every run, whatever order the runs finish
in, and however often a job is re-run with its evidence kept."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from adk_eval_gate.verdict.sequential import (
    CaseEvidence,
    MetricSpec,
    RunOutcome,
    SequentialSettings,
    consume,
    continue_evidence,
    open_evidence,
)
from adk_eval_gate.verdict.sequential.betting import Capitals, advance, nulls_for
from adk_eval_gate.verdict.sequential.intervals import anytime_interval

ALPHA = 0.05


def _runs(rng: random.Random, rate: float, count: int) -> list[bool]:
    return [rng.random() < rate for _ in range(count)]


def _outcomes(passes: list[bool]) -> dict[int, RunOutcome]:
    return {run: RunOutcome(ok) for run, ok in enumerate(passes, start=1)}


def _share_crossing(*, threshold: float, rate: float, side: str, seed: int, streams: int = 2000) -> float:
    """The share of streams of 20 runs whose PASS (or FAIL) capital ever reaches 1/alpha, looked at after every run."""
    nulls = nulls_for(threshold, margin=0.10)
    rng = random.Random(seed)
    bound = math.log(1 / ALPHA)
    crossed = 0
    for _ in range(streams):
        state = Capitals()
        for ok in _runs(rng, rate, 20):
            state = advance(state, 1.0 if ok else 0.0, nulls)
            if (state.log_pass if side == "pass" else state.log_fail) >= bound:
                crossed += 1
                break
    return crossed / streams


SIMULATION = pytest.mark.slow  # thousands of streams: a quarter to a third of a second (one case of each stays fast)


@pytest.mark.parametrize(("threshold", "seed"), [(0.5, 1), pytest.param(0.7, 2, marks=SIMULATION)])
def test_a_pass_is_proven_at_a_true_rate_of_threshold_minus_margin_at_most_alpha_of_the_time(
    threshold: float, seed: int
) -> None:
    assert _share_crossing(threshold=threshold, rate=threshold - 0.10, side="pass", seed=seed) <= ALPHA


@pytest.mark.parametrize(("threshold", "seed"), [(0.5, 3), pytest.param(0.7, 4, marks=SIMULATION)])
def test_a_fail_is_proven_at_a_true_rate_equal_to_the_threshold_at_most_alpha_of_the_time(
    threshold: float, seed: int
) -> None:
    assert _share_crossing(threshold=threshold, rate=threshold, side="fail", seed=seed) <= ALPHA


def test_the_tests_have_power_away_from_their_nulls() -> None:
    assert _share_crossing(threshold=0.5, rate=0.95, side="pass", seed=5, streams=300) > 0.9
    assert _share_crossing(threshold=0.5, rate=0.05, side="fail", seed=6, streams=300) > 0.9


def _proven_share(
    settings: SequentialSettings, rate: float, *, decide: Callable[[list[bool]], CaseEvidence]
) -> tuple[float, float]:
    rng = random.Random(7)
    streams = 300
    decisions = [decide(_runs(rng, rate, settings.max_runs)).decision for _ in range(streams)]
    return decisions.count("proven-pass") / streams, decisions.count("proven-fail") / streams


def _in_completion_order(settings: SequentialSettings, passes: list[bool]) -> CaseEvidence:
    """The runs handed over as they finish, failures last (a failing run that timed out finishes late)."""
    evidence = open_evidence(settings)
    finished: dict[int, RunOutcome] = {}
    order = sorted(range(1, len(passes) + 1), key=lambda run: (not passes[run - 1], run))
    for run in order:
        finished[run] = RunOutcome(passes[run - 1])
        evidence = consume(evidence, finished)
    return evidence


@pytest.mark.slow  # hundreds of simulated streams
def test_runs_that_finish_late_weigh_as_if_they_had_finished_in_order() -> None:
    settings = SequentialSettings(pass_rule="majority", max_runs=20)
    rng = random.Random(8)
    for _ in range(150):
        passes = _runs(rng, rng.uniform(0.2, 0.8), 20)
        assert _in_completion_order(settings, passes) == consume(open_evidence(settings), _outcomes(passes))


@SIMULATION
def test_decisions_keep_their_error_bounds_when_failing_runs_finish_last() -> None:
    settings = SequentialSettings(pass_rule="majority", max_runs=20)
    false_pass, _ = _proven_share(settings, 0.4, decide=lambda passes: _in_completion_order(settings, passes))
    _, false_fail = _proven_share(settings, 0.5, decide=lambda passes: _in_completion_order(settings, passes))
    assert false_pass <= ALPHA
    assert false_fail <= ALPHA


def _until_green(settings: SequentialSettings, rng: random.Random, rate: float, *, attempts: int) -> CaseEvidence:
    """A job re-run until the case passes (or ``attempts`` run out), each attempt continuing the evidence."""
    evidence = open_evidence(settings, [MetricSpec("correct", 0.7)])
    for _ in range(attempts):
        start = evidence.runs
        runs = _runs(rng, rate, settings.max_runs)
        scores = {start + k: RunOutcome(ok, {"correct": float(ok)}) for k, ok in enumerate(runs, start=1)}
        evidence = consume(evidence, scores)
        if evidence.passed:
            return evidence
        evidence = continue_evidence(evidence)
    return evidence


@pytest.mark.slow  # hundreds of simulated streams
def test_re_running_a_job_until_green_with_its_evidence_kept_proves_no_false_pass() -> None:
    settings = SequentialSettings(pass_rule="mean", max_runs=10)
    rng = random.Random(9)
    outcomes = [_until_green(settings, rng, 0.6, attempts=5) for _ in range(300)]
    assert sum(evidence.decision == "proven-pass" for evidence in outcomes) / len(outcomes) <= ALPHA
    assert max(evidence.runs for evidence in outcomes) > settings.max_runs  # later attempts did run on


@SIMULATION
def test_several_metrics_at_their_thresholds_are_proven_failing_at_most_alpha_of_the_time() -> None:
    settings = SequentialSettings(pass_rule="mean", max_runs=20)
    metrics = [MetricSpec("a", 0.7), MetricSpec("b", 0.5), MetricSpec("c", 0.5)]
    rng = random.Random(10)
    proven = 0
    for _ in range(300):
        runs = {
            run: RunOutcome(True, {"a": float(rng.random() < 0.7), "b": float(rng.random() < 0.5), "c": rng.random()})
            for run in range(1, 21)
        }
        proven += consume(open_evidence(settings, metrics), runs).decision == "proven-fail"
    assert proven / 300 <= ALPHA


@SIMULATION
def test_the_anytime_interval_holds_the_true_rate_at_every_run_at_once() -> None:
    rng = random.Random(11)
    missed = 0
    for _ in range(150):
        values = [float(ok) for ok in _runs(rng, 0.3, 10)]
        missed += any(
            not low <= 0.3 <= high
            for low, high in (anytime_interval(values[:t], confidence=0.95) for t in range(1, 11))
        )
    assert missed / 150 <= ALPHA


def _suite_fails(settings: SequentialSettings, rng: random.Random, rates: list[float]) -> bool:
    """Whether any case of a suite of 0/1 metric runs is proven failing (what fails a suite under neutral)."""
    metric = MetricSpec("exact_match", 0.7)
    for rate in rates:
        runs = {run: RunOutcome(True, {metric.name: float(rng.random() < rate)}) for run in range(1, 11)}
        if consume(open_evidence(settings, [metric]), runs).decision == "proven-fail":
            return True
    return False


@pytest.mark.slow  # 5,000 case streams
def test_splitting_a_proven_failure_s_error_across_the_suite_keeps_false_suite_failures_at_most_alpha() -> None:
    rates = [0.7] * 20  # every case right at its threshold: each proof of a failure is a false one
    rng = random.Random(12)
    per_case = SequentialSettings(pass_rule="mean", undecided="neutral")
    split = SequentialSettings(pass_rule="mean", undecided="neutral", fail_split=len(rates))
    assert sum(_suite_fails(per_case, rng, rates) for _ in range(100)) / 100 > ALPHA  # the multiplicity it fixes
    assert sum(_suite_fails(split, rng, rates) for _ in range(150)) / 150 <= ALPHA

"""The comparison under --sequential: a drop is a regression only when the anytime intervals prove it (and e-BH
across the drops keeps it), whatever number of runs the head stopped at; Welch's check is not used."""

from __future__ import annotations

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.model.results import MetricChange, SequentialRun
from tests.report.builders import baseline_info, case, document, metric

RESPONSE = "response_match_score"
SEQUENTIAL = SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=10, undecided="point")


def _change(head_scores: list[float | None], base_scores: list[float | None]) -> MetricChange:
    head = document([case("paris", [metric(RESPONSE, head_scores)])], num_runs=len(head_scores))
    base = document([case("paris", [metric(RESPONSE, base_scores)])], num_runs=len(base_scores))
    comparison = compare(head, base, baseline=baseline_info(), sequential=SEQUENTIAL)
    [change] = comparison.changes
    return change


def test_a_drop_the_anytime_intervals_prove_is_a_regression() -> None:
    change = _change([0.0] * 10, [1.0] * 10)
    assert (change.kind, change.significance, change.noise) == ("regressed", "significant", "anytime")
    assert change.interval is not None and change.interval[1] < 0


def test_a_drop_welch_would_flag_after_few_runs_is_within_noise_under_sequential() -> None:
    """Two steady runs a side: Welch's interval is a point far from zero, the anytime ones are wide."""
    head, base = [0.7, 0.7], [0.9, 0.9]
    fixed = compare(
        document([case("paris", [metric(RESPONSE, head)])], num_runs=2),
        document([case("paris", [metric(RESPONSE, base)])], num_runs=2),
        baseline=baseline_info(),
    )
    assert fixed.changes[0].significance == "significant" and fixed.changes[0].noise == "runs"
    assert _change(head, base).significance == "noise"


def test_a_score_outside_zero_to_one_is_left_untested() -> None:
    change = _change([2.0, 2.0], [4.0, 4.0])
    assert (change.significance, change.noise) == ("untested", None)

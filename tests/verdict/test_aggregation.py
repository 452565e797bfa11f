"""verdict.aggregation: a metric's score and status over a case's runs, by ADK's rule for each path (``adk eval``
for one run, AgentEvaluator's pooling for several and for the drop-in), the direction a custom metric's own
statuses imply, and the text that says how a score was compared."""

from __future__ import annotations

import pytest

from adk_eval_gate.model.results import MetricResult, MetricStatus, RunMetric
from adk_eval_gate.verdict.aggregation import ScoreRule, comparison_text, decide_metric, higher_is_better, pooled_score

P, F, NE, INFO = MetricStatus.PASSED, MetricStatus.FAILED, MetricStatus.NOT_EVALUATED, MetricStatus.INFORMATIONAL
RULES: tuple[ScoreRule, ...] = ("adk_eval", "agent_evaluator")


def run(
    scores: list[float | None],
    overall: float | None = None,
    *,
    own: MetricStatus | None = None,
    turns: list[MetricStatus | None] | None = None,
) -> RunMetric:
    """One run of a metric: its per-turn scores, its overall score (the mean of the turns unless given) and, for a
    custom metric, its function's own statuses."""
    present = [score for score in scores if score is not None]
    if overall is None and present:
        overall = sum(present) / len(present)
    return RunMetric(
        name="m",
        score=overall,
        status=NE,
        invocation_scores=scores,
        evaluator_status=own,
        invocation_statuses=turns or [],
    )


@pytest.mark.parametrize("rule", RULES)
def test_runs_of_different_lengths_pool_every_turn_not_the_runs_means(rule: ScoreRule) -> None:
    """Two turns scored 1 and 0 in one run and one turn scored 1 in the other: 2/3, failing 0.7 (the mean of the
    runs' means, 0.75, would pass)."""
    decided = decide_metric([run([1.0, 0.0]), run([1.0])], threshold=0.7, informational=False, rule=rule)
    assert (decided.score, decided.status, decided.lower_is_better) == (pytest.approx(2 / 3), F, False)


def test_efficiency_metrics_pool_every_turn_across_the_runs_too() -> None:
    tokens = decide_metric([run([38.0, 114.0]), run([76.0])], threshold=None, informational=True, rule="adk_eval")
    assert (tokens.score, tokens.status) == (pytest.approx(76.0), INFO)


def test_one_run_is_decided_as_adk_eval_decides_it_and_the_drop_in_as_agent_evaluator() -> None:
    """Invocation-level rubrics: turn 1's one rubric passed, turn 2's two split. ``adk eval`` scores the case with
    the pooled rubric mean, 2/3, and fails 0.7; AgentEvaluator averages the turns' means, 0.75, and passes."""
    rubrics = run([1.0, 0.5], overall=2 / 3)
    cli = decide_metric([rubrics], threshold=0.7, informational=False, rule="adk_eval")
    drop_in = decide_metric([rubrics], threshold=0.7, informational=False, rule="agent_evaluator")
    assert (cli.score, cli.status) == (pytest.approx(2 / 3), F)
    assert (drop_in.score, drop_in.status) == (0.75, P)


@pytest.mark.parametrize("rule", RULES)
def test_a_custom_metric_whose_statuses_say_lower_is_better_passes_at_or_below_its_threshold(rule: ScoreRule) -> None:
    """The function marks a turn passed when its score is at most 0.5: 0, 0 and 1 score 1/3 and pass."""
    lower = run([0.0, 0.0, 1.0], own=P, turns=[P, P, F])
    decided = decide_metric([lower], threshold=0.5, informational=False, rule=rule)
    assert (decided.score, decided.status, decided.lower_is_better) == (pytest.approx(1 / 3), P, True)
    worse = run([1.0, 1.0, 0.0], own=F, turns=[F, F, P])
    failed = decide_metric([worse], threshold=0.5, informational=False, rule=rule)
    assert (failed.status, failed.lower_is_better) == (F, True)


def test_one_run_of_a_custom_metric_takes_its_functions_own_status_as_adk_eval_does() -> None:
    """A function that passes its one turn, scored 0.8, yet fails the run (its overall status is not its score
    against the threshold): ``adk eval`` takes the run's status; AgentEvaluator compares the turns' mean in the
    direction the turns imply (``>=``)."""
    strict = run([0.8], own=F, turns=[P])
    assert decide_metric([strict], threshold=0.5, informational=False, rule="adk_eval").status == F
    assert decide_metric([strict], threshold=0.5, informational=False, rule="agent_evaluator").status == P


def test_the_direction_is_lower_only_when_every_decisive_turn_says_so() -> None:
    assert higher_is_better([run([0.2, 0.9], turns=[P, F])], 0.5) is False
    assert higher_is_better([run([0.2, 0.9], turns=[P, P])], 0.5) is True  # they disagree: >=
    assert higher_is_better([run([0.5, 0.2], turns=[F, P])], 0.5) is False  # at the threshold: says nothing
    assert higher_is_better([run([0.2, None], turns=[NE, NE])], 0.5) is True  # nothing decisive: >=
    assert higher_is_better([run([0.2]), run([0.9])], 0.5) is True  # built-in: score >= threshold
    assert higher_is_better([run([0.2], turns=[P]), run([0.9], turns=[P])], 0.5) is True  # across runs: they disagree


def test_several_runs_of_a_lower_is_better_metric_pool_and_compare_downwards() -> None:
    runs = [run([0.0, 0.0], own=P, turns=[P, P]), run([1.0], own=F, turns=[F])]
    for rule in RULES:
        decided = decide_metric(runs, threshold=0.5, informational=False, rule=rule)
        assert (decided.score, decided.status, decided.lower_is_better) == (pytest.approx(1 / 3), P, True)


def test_a_metric_not_scored_in_one_run_is_not_evaluated_by_the_gate_and_pooled_by_the_drop_in() -> None:
    runs = [run([0.9]), run([None])]
    cli = decide_metric(runs, threshold=0.5, informational=False, rule="adk_eval")
    drop_in = decide_metric(runs, threshold=0.5, informational=False, rule="agent_evaluator")
    assert (cli.score, cli.status) == (0.9, NE)  # nothing passes silently
    assert (drop_in.score, drop_in.status) == (0.9, P)  # AgentEvaluator pools the scores there are
    missing = decide_metric([run([0.9]), None], threshold=0.5, informational=False, rule="adk_eval")
    assert missing.status == NE


@pytest.mark.parametrize("rule", RULES)
def test_no_score_at_all_is_not_evaluated(rule: ScoreRule) -> None:
    assert decide_metric([run([None, None])], threshold=0.5, informational=False, rule=rule).status == NE
    assert decide_metric([], threshold=0.5, informational=False, rule=rule).status == NE


def test_agent_evaluator_takes_a_first_informational_turn_or_no_threshold_as_informational() -> None:
    told = run([3.0], own=INFO, turns=[INFO])
    assert decide_metric([told, told], threshold=0.5, informational=False, rule="agent_evaluator").status == INFO
    assert decide_metric([run([0.1])], threshold=None, informational=False, rule="agent_evaluator").status == INFO
    assert decide_metric([told], threshold=0.5, informational=False, rule="adk_eval").status == INFO


@pytest.mark.parametrize("runs", [1, 2])
def test_a_metric_scored_without_a_threshold_is_informational_and_one_not_scored_is_not_evaluated(runs: int) -> None:
    """An agents-cli metric that eval_config.yaml gives no threshold is shown and compared, and never gates; when it
    could not be scored it is not evaluated, with its reason, as any metric (never passed)."""
    scored = [run([0.1])] * runs
    assert decide_metric(scored, threshold=None, informational=False, rule="adk_eval").status == INFO
    unscored = [run([0.1]), run([None])][-runs:]
    assert decide_metric(unscored, threshold=None, informational=False, rule="adk_eval").status == NE


def test_a_run_recorded_without_turn_scores_counts_with_its_score() -> None:
    """results.json of earlier versions kept no per-turn scores: each such run counts as one value."""
    assert pooled_score([run([], overall=0.9), run([], overall=0.3)]) == pytest.approx(0.6)
    assert pooled_score([run([], overall=0.9), run([0.0, 0.0])]) == pytest.approx(0.3)


def test_the_pooled_mean_is_adks_to_the_last_bit_and_finite_near_the_largest_float() -> None:
    assert pooled_score([run([0.8]), run([1.0]), run([0.6])]) == 0.8  # statistics.mean, as ADK (fmean: 0.7999...)
    largest = 1.7976931348623157e308
    assert pooled_score([run([largest, largest]), run([largest])]) == largest
    assert pooled_score([run([largest]), run([-largest])]) == 0.0


def _metric(score: float | None, status: MetricStatus, *, lower: bool = False) -> MetricResult:
    return MetricResult(name="m", score=score, threshold=0.5, status=status, lower_is_better=lower)


def test_the_comparison_is_said_in_the_direction_that_decided_it() -> None:
    assert comparison_text(_metric(1 / 3, F)) == "0.3333 < 0.5"
    assert comparison_text(_metric(0.9, P), labelled=True) == "score 0.9 >= threshold 0.5"
    assert comparison_text(_metric(1 / 3, P, lower=True)) == "0.3333 <= 0.5 (lower is better)"
    assert comparison_text(_metric(0.9, F, lower=True)) == "0.9 > 0.5 (lower is better)"
    assert comparison_text(_metric(0.9, F)) == "0.9, failed by its evaluator (threshold 0.5)"
    assert comparison_text(_metric(None, MetricStatus.NOT_EVALUATED)) == "n/a"

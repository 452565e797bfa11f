"""Agreement of a person and a judge: kappa and its analytic 95% interval equal statsmodels' and scikit-learn's."""

from __future__ import annotations

import random

import pytest

from adk_eval_gate.support.agreement import agreement, confusion_matrix


def pairs_of(table: list[list[int]], categories: list[float]) -> list[tuple[float, float]]:
    return [(categories[i], categories[j]) for i, row in enumerate(table) for j, n in enumerate(row) for _ in range(n)]


@pytest.mark.slow  # statsmodels and scikit-learn: importing them takes seconds (the known matrix is checked below)
@pytest.mark.parametrize(
    "table",
    [
        [[20, 5], [10, 15]],  # a known matrix: 70% raw agreement, kappa 0.4
        [[40, 2], [3, 19]],
        [[1, 0], [0, 1]],
        [[0, 3], [4, 0]],  # worse than chance
    ],
)
def test_cohens_kappa_and_its_interval_are_statsmodels(table: list[list[int]]) -> None:
    import numpy as np
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa

    found = agreement(pairs_of(table, [0.0, 1.0]), categories=[0.0, 1.0])
    theirs = cohens_kappa(np.array(table))
    assert found.kappa == pytest.approx(theirs.kappa, abs=1e-12)
    assert found.interval == pytest.approx((theirs.kappa_low, theirs.kappa_upp), abs=1e-9)
    human, judge = zip(*pairs_of(table, [0.0, 1.0]), strict=True)
    assert found.kappa == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)
    assert [list(row) for row in found.confusion] == table


def test_the_known_matrix_in_numbers() -> None:
    found = agreement(pairs_of([[20, 5], [10, 15]], [0.0, 1.0]))
    assert found.agreement == 0.7 and found.kappa == pytest.approx(0.4)
    assert found.first_rates == (0.5, 0.5) and found.second_rates == (0.6, 0.4)


@pytest.mark.slow  # statsmodels and scikit-learn, as above
def test_ordinal_scores_get_linear_weighted_kappa_as_statsmodels_and_scikit_learn() -> None:
    import numpy as np
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa

    chance = random.Random(7)
    human = [chance.choice([1, 2, 3, 4, 5]) for _ in range(80)]
    judge = [min(5, max(1, score + chance.choice([-1, 0, 0, 1]))) for score in human]
    pairs = [(float(a), float(b)) for a, b in zip(human, judge, strict=True)]
    found = agreement(pairs, categories=[1, 2, 3, 4, 5], ordinal=True)
    theirs = cohens_kappa(np.array(confusion_matrix(pairs, [1, 2, 3, 4, 5])), weights=np.arange(1, 6), wt="linear")
    assert found.weighted
    assert found.kappa == pytest.approx(theirs.kappa, abs=1e-12)
    assert found.interval == pytest.approx((theirs.kappa_low, theirs.kappa_upp), abs=1e-9)
    assert found.kappa == pytest.approx(cohen_kappa_score(human, judge, weights="linear"), abs=1e-12)


def test_kappa_is_undefined_when_both_always_say_the_same() -> None:
    found = agreement([(1.0, 1.0)] * 5)
    assert found.kappa is None and found.interval is None and found.agreement == 1.0


def test_no_labels_no_kappa() -> None:
    found = agreement([], categories=[0.0, 1.0])
    assert found.labels == 0 and found.kappa is None and found.confusion == ((0, 0), (0, 0))

"""How well two raters agree (a person and an LLM judge): the confusion matrix, raw agreement, Cohen's kappa and
its 95% interval.

Kappa is Cohen's for two categories and, for scores on an ordinal scale, Cohen's weighted kappa with linear
weights (``|a - b| / (highest - lowest)`` between the categories' values). The interval is the analytic one: kappa
plus or minus 1.96 asymptotic standard errors, the large-sample variance of Fleiss, Cohen and Everitt (1969), as
statsmodels' ``cohens_kappa`` computes it (the tests compare the two). It is symmetric and can reach past -1 or 1
with few labels; it is kept as computed, so a small sample shows as a wide interval. No bootstrap: the same labels
always give the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

Z_95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Agreement:
    """Two raters' agreement over ``labels`` paired ratings (rows: the first rater, the person; columns: the
    second, the judge)."""

    categories: tuple[float, ...]
    confusion: tuple[tuple[int, ...], ...]
    labels: int
    agreement: float  # the share of pairs with the same rating
    kappa: float | None  # None: undefined, when chance alone would agree on every pair (one category throughout)
    interval: tuple[float, float] | None
    weighted: bool
    first_rates: tuple[float, ...]  # the share of each category among the first rater's ratings (its base rate)
    second_rates: tuple[float, ...]


def confusion_matrix(pairs: Sequence[tuple[float, float]], categories: Sequence[float]) -> list[list[int]]:
    index = {category: position for position, category in enumerate(categories)}
    table = [[0] * len(categories) for _ in categories]
    for first, second in pairs:
        table[index[first]][index[second]] += 1
    return table


def _disagreement_weights(categories: Sequence[float], *, weighted: bool) -> list[list[float]]:
    span = (categories[-1] - categories[0]) if len(categories) > 1 else 1.0
    return [[abs(a - b) / span if weighted else float(a != b) for b in categories] for a in categories]


def _kappa_and_variance(table: list[list[int]], weights: list[list[float]]) -> tuple[float, float] | None:
    """Kappa with the weights of disagreement ``weights`` (0 on the diagonal) and its asymptotic variance; None when
    the expected disagreement is zero."""
    size = len(table)
    total = sum(map(sum, table))
    p = [[cell / total for cell in row] for row in table]
    rows = [sum(row) for row in p]
    cols = [sum(p[i][j] for i in range(size)) for j in range(size)]
    agree_w = [[1.0 - weights[i][j] for j in range(size)] for i in range(size)]
    observed = sum(agree_w[i][j] * p[i][j] for i in range(size) for j in range(size))
    expected = sum(agree_w[i][j] * rows[i] * cols[j] for i in range(size) for j in range(size))
    if math.isclose(expected, 1.0, abs_tol=1e-12):
        return None
    kappa = (observed - expected) / (1.0 - expected)
    row_w = [sum(cols[j] * agree_w[i][j] for j in range(size)) for i in range(size)]
    col_w = [sum(rows[i] * agree_w[i][j] for i in range(size)) for j in range(size)]
    spread = sum(
        p[i][j] * (agree_w[i][j] - (row_w[i] + col_w[j]) * (1.0 - kappa)) ** 2 for i in range(size) for j in range(size)
    )
    variance = (spread - (kappa - expected * (1.0 - kappa)) ** 2) / ((1.0 - expected) ** 2 * total)
    return kappa, max(variance, 0.0)


def agreement(
    pairs: Sequence[tuple[float, float]], *, categories: Sequence[float] | None = None, ordinal: bool = False
) -> Agreement:
    """The agreement of the paired ratings ``pairs`` over ``categories`` (default: the values rated, sorted);
    ``ordinal``: weighted kappa (near misses count partly), else Cohen's kappa."""
    scale = sorted(set(categories or ()) | {value for pair in pairs for value in pair})
    table = confusion_matrix(pairs, scale)
    labels = len(pairs)
    weighted = ordinal and len(scale) > 2
    same = sum(table[i][i] for i in range(len(scale)))
    found = _kappa_and_variance(table, _disagreement_weights(scale, weighted=weighted)) if labels else None
    kappa, interval = None, None
    if found is not None:
        kappa, variance = found
        margin = Z_95 * math.sqrt(variance)
        interval = (kappa - margin, kappa + margin)
    return Agreement(
        categories=tuple(scale),
        confusion=tuple(tuple(row) for row in table),
        labels=labels,
        agreement=same / labels if labels else 0.0,
        kappa=kappa,
        interval=interval,
        weighted=weighted,
        first_rates=tuple(sum(row) / labels if labels else 0.0 for row in table),
        second_rates=tuple(
            sum(table[i][j] for i in range(len(scale))) / labels if labels else 0.0 for j in range(len(scale))
        ),
    )

"""Is a change beyond the noise? Two models, the better one first:

* history (``--history``): the case's scores across recent base-branch runs. This run's value is one more draw
  like them; the change is ``significant`` when it lies outside their 95% prediction interval (beyond the
  tolerance), else ``noise``. Needs ``MIN_HISTORY`` base runs with the case; works with one run per case here.
* runs (``--num-runs``): when both sides have two or more run values, a 95% Welch interval of ``head - base``.

With neither, a change is ``untested`` (and counts, like a significant one). A metric without spread (a
deterministic score that never moved) is significant at any drop beyond the tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from adk_eval_gate.model.results import NoiseModel, Significance
from adk_eval_gate.support.stats import prediction_interval, welch_interval

EPSILON = 1e-9  # float noise of means is never a change
MIN_HISTORY = 3  # fewer base runs say nothing about a case's spread
Direction = Literal["drop", "rise"]


def _beyond(low: float, high: float, *, direction: Direction, tolerance: float) -> bool:
    if direction == "drop":
        return high < -tolerance - EPSILON
    return low > tolerance + EPSILON


def significance(
    *,
    direction: Direction,
    head_value: float | None,
    head_runs: Sequence[float],
    base_runs: Sequence[float],
    history: Sequence[float],
    tolerance: float,
) -> tuple[Significance, NoiseModel | None, list[float] | None]:
    """(significance, the model that decided it, the 95% interval of head - base) of a drop or a rise."""
    if head_value is not None and len(history) >= MIN_HISTORY:
        low, high = prediction_interval(history, head_value)
        model: NoiseModel = "history"
    elif len(head_runs) >= 2 and len(base_runs) >= 2:
        low, high = welch_interval(base_runs, head_runs)
        model = "runs"
    else:
        return "untested", None, None
    verdict: Significance = "significant" if _beyond(low, high, direction=direction, tolerance=tolerance) else "noise"
    return verdict, model, [round(low, 6), round(high, 6)]

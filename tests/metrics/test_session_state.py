"""``final_session_state_match``: exact and subset, ignore_keys, a missing key, a differing value, and the
states a run may or may not have recorded."""

from __future__ import annotations

from typing import Any

import pytest

from adk_eval_gate.metrics.metric import CaseRun
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.model.results import MetricStatus
from adk_eval_gate.runners.runner import REQUEST_KEY, plain_state
from tests.judge.helpers import invocation
from tests.metrics.decided import Decided
from tests.metrics.vertex_helpers import build, outcome

EXPECTED = {"plan": "gold", "cart": ["apple", "pear"], "count": 2}


def _score(criterion: Any, actual: dict[str, Any] | None, expected: dict[str, Any] | None = None) -> Decided:
    turns = [invocation("buy", "ok"), invocation("pay", "done")]
    fields: dict[str, Any] = {} if expected is None else {"final_session_state": expected}
    case = EvalCase(eval_id="shop", conversation=turns, **fields)
    run = CaseRun(eval_case=case, actual=turns, expected=turns, scenario=None, final_session_state=actual)
    return outcome(build("final_session_state_match", criterion), run)


def test_exact_match_counts_every_key_of_either_state() -> None:
    same = _score(1.0, {**EXPECTED}, EXPECTED)
    assert (same.score, same.status) == (1.0, MetricStatus.PASSED)
    assert [(item.score, item.status) for item in same.per_invocation] == [
        (None, MetricStatus.NOT_EVALUATED),
        (1.0, MetricStatus.PASSED),
    ]  # the last invocation carries the conversation's score
    extra = _score(1.0, {**EXPECTED, "visits": 3}, EXPECTED)
    assert extra.score == pytest.approx(3 / 4) and extra.status is MetricStatus.FAILED
    assert extra.details == {
        "match_type": "exact",
        "keys_compared": 4,
        "differing_keys": [{"key": "visits", "actual": 3}],
    }


def test_subset_ignores_keys_not_expected_and_reports_a_missing_key_and_a_differing_value() -> None:
    actual = {"plan": "silver", "cart": ["apple", "pear"], "visits": 3}
    result = _score({"threshold": 0.5, "match_type": "SUBSET"}, actual, EXPECTED)
    assert result.score == pytest.approx(1 / 3) and result.status is MetricStatus.FAILED
    assert result.details == {
        "match_type": "subset",
        "keys_compared": 3,
        "differing_keys": [{"key": "plan", "expected": "gold", "actual": "silver"}, {"key": "count", "expected": 2}],
    }


def test_ignore_keys_leave_keys_out_on_both_sides() -> None:
    actual = {**EXPECTED, "session_started": "12:00", "count": 5}
    result = _score({"threshold": 1.0, "ignore_keys": ["session_started", "count"]}, actual, EXPECTED)
    assert (result.score, result.status, result.details) == (
        1.0,
        MetricStatus.PASSED,
        {"match_type": "exact", "keys_compared": 2},
    )


def test_values_compare_as_decoded_json() -> None:
    assert _score(1.0, {"n": 1.0, "flag": True}, {"n": 1, "flag": True}).score == 1.0
    assert _score(1.0, {"n": "1"}, {"n": 1}).score == 0.0
    assert _score(1.0, {"cart": ["pear", "apple"]}, {"cart": ["apple", "pear"]}).score == 0.0  # list order counts
    assert _score(1.0, {}, {}).score == 1.0  # an expected empty state under exact: nothing may be written


def test_without_a_state_on_either_side_the_metric_is_not_evaluated() -> None:
    unrecorded = _score(1.0, None, EXPECTED)
    assert unrecorded.status is MetricStatus.NOT_EVALUATED and "was not recorded" in (unrecorded.reason or "")
    unexpected = _score(1.0, {"plan": "gold"}, None)
    assert unexpected.status is MetricStatus.NOT_EVALUATED
    assert unexpected.reason == "this case has no final_session_state to compare the session state with"


def test_the_recorded_state_is_json_without_the_evals_bookkeeping() -> None:
    class Plan:
        def __repr__(self) -> str:
            return "Plan(gold)"

    state = {REQUEST_KEY: "abc", "plan": Plan(), "ratio": float("nan"), "tags": {"a"}, "nested": {"deep": [1, 2]}}
    assert plain_state(state) == {"plan": "Plan(gold)", "ratio": "NaN", "tags": ["a"], "nested": {"deep": [1, 2]}}

"""Tool-call trajectory metrics: ADK's ``tool_trajectory_avg_score`` and Vertex AI's trajectory metrics.

Two calls are equal when their names are equal and (unless ``ignore_args``) their arguments are equal under
Python ``==`` on the decoded JSON, exactly as ADK's ``TrajectoryEvaluator`` compares them.
"""

from __future__ import annotations

from collections.abc import Callable

from google.genai import types as genai_types

from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, NotEvaluated, require_expected
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import tool_calls

Call = genai_types.FunctionCall
Matcher = Callable[[Call, Call], bool]


def _call_matcher(ignore_args: bool) -> Matcher:
    if ignore_args:
        return lambda actual, expected: actual.name == expected.name
    return lambda actual, expected: actual.name == expected.name and actual.args == expected.args


def exact_match(actual: list[Call], expected: list[Call], same: Matcher) -> bool:
    if len(actual) != len(expected):
        return False
    return all(same(a, e) for a, e in zip(actual, expected, strict=True))


def _in_order_match(actual: list[Call], expected: list[Call], same: Matcher) -> bool:
    if not expected:
        return True
    if not actual:
        return False
    position = 0
    for call in actual:
        if same(call, expected[position]):
            position += 1
            if position == len(expected):
                return True
    return False


def _any_order_match(actual: list[Call], expected: list[Call], same: Matcher) -> bool:
    if not expected:
        return True
    if not actual:
        return False
    remaining = list(actual)
    for wanted in expected:
        for index, call in enumerate(remaining):
            if same(call, wanted):
                remaining.pop(index)
                break
        else:
            return False
    return True


def _matched_count(actual: list[Call], expected: list[Call], same: Matcher) -> int:
    """How many calls pair up one to one (each expected call matches at most one actual call)."""
    remaining = list(actual)
    count = 0
    for wanted in expected:
        for index, call in enumerate(remaining):
            if same(call, wanted):
                remaining.pop(index)
                count += 1
                break
    return count


_MATCHERS = {
    eval_config.MatchType.EXACT: exact_match,
    eval_config.MatchType.IN_ORDER: _in_order_match,
    eval_config.MatchType.ANY_ORDER: _any_order_match,
}


class ToolTrajectoryAvgScore(Metric):
    """ADK's ``tool_trajectory_avg_score``: 1.0 per invocation whose calls match, averaged."""

    reads_tool_calls = True

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        expected = require_expected(run, self.name)
        criterion = self.criterion
        match_type = eval_config.MatchType.EXACT
        ignore_args = False
        if isinstance(criterion, eval_config.ToolTrajectoryCriterion):
            match_type, ignore_args = criterion.match_type, criterion.ignore_args
        match, same = _MATCHERS[match_type], _call_matcher(ignore_args)
        scores = [
            1.0 if match(tool_calls(a.intermediate_data), tool_calls(e.intermediate_data), same) else 0.0
            for a, e in zip(run.actual, expected, strict=True)
        ]
        return self.mean_outcome(scores)


class _PerInvocationTrajectory(Metric):
    reads_tool_calls = True

    def score(self, actual: list[Call], expected: list[Call], same: Matcher) -> float:
        raise NotImplementedError

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        expected = require_expected(run, self.name)
        ignore_args = isinstance(self.criterion, eval_config.TrajectoryMatchCriterion) and self.criterion.ignore_args
        same = _call_matcher(ignore_args)
        scores = [
            self.score(tool_calls(a.intermediate_data), tool_calls(e.intermediate_data), same)
            for a, e in zip(run.actual, expected, strict=True)
        ]
        return self.mean_outcome(scores)


class TrajectoryExactMatch(_PerInvocationTrajectory):
    def score(self, actual: list[Call], expected: list[Call], same: Matcher) -> float:
        return 1.0 if exact_match(actual, expected, same) else 0.0


class TrajectoryInOrderMatch(_PerInvocationTrajectory):
    def score(self, actual: list[Call], expected: list[Call], same: Matcher) -> float:
        return 1.0 if _in_order_match(actual, expected, same) else 0.0


class TrajectoryAnyOrderMatch(_PerInvocationTrajectory):
    def score(self, actual: list[Call], expected: list[Call], same: Matcher) -> float:
        return 1.0 if _any_order_match(actual, expected, same) else 0.0


class TrajectoryPrecision(_PerInvocationTrajectory):
    """Share of the actual calls that were expected; no actual calls scores 1.0 only if none were expected."""

    def score(self, actual: list[Call], expected: list[Call], same: Matcher) -> float:
        if not actual:
            return 1.0 if not expected else 0.0
        return _matched_count(actual, expected, same) / len(actual)


class TrajectoryRecall(_PerInvocationTrajectory):
    """Share of the expected calls that were made; nothing expected scores 1.0."""

    def score(self, actual: list[Call], expected: list[Call], same: Matcher) -> float:
        if not expected:
            return 1.0
        return _matched_count(actual, expected, same) / len(expected)


class TrajectorySingleToolUse(Metric):
    """1.0 per invocation in which the agent called ``tool_name`` at least once; needs no expected calls."""

    reads_tool_calls = True

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        if not isinstance(self.criterion, eval_config.SingleToolUseCriterion):
            raise NotEvaluated(f"{self.name} needs the criterion option tool_name")
        tool_name = self.criterion.tool_name
        scores = [
            1.0 if any(call.name == tool_name for call in tool_calls(a.intermediate_data)) else 0.0 for a in run.actual
        ]
        return self.mean_outcome(scores)

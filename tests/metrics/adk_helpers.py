"""Run ADK 2.13's own evaluators on our invocations (the reference for parity tests)."""

from __future__ import annotations

from typing import Any

from google.adk.evaluation import eval_case as adk_case
from google.adk.evaluation.eval_metrics import BaseCriterion as AdkBaseCriterion
from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion

from adk_eval_gate.model.evalset import Invocation


def to_adk(invocations: list[Invocation]) -> list[adk_case.Invocation]:
    return [adk_case.Invocation.model_validate(inv.model_dump(mode="python")) for inv in invocations]


def trajectory_metric(threshold: float, match_type: str | None = None, ignore_args: bool = False) -> EvalMetric:
    if match_type is None and not ignore_args:
        return EvalMetric(metric_name="tool_trajectory_avg_score", threshold=threshold)
    criterion: dict[str, Any] = {"threshold": threshold, "ignore_args": ignore_args}
    if match_type is not None:
        criterion["match_type"] = match_type
    return EvalMetric(
        metric_name="tool_trajectory_avg_score", criterion=ToolTrajectoryCriterion.model_validate(criterion)
    )


def base_metric(name: str, threshold: float | None) -> EvalMetric:
    if threshold is None:
        return EvalMetric(metric_name=name)
    return EvalMetric(metric_name=name, criterion=AdkBaseCriterion(threshold=threshold))

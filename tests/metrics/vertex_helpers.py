"""Shared pieces of the Vertex AI metric tests: a metric built from a test_config.json criterion the way a run
builds it, and one run of it."""

from __future__ import annotations

import asyncio
from typing import Any

from google.genai import types

from adk_eval_gate.metrics import registry
from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricServices
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import IntermediateData, Invocation
from tests.judge.helpers import invocation
from tests.metrics.decided import Decided


def build(
    name: str, criterion: Any, *, config: dict[str, Any] | None = None, services: MetricServices | None = None
) -> Metric:
    """The metric ``name`` of ``{"criteria": {name: criterion}, **config}``, as ``configured_metrics`` builds it."""
    loaded = eval_config.EvalConfig.model_validate({"criteria": {name: criterion}, **(config or {})})
    configured = registry.configured_metrics(loaded)[0]
    return configured.build(services or MetricServices())


def outcome(metric: Metric, run: CaseRun) -> Decided:
    """The metric's scores for the run, with the verdict's statuses."""
    threshold = metric.criterion.threshold if metric.criterion is not None else None
    return Decided(asyncio.run(evaluate_metric(metric, run)), threshold=threshold)


def with_calls(user: str, final: str | None, *calls: tuple[str, dict[str, Any] | None]) -> Invocation:
    """An invocation whose tool calls are ``(name, args)``."""
    uses = [types.FunctionCall(name=name, args=args) for name, args in calls]
    return invocation(user, final, intermediate_data=IntermediateData(tool_uses=uses))

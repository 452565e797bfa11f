"""A run whose tool calls the runner could not see (an A2A server that does not send them): every metric that reads
tool calls is not evaluated with the runner's reason, never scored as if the agent had called no tool; the other
metrics are scored as usual."""

from __future__ import annotations

import asyncio

from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.registry import BUILT_IN, ConfiguredMetric
from adk_eval_gate.metrics.score import score_run
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import EvalCase, Invocation

REASON = "the A2A server does not show its tool calls"
TOOL_METRICS = [
    "tool_trajectory_avg_score",
    "trajectory_exact_match",
    "trajectory_in_order_match",
    "trajectory_any_order_match",
    "trajectory_precision",
    "trajectory_recall",
    "tool_name_match",
    "tool_call_valid",
    "tool_call_count_v1",
]


def _turn(answer: str) -> Invocation:
    return Invocation.model_validate(
        {"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": answer}]}}
    )


def test_metrics_of_tool_calls_are_not_evaluated_when_the_calls_were_not_seen() -> None:
    expected = Invocation.model_validate(
        {
            "user_content": {"parts": [{"text": "hi"}]},
            "final_response": {"parts": [{"text": "hello there"}]},
            "intermediate_data": {"tool_uses": [{"name": "lookup", "args": {}}]},
        }
    )
    case = EvalCase(eval_id="c", conversation=[expected])
    names = [name for name in TOOL_METRICS if name in BUILT_IN] + ["response_match_score"]
    assert len(names) == len(TOOL_METRICS) + 1
    configured = [ConfiguredMetric(BUILT_IN[name], eval_config.BaseCriterion(threshold=0.5)) for name in names]
    metrics = [(metric, metric.build(MetricServices())) for metric in configured]

    def scored(tools_unseen: str | None) -> dict[str, tuple[float | None, str | None]]:
        actual = [_turn("hello there")]
        found = asyncio.run(score_run(case=case, actual=actual, metrics=metrics, tools_unseen=tools_unseen))
        return {entry.configured.name: (entry.outcome.score, entry.outcome.reason) for entry in found}

    unseen, seen = scored(REASON), scored(None)
    for name in TOOL_METRICS:
        assert unseen[name] == (None, REASON), name
    assert seen["tool_trajectory_avg_score"][0] == 0.0  # seen and not called: a zero, which unseen must never be
    assert unseen["response_match_score"] == seen["response_match_score"]
    assert unseen["response_match_score"][0] == 1.0

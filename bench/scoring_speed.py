"""Scoring speed: the same 10,000 recorded invocations scored by this tool and by ADK 2.13's evaluators.

Both score the default metric set of a run (tool_trajectory_avg_score, response_match_score and the four
efficiency metrics) over 2,000 cases of 5 invocations each; building the invocation models is not timed.
Run: python bench/scoring_speed.py  (needs google-adk installed). Target: this tool at least 3x faster.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time

from google.adk.evaluation import eval_case as adk_case
from google.adk.evaluation._efficiency_evaluators import (
    _InferenceCallCountV1Evaluator,
    _InvocationDurationV1Evaluator,
    _TokenUsageV1Evaluator,
    _ToolCallCountV1Evaluator,
)
from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator

from adk_eval_gate.metrics import rouge
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.registry import configured_metrics
from adk_eval_gate.metrics.score import score_run
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.model.evalset import EvalCase, Invocation

CASES, TURNS = 2000, 5
CITIES = ["Paris", "London", "Tokyo", "New York", "Sydney", "Berlin", "Madrid", "Rome", "Oslo", "Lima"]
WORDS = [
    "the",
    "weather",
    "in",
    "is",
    "sunny",
    "rainy",
    "cloudy",
    "windy",
    "and",
    "degrees",
    "today",
    "tomorrow",
    "expect",
    "light",
    "showers",
    "temperatures",
    "around",
    "with",
    "a",
    "chance",
    "of",
    "high",
    "low",
    "humidity",
    "clear",
    "skies",
    "evening",
    "morning",
]


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))).capitalize() + "."


def _invocation(rng: random.Random, *, actual: bool) -> dict[str, object]:
    calls = [
        {"name": "get_weather", "args": {"city": rng.choice(CITIES), "days": rng.randint(1, 3)}}
        for _ in range(rng.randint(0, 3))
    ]
    data: dict[str, object]
    if actual:
        data = {
            "invocation_events": [
                {
                    "author": "agent",
                    "content": {"role": "model", "parts": [{"function_call": c} for c in calls]},
                    "usage_metadata": {"prompt_token_count": rng.randint(50, 400), "candidates_token_count": 20},
                    "model_version": "m",
                },
                {
                    "author": "agent",
                    "content": None,
                    "usage_metadata": {"prompt_token_count": 300, "candidates_token_count": rng.randint(10, 80)},
                },
            ]
        }
    else:
        data = {"tool_uses": calls}
    return {
        "user_content": {"role": "user", "parts": [{"text": f"What is the weather in {rng.choice(CITIES)}?"}]},
        "final_response": {"role": "model", "parts": [{"text": _sentence(rng)}]},
        "intermediate_data": data,
        "duration": 1.234,
        "model_duration": 1.0,
        "tool_duration": 0.1,
    }


def build(seed: int = 7) -> list[tuple[list[dict[str, object]], list[dict[str, object]]]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(CASES):
        expected = [_invocation(rng, actual=False) for _ in range(TURNS)]
        actual = [_invocation(rng, actual=True) for _ in range(TURNS)]
        # half of the actual tool calls copy the expected ones, so both matching and mismatching paths run
        for a, e in zip(actual, expected, strict=True):
            if rng.random() < 0.5:
                a["intermediate_data"]["invocation_events"][0]["content"]["parts"] = [  # type: ignore[index]
                    {"function_call": c}
                    for c in e["intermediate_data"]["tool_uses"]  # type: ignore[index]
                ]
        cases.append((actual, expected))
    return cases


def time_adk(cases: list[tuple[list[adk_case.Invocation], list[adk_case.Invocation]]]) -> float:
    trajectory = EvalMetric(metric_name="tool_trajectory_avg_score", criterion=BaseCriterion(threshold=1.0))
    rouge = EvalMetric(metric_name="response_match_score", criterion=BaseCriterion(threshold=0.8))
    efficiency = [
        cls(eval_metric=EvalMetric(metric_name=name))
        for cls, name in (
            (_ToolCallCountV1Evaluator, "tool_call_count_v1"),
            (_InferenceCallCountV1Evaluator, "inference_call_count_v1"),
            (_TokenUsageV1Evaluator, "token_usage_v1"),
            (_InvocationDurationV1Evaluator, "invocation_duration_v1"),
        )
    ]
    started = time.perf_counter()
    for actual, expected in cases:
        TrajectoryEvaluator(eval_metric=trajectory).evaluate_invocations(actual, expected)
        RougeEvaluator(rouge).evaluate_invocations(actual, expected)
        for evaluator in efficiency:
            evaluator.evaluate_invocations(actual, expected)
    return time.perf_counter() - started


def time_ours(cases: list[tuple[list[Invocation], EvalCase]]) -> float:
    config = EvalConfig(criteria={"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8})
    services = MetricServices()
    metrics = [(configured, configured.build(services)) for configured in configured_metrics(config)]

    async def score_all() -> None:
        for actual, case in cases:
            await score_run(case=case, actual=actual, metrics=metrics)

    for cache in (rouge.tokenize, rouge._stem, rouge._ascii_word_tokens):
        cache.cache_clear()  # each timed run starts cold: no tokenization carried over from the last one
    started = time.perf_counter()
    asyncio.run(score_all())
    return time.perf_counter() - started


def main() -> None:
    raw = build()
    adk_cases = [
        ([adk_case.Invocation.model_validate(i) for i in a], [adk_case.Invocation.model_validate(i) for i in e])
        for a, e in raw
    ]
    our_cases = [
        (
            [Invocation.model_validate(i) for i in a],
            EvalCase(eval_id=f"c{n}", conversation=[Invocation.model_validate(i) for i in e]),
        )
        for n, (a, e) in enumerate(raw)
    ]
    time_ours(our_cases[:10])  # load NLTK and warm up both sides once
    time_adk(adk_cases[:10])
    ours = [time_ours(our_cases) for _ in range(3)]
    adk = [time_adk(adk_cases) for _ in range(3)]
    print(f"invocations scored: {CASES * TURNS:,} ({CASES:,} cases x {TURNS} turns, 6 metrics each)")
    print(f"ADK 2.13 evaluators: {statistics.median(adk):.2f} s (median of 3)")
    print(f"adk-eval-gate:       {statistics.median(ours):.2f} s (median of 3)")
    print(f"ratio (ADK / ours):  {statistics.median(adk) / statistics.median(ours):.1f}x  (target: >= 3x)")


if __name__ == "__main__":
    main()

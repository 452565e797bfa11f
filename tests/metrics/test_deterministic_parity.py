"""Our deterministic metrics equal ADK 2.13's own evaluators, per invocation and per case, to 1e-9.

ADK is the reference: TrajectoryEvaluator, RougeEvaluator and the efficiency evaluators run on the same
invocations (converted to ADK's models) and every score is compared, and every status the verdict gives them.
"""

from __future__ import annotations

import asyncio
import math

import pytest
from google.adk.evaluation._efficiency_evaluators import (
    _InferenceCallCountV1Evaluator,
    _InvocationDurationV1Evaluator,
    _TokenUsageV1Evaluator,
    _ToolCallCountV1Evaluator,
)
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator, _calculate_rouge_1_scores
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_eval_gate.metrics.efficiency import InferenceCallCount, InvocationDuration, TokenUsage, ToolCallCount
from adk_eval_gate.metrics.metric import CaseRun, MetricOutcome, MetricServices
from adk_eval_gate.metrics.rouge import ResponseMatchScore, rouge1_fmeasure
from adk_eval_gate.metrics.trajectory import ToolTrajectoryAvgScore
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import EvalCase, Invocation, InvocationEvent, InvocationEvents
from tests.metrics import adk_helpers, strategies
from tests.metrics.decided import Decided

pytestmark = pytest.mark.slow  # every metric against ADK's own evaluators

STATUS = {1: "passed", 2: "failed", 3: "not_evaluated", 4: "informational"}


def _run(actual: list[Invocation], expected: list[Invocation] | None) -> CaseRun:
    case = EvalCase(eval_id="c", conversation=expected if expected is not None else [])
    return CaseRun(eval_case=case, actual=actual, expected=expected, scenario=None)


EFFICIENCY = (InferenceCallCount, InvocationDuration, TokenUsage, ToolCallCount)


def _ours(metric: object, actual: list[Invocation], expected: list[Invocation] | None) -> Decided:
    """Our metric's scores, with the statuses the verdict gives them (ADK's evaluators return both)."""
    outcome = metric.evaluate(_run(actual, expected))  # type: ignore[attr-defined]
    assert isinstance(outcome, MetricOutcome)
    criterion = metric.criterion  # type: ignore[attr-defined]
    threshold = criterion.threshold if criterion is not None else None
    return Decided(outcome, threshold=threshold, informational=isinstance(metric, EFFICIENCY))


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=0, abs_tol=1e-9)


def assert_same(ours: Decided, theirs: object) -> None:
    assert _close(ours.score, theirs.overall_score), (ours.score, theirs.overall_score)  # type: ignore[attr-defined]
    assert ours.status.value == STATUS[theirs.overall_eval_status.value]  # type: ignore[attr-defined]
    per_invocation = theirs.per_invocation_results  # type: ignore[attr-defined]
    assert len(ours.per_invocation) == len(per_invocation)
    for mine, reference in zip(ours.per_invocation, per_invocation, strict=True):
        assert _close(mine.score, reference.score), (mine.score, reference.score)
        assert mine.status.value == STATUS[reference.eval_status.value]


# --- tool_trajectory_avg_score ---------------------------------------------------------------------------

MATCH_TYPES = [None, "EXACT", "IN_ORDER", "ANY_ORDER", "in_order", "any-order", "Any Order", 0, 1, 2]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pair=strategies.trajectory_pairs(),
    match_type=st.sampled_from(MATCH_TYPES),
    ignore_args=st.booleans(),
    threshold=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_trajectory_matches_adk(
    pair: tuple[list[Invocation], list[Invocation]], match_type: object, ignore_args: bool, threshold: float
) -> None:
    actual, expected = pair
    raw: dict[str, object] = {"threshold": threshold, "ignore_args": ignore_args}
    if match_type is not None:
        raw["match_type"] = match_type
    criterion = eval_config.ToolTrajectoryCriterion.model_validate(raw)
    ours = _ours(
        ToolTrajectoryAvgScore(name="tool_trajectory_avg_score", criterion=criterion, services=MetricServices()),
        actual,
        expected,
    )
    adk_metric = adk_helpers.trajectory_metric(
        threshold, match_type if match_type is not None else "EXACT", ignore_args
    )
    theirs = TrajectoryEvaluator(eval_metric=adk_metric).evaluate_invocations(
        adk_helpers.to_adk(actual), adk_helpers.to_adk(expected)
    )
    assert_same(ours, theirs)


def _call(name: str, args: object) -> types.FunctionCall:
    return types.FunctionCall(name=name, args=args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("actual_args", "expected_args", "equal"),
    [
        ({"n": 1}, {"n": 1.0}, True),
        ({"n": True}, {"n": 1}, True),
        ({"n": "1"}, {"n": 1}, False),
        (None, {}, False),
        ({"l": [1, 2]}, {"l": [2, 1]}, False),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
    ],
)
def test_trajectory_argument_equality_is_python_equality(
    actual_args: object, expected_args: object, equal: bool
) -> None:
    def invocation(args: object) -> Invocation:
        return Invocation.model_validate(
            {
                "user_content": {"parts": [{"text": "q"}]},
                "intermediate_data": {"tool_uses": [{"name": "t", "args": args}]},
            }
        )

    metric = ToolTrajectoryAvgScore(
        name="tool_trajectory_avg_score",
        criterion=eval_config.ToolTrajectoryCriterion(threshold=1.0),
        services=MetricServices(),
    )
    outcome = _ours(metric, [invocation(actual_args)], [invocation(expected_args)])
    assert outcome.score == (1.0 if equal else 0.0)


# --- response_match_score (ROUGE-1) ------------------------------------------------------------------------

SPEC_VECTORS = [
    ("The weather in London is rainy and 14 C.", "It is raining in London, 14 degrees.", 0.5),
    ("", "", 0.0),
    ("running runs ran runner", "run", 0.4),
    ("I can't do that, Dave!", "I cannot do that Dave", 0.727273),
    ("flights: SFO->LAX @ $150.00", "SFO to LAX flight for 150 dollars", 0.666667),
    ("the the the cat", "the cat", 0.666667),
    ("Café naïve résumé", "cafe naive resume", 0.0),
    ("東京の天気は晴れです", "東京は晴れ", 0.666667),
    ("สวัสดีครับ", "สวัสดี", 0.727273),
    ("ＡＢＣ１２３ full-width", "abc123 full width", 1.0),
    ("skies dying lying generously", "sky die lie generous", 1.0),
    ("e-mail me at foo_bar@example.com", "email foo bar example com", 0.615385),
    ("x² + y³", "x2 y3", 1.0),
    ("price: 1,000,000", "price 1000000", 0.333333),
]


@pytest.mark.parametrize(("candidate", "reference", "expected"), SPEC_VECTORS)
def test_rouge_spec_vectors(candidate: str, reference: str, expected: float) -> None:
    assert rouge1_fmeasure(candidate, reference) == pytest.approx(expected, abs=1e-6)
    assert rouge1_fmeasure(candidate, reference) == _calculate_rouge_1_scores(candidate, reference).fmeasure


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=strategies.text_pairs())
def test_rouge_matches_adk_on_multilingual_text(pair: tuple[str, str]) -> None:
    candidate, reference = pair
    ours = rouge1_fmeasure(candidate, reference)
    theirs = _calculate_rouge_1_scores(candidate, reference).fmeasure
    assert math.isclose(ours, theirs, abs_tol=1e-9), (candidate, reference, ours, theirs)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=strategies.invocation_pairs(), threshold=st.sampled_from([0.0, 0.3, 0.8, 1.0]))
def test_response_match_score_matches_adk(pair: tuple[list[Invocation], list[Invocation]], threshold: float) -> None:
    actual, expected = pair
    ours = _ours(
        ResponseMatchScore(
            name="response_match_score",
            criterion=eval_config.BaseCriterion(threshold=threshold),
            services=MetricServices(),
        ),
        actual,
        expected,
    )
    theirs = RougeEvaluator(adk_helpers.base_metric("response_match_score", threshold)).evaluate_invocations(
        adk_helpers.to_adk(actual), adk_helpers.to_adk(expected)
    )
    assert_same(ours, theirs)


# --- efficiency metrics ---------------------------------------------------------------------------------------

_USAGE = st.one_of(
    st.none(),
    st.builds(
        types.GenerateContentResponseUsageMetadata,
        prompt_token_count=st.one_of(st.none(), st.integers(0, 500)),
        candidates_token_count=st.one_of(st.none(), st.integers(0, 500)),
        thoughts_token_count=st.one_of(st.none(), st.integers(0, 50)),
        tool_use_prompt_token_count=st.one_of(st.none(), st.integers(0, 50)),
        cached_content_token_count=st.one_of(st.none(), st.integers(0, 50)),
    ),
)


@st.composite
def efficiency_invocations(draw: st.DrawFn) -> list[Invocation]:
    out = []
    for _ in range(draw(st.integers(0, 4))):
        events = [
            InvocationEvent(
                author="agent",
                usage_metadata=draw(_USAGE),
                model_version=draw(st.one_of(st.none(), st.just("m-1"))),
                content=types.Content(
                    role="model", parts=[types.Part(function_call=types.FunctionCall(name="t", args={}))]
                )
                if draw(st.booleans())
                else None,
            )
            for _ in range(draw(st.integers(0, 3)))
        ]
        duration = draw(st.one_of(st.none(), st.floats(0.001, 5, allow_nan=False).map(lambda x: round(x, 3))))
        model = draw(st.one_of(st.none(), st.floats(0, 2).map(lambda x: round(x, 3)))) if duration else None
        tool = draw(st.one_of(st.none(), st.floats(0, 2).map(lambda x: round(x, 3)))) if duration else None
        out.append(
            Invocation(
                user_content=types.Content(role="user", parts=[types.Part(text="q")]),
                intermediate_data=InvocationEvents(invocation_events=events) if draw(st.booleans()) else None,
                duration=duration,
                model_duration=model,
                tool_duration=tool,
            )
        )
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actual=efficiency_invocations())
def test_efficiency_metrics_match_adk(actual: list[Invocation]) -> None:
    adk_actual = adk_helpers.to_adk(actual)
    pairs = [
        (ToolCallCount, _ToolCallCountV1Evaluator, "tool_call_count_v1"),
        (InferenceCallCount, _InferenceCallCountV1Evaluator, "inference_call_count_v1"),
        (TokenUsage, _TokenUsageV1Evaluator, "token_usage_v1"),
        (InvocationDuration, _InvocationDurationV1Evaluator, "invocation_duration_v1"),
    ]
    for ours_cls, theirs_cls, name in pairs:
        ours = _ours(ours_cls(name=name, criterion=None, services=MetricServices()), actual, None)
        theirs = theirs_cls(eval_metric=adk_helpers.base_metric(name, None)).evaluate_invocations(adk_actual)
        assert_same(ours, theirs)
        if name == "token_usage_v1" and actual:
            assert ours.details == theirs.overall_token_usage_details.model_dump()
        if name == "invocation_duration_v1" and actual:
            assert ours.details == theirs.overall_duration_details.model_dump()


def test_scoring_runs_through_asyncio_like_the_pipeline() -> None:
    from adk_eval_gate.metrics.registry import BUILT_IN, ConfiguredMetric
    from adk_eval_gate.metrics.score import score_run

    actual = [
        Invocation.model_validate(
            {"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "hello there"}]}}
        )
    ]
    case = EvalCase(
        eval_id="c",
        conversation=[
            Invocation.model_validate(
                {"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "hello"}]}}
            )
        ],
    )
    configured = ConfiguredMetric(BUILT_IN["response_match_score"], eval_config.BaseCriterion(threshold=0.5))
    scored = asyncio.run(
        score_run(case=case, actual=actual, metrics=[(configured, configured.build(MetricServices()))])
    )
    assert scored[0].outcome.score == pytest.approx(2 / 3)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actual=efficiency_invocations())
def test_the_cost_and_latency_figures_equal_adks_efficiency_evaluators(actual: list[Invocation]) -> None:
    """Tokens, model calls, tool calls and turn time per turn are ADK's own numbers."""
    from adk_eval_gate.aggregate.pricing import Prices
    from adk_eval_gate.aggregate.usage import usage_of_turns
    from adk_eval_gate.metrics.efficiency import turn_facts

    adk_actual = adk_helpers.to_adk(actual)
    usage = usage_of_turns([turn_facts(invocation) for invocation in actual], Prices.shipped())
    evaluators = {
        "tokens": _TokenUsageV1Evaluator(eval_metric=adk_helpers.base_metric("token_usage_v1", None)),
        "model_calls": _InferenceCallCountV1Evaluator(
            eval_metric=adk_helpers.base_metric("inference_call_count_v1", None)
        ),
        "tool_calls": _ToolCallCountV1Evaluator(eval_metric=adk_helpers.base_metric("tool_call_count_v1", None)),
        "seconds": _InvocationDurationV1Evaluator(eval_metric=adk_helpers.base_metric("invocation_duration_v1", None)),
    }
    for figure, evaluator in evaluators.items():
        theirs = evaluator.evaluate_invocations(adk_actual).per_invocation_results
        ours = [getattr(turn, figure) for turn in usage.turns]
        assert ours == [result.score for result in theirs], figure
    scored = [turn.tokens for turn in usage.turns if turn.tokens is not None]
    assert usage.tokens == (sum(scored) if scored else None)  # the run's tokens: the sum over its turns

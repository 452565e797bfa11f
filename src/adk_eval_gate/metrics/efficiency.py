"""ADK's four informational efficiency metrics (``google.adk.evaluation._efficiency_evaluators``).

Values are per invocation; the case value is their mean over the invocations that have one. They never pass
or fail, and ADK rejects a threshold for them (so does the config check).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pydantic

from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, Metric, MetricOutcome
from adk_eval_gate.model.evalset import Invocation, InvocationEvents, tool_calls, usage_metadata
from adk_eval_gate.model.tokens import Tokens, tokens_of

UNKNOWN_MODEL = "unknown model"


class TokenUsageDetails(pydantic.BaseModel):
    """ADK's ``TokenUsageDetails``: one invocation's tokens summed over its model calls (None: never reported)."""

    total_tokens: float | None = None
    input_tokens: float | None = None
    prompt_tokens: float | None = None
    cached_tokens: float | None = None
    tool_use_tokens: float | None = None
    output_tokens: float | None = None
    candidates_tokens: float | None = None
    reasoning_tokens: float | None = None


class DurationDetails(pydantic.BaseModel):
    """ADK's ``DurationDetails``: one invocation's wall time and its model / tool / framework split."""

    total_seconds: float | None = None
    model_seconds: float | None = None
    tool_seconds: float | None = None
    framework_seconds: float | None = None


def _informational(actual: list[Invocation], value: Callable[[Invocation], float | None]) -> MetricOutcome:
    per_invocation = [InvocationScore(value(invocation)) for invocation in actual]
    values = [item.score for item in per_invocation if item.score is not None]
    overall = sum(values) / len(values) if values else None
    return MetricOutcome(score=overall, per_invocation=per_invocation)


class ToolCallCount(Metric):
    reads_tool_calls = True

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        return _informational(run.actual, lambda inv: float(len(tool_calls(inv.intermediate_data))))


class InferenceCallCount(Metric):
    def evaluate(self, run: CaseRun) -> MetricOutcome:
        def count(invocation: Invocation) -> float | None:
            if not isinstance(invocation.intermediate_data, InvocationEvents):
                return None
            return float(
                sum(
                    1
                    for event in invocation.intermediate_data.invocation_events
                    if event.usage_metadata is not None or event.model_version is not None
                )
            )

        return _informational(run.actual, count)


def _add(total: float | None, count: int | None) -> float | None:
    if count is None:
        return total
    return (total or 0) + count


def _token_usage_details(invocation: Invocation) -> TokenUsageDetails:
    return _summed_usage(
        (u.prompt_token_count, u.tool_use_prompt_token_count, u.candidates_token_count, u.thoughts_token_count,
         u.cached_content_token_count)
        for u in usage_metadata(invocation)
    )  # fmt: skip


def token_usage_of(usages: Iterable[dict[str, Any]]) -> TokenUsageDetails:
    """``_token_usage_details`` of usage metadata in ADK's JSON form (a compact turn's, ``model.compact.usages``)."""
    keys = ("prompt_token_count", "tool_use_prompt_token_count", "candidates_token_count", "thoughts_token_count")
    counts = [tuple(_count(usage.get(key)) for key in (*keys, "cached_content_token_count")) for usage in usages]
    return _summed_usage(counts)  # type: ignore[arg-type]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


UsageCounts = tuple[int | None, int | None, int | None, int | None, int | None]


def _summed_usage(calls: Iterable[UsageCounts]) -> TokenUsageDetails:
    """One invocation's tokens from its model calls' (prompt, tool-use prompt, candidates, thoughts, cached)."""
    inputs = prompts = cached_sum = tools = outputs = candidates_sum = reasoning = None
    for prompt, tool, candidates, thoughts, cached in calls:
        input_tokens = None if prompt is None and tool is None else (prompt or 0) + (tool or 0)
        output_tokens = None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0)
        inputs = _add(inputs, input_tokens)
        prompts = _add(prompts, prompt)
        cached_sum = _add(cached_sum, cached)
        tools = _add(tools, tool)
        outputs = _add(outputs, output_tokens)
        candidates_sum = _add(candidates_sum, candidates)
        reasoning = _add(reasoning, thoughts)
    total = None if inputs is None and outputs is None else (inputs or 0) + (outputs or 0)
    return TokenUsageDetails.model_construct(  # the counts as they are: ints stay ints
        total_tokens=total,
        input_tokens=inputs,
        prompt_tokens=prompts,
        cached_tokens=cached_sum,
        tool_use_tokens=tools,
        output_tokens=outputs,
        candidates_tokens=candidates_sum,
        reasoning_tokens=reasoning,
    )


def _per_invocation_details(
    all_details: list[dict[str, Any]], total: str, average: Callable[[list[Any]], float | None]
) -> MetricOutcome:
    """Each invocation's details, and per field the ``average`` of their values (None where one is missing)."""
    per_invocation = [InvocationScore(details[total], details=details) for details in all_details]
    if not per_invocation:
        return MetricOutcome(score=None)
    averaged = {name: average([details[name] for details in all_details]) for name in all_details[0]}
    return MetricOutcome(score=averaged[total], per_invocation=per_invocation, details=averaged)


def _mean_over_all(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(values) if present else None


def _mean_over_present(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return round(sum(present) / len(present), 3) if present else None


class TokenUsage(Metric):
    """Overall counts average over ALL invocations (a missing count is 0) unless none reported it (ADK)."""

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        details = [_token_usage_details(invocation).model_dump() for invocation in run.actual]
        return _per_invocation_details(details, "total_tokens", _mean_over_all)


def _duration_details(invocation: Invocation) -> DurationDetails:
    if invocation.duration is None:
        return DurationDetails()
    model, tool = invocation.model_duration, invocation.tool_duration
    framework = None if model is None or tool is None else round(max(invocation.duration - model - tool, 0.0), 3)
    return DurationDetails(
        total_seconds=invocation.duration, model_seconds=model, tool_seconds=tool, framework_seconds=framework
    )


class InvocationDuration(Metric):
    """Overall parts average over the timed invocations only (ADK)."""

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        details = [_duration_details(invocation).model_dump() for invocation in run.actual]
        return _per_invocation_details(details, "total_seconds", _mean_over_present)


def model_calls(invocation: Invocation) -> list[Tokens] | None:
    """The turn's model calls (events with usage metadata or a model version, as ADK counts them); None when the
    invocation has no events (written by hand, or recorded without them)."""
    if not isinstance(invocation.intermediate_data, InvocationEvents):
        return None
    return [
        tokens_of(event.model_version or UNKNOWN_MODEL, event.usage_metadata)
        for event in invocation.intermediate_data.invocation_events
        if event.usage_metadata is not None or event.model_version is not None
    ]


@dataclass(frozen=True)
class TurnFacts:
    """What the usage figures need of one actual turn, taken where the turn was made (a worker process sends
    these, not the turn's objects): its model calls, its tool calls and its times."""

    calls: list[Tokens] | None
    tool_calls: int
    timing: DurationDetails


def turn_facts(invocation: Invocation) -> TurnFacts:
    return TurnFacts(
        model_calls(invocation), len(tool_calls(invocation.intermediate_data)), _duration_details(invocation)
    )

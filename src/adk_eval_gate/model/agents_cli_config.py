"""agents-cli's ``eval_config.yaml`` (google-agents-cli 1.11, ``eval/eval_utils.py``: ``load_eval_config``,
``prepare_eval_metrics``), and the gate's own section in it.

agents-cli reads two keys, ``metrics_to_run`` (the metrics to grade, by name) and ``custom_metrics`` (a list of
definitions, each with a ``name``: ``custom_function`` or ``custom_function_file`` for code, ``prompt_template`` for an
LLM judge, or neither for a built-in metric given ``metric_spec_parameters``), and ignores every other key. The gate's
settings live in one such key, ``adk_eval_gate``: ``thresholds`` (metric name -> the score it must reach; a metric
without one is informational) and ``budgets``, as in test_config.json.

The built-in metrics are the evaluation SDK's predefined ones (``agentplatform._genai._evals_constant``, copied here and
checked against the SDK in the tests), named with or without their version, and its computation metrics.
"""

from __future__ import annotations

import re
from typing import Any

import pydantic
from google.genai import types as genai_types
from pydantic import Field

from adk_eval_gate.model.eval_config import Budgets, JudgeModelOptions

GATE_SECTION = "adk_eval_gate"
AGENTS_CLI_KEYS = ("metrics_to_run", "custom_metrics")  # what agents-cli reads; it ignores the rest

SUPPORTED_PREDEFINED_METRICS = frozenset(
    {
        "general_quality_v1",
        "text_quality_v1",
        "instruction_following_v1",
        "grounding_v1",
        "safety_v1",
        "multi_turn_general_quality_v1",
        "multi_turn_text_quality_v1",
        "multi_turn_tool_use_quality_v1",
        "multi_turn_trajectory_quality_v1",
        "multi_turn_task_success_v1",
        "final_response_match_v2",
        "final_response_reference_free_v1",
        "final_response_quality_v1",
        "hallucination_v1",
        "tool_use_quality_v1",
        "gecko_text2image_v1",
        "gecko_text2video_v1",
        "general_quality_v2",
        "instruction_following_v2",
        "text_quality_v2",
        "grounding_v2",
        "hallucination_v2",
        "safety_v3",
        "multi_turn_general_quality_v2",
        "multi_turn_text_quality_v2",
        "tool_use_quality_v2",
        "final_response_quality_v2",
        "final_response_match_v3",
        "final_response_reference_free_v2",
        "gecko_text2image_v2",
        "gecko_text2video_v2",
    }
)
"""The SDK's ``SUPPORTED_PREDEFINED_METRICS`` (google-cloud-aiplatform 2.7)."""

MAX_SAMPLING_COUNT = 32
DEFAULT_SAMPLING_COUNT = 4  # the service's AutoraterConfig.sampling_count when a metric gives none


def resolve_predefined(name: str) -> str | None:
    """agents-cli's ``_resolve_predefined_metric_name``: the registered version of a built-in metric (the newest when
    the name has none), or None."""
    lowered = name.lower()
    if lowered in SUPPORTED_PREDEFINED_METRICS:
        return lowered
    versions = [
        (int(match.group(1)), candidate)
        for candidate in SUPPORTED_PREDEFINED_METRICS
        if (match := re.fullmatch(rf"{re.escape(lowered)}_v(\d+)", candidate))
    ]
    return max(versions)[1] if versions else None


def sdk_computed(name: str) -> bool:
    """agents-cli's ``_is_sdk_computed_metric``: ``exact_match``, ``bleu`` and ``rouge*``, which the SDK dispatches on
    the name (and computes through the service, as the predefined ones)."""
    lowered = name.lower()
    return lowered in ("exact_match", "bleu") or lowered.startswith("rouge")


def built_in_names() -> list[str]:
    """Every name a built-in metric can be given by, for "did you mean"."""
    bases = {re.sub(r"_v\d+$", "", name) for name in SUPPORTED_PREDEFINED_METRICS}
    return sorted(bases | SUPPORTED_PREDEFINED_METRICS | {"exact_match", "bleu", "rouge_1", "rouge_l_sum"})


class CustomMetricEntry(pydantic.BaseModel):
    """One item of ``custom_metrics``: the fields of the SDK's ``Metric`` that agents-cli's metrics use, and
    ``custom_function_file`` / ``execution`` of agents-cli's own. Other keys are kept (the SDK's ``Metric`` allows
    them) and reported, as agents-cli ignores them."""

    model_config = pydantic.ConfigDict(defer_build=True, extra="allow")

    name: str = Field(min_length=1)
    custom_function: str | None = None
    custom_function_file: str | None = None
    execution: str | None = None
    prompt_template: str | None = None
    judge_model: str | None = None
    judge_model_sampling_count: int | None = Field(default=None, ge=1, le=MAX_SAMPLING_COUNT)
    judge_model_system_instruction: str | None = None
    judge_model_generation_config: genai_types.GenerationConfig | None = None
    metric_spec_parameters: dict[str, Any] | None = None
    rubric_group_name: str | None = None
    remote_custom_function: str | None = None
    result_parsing_function: str | None = None
    return_raw_output: bool | None = None
    metric_resource_name: str | None = None

    def defines_own_body(self) -> bool:
        """agents-cli's ``_defines_own_metric_body``: a judge prompt or code of its own (else it parameterizes the
        built-in metric it names)."""
        return any(
            value is not None
            for value in (
                self.prompt_template,
                self.custom_function,
                self.custom_function_file,
                self.remote_custom_function,
            )
        )


class GateSection(pydantic.BaseModel):
    """``adk_eval_gate:`` in eval_config.yaml; agents-cli never reads it."""

    model_config = pydantic.ConfigDict(defer_build=True, extra="forbid")

    thresholds: dict[str, float] = Field(default_factory=dict)
    budgets: Budgets | None = None

    @pydantic.field_validator("thresholds", mode="before")
    @classmethod
    def _numbers(cls, value: object) -> object:
        if isinstance(value, dict):
            for name, threshold in value.items():
                if isinstance(threshold, bool) or not isinstance(threshold, int | float):
                    raise ValueError(f"the threshold of {name!r} must be a number, got {threshold!r}"[:200])
        return value


class AgentsCliConfig(pydantic.BaseModel):
    """The whole file. ``custom_metrics`` is a list, as agents-cli requires; its items are checked one by one
    (``CustomMetricEntry``) so that each problem names its item."""

    model_config = pydantic.ConfigDict(defer_build=True, extra="allow")

    metrics_to_run: list[str] = Field(default_factory=list)
    custom_metrics: list[dict[str, Any]] = Field(default_factory=list)
    adk_eval_gate: GateSection = Field(default_factory=GateSection)


# ---------------------------------------------------------------------------------------------------------
# What each metric of metrics_to_run is, once resolved (``ConfiguredMetric.definition``)


class FunctionDefinition(pydantic.BaseModel):
    """``custom_function`` (inline) or ``custom_function_file`` (read from the file, as agents-cli inlines it):
    Python source that defines ``evaluate(instance)``. ``filename``: the name its code is compiled under, as
    agents-cli compiles it (``<custom_metric:NAME>``); ``file``: the file it came from (repository-relative)."""

    model_config = pydantic.ConfigDict(defer_build=True, frozen=True)

    source: str
    filename: str
    file: str | None = None
    env_file: str | None = None  # the .env agents-cli loads for its metrics (absolute), if there is one


class TemplateDefinition(pydantic.BaseModel):
    """A ``prompt_template`` judge: the template, and the judge's model, sampling and settings."""

    model_config = pydantic.ConfigDict(defer_build=True, frozen=True)

    prompt_template: str
    judge_model_options: JudgeModelOptions


class BuiltInDefinition(pydantic.BaseModel):
    """A metric of the evaluation service: its registered name and the parameters the config gives it."""

    model_config = pydantic.ConfigDict(defer_build=True, frozen=True)

    metric: str
    metric_spec_parameters: dict[str, Any] | None = None


class UnsupportedDefinition(pydantic.BaseModel):
    """A metric the gate cannot compute (``execution: remote``): why, in one line."""

    model_config = pydantic.ConfigDict(defer_build=True, frozen=True)

    reason: str


MetricDefinition = FunctionDefinition | TemplateDefinition | BuiltInDefinition | UnsupportedDefinition

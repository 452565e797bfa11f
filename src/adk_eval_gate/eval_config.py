"""``test_config.json``: ADK's EvalConfig and its criterion classes (google.adk.evaluation.eval_config 2.13)."""

from __future__ import annotations

import enum
from typing import Any, Literal, Union

import pydantic
from google.genai import types as genai_types
from pydantic import Field, alias_generators, field_validator, model_validator

from adk_eval_gate.evalset import EvalModel, Rubric

DEFAULT_CRITERIA: dict[str, float] = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}

_CAMEL = pydantic.ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)


class JudgeModelOptions(EvalModel):
    judge_model: str = "gemini-2.5-flash"
    judge_model_config: genai_types.GenerateContentConfig | None = None
    num_samples: int = Field(default=5, ge=1)
    parallelism_limit: int = Field(default=1, ge=1)


class BaseCriterion(pydantic.BaseModel):
    """A criterion object: ``threshold`` is required and every other key is kept verbatim (as ADK does)."""

    model_config = pydantic.ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow")

    threshold: float
    include_intermediate_responses_in_final: bool = False


class MatchType(enum.Enum):
    EXACT = 0
    IN_ORDER = 1
    ANY_ORDER = 2


class ToolTrajectoryCriterion(BaseCriterion):
    match_type: MatchType = MatchType.EXACT
    ignore_args: bool = False

    @field_validator("match_type", mode="before")
    @classmethod
    def _coerce_match_type(cls, value: object) -> object:
        if isinstance(value, str):
            normalized = value.strip().upper().replace("-", "_").replace(" ", "_")
            if normalized in MatchType.__members__:
                return MatchType[normalized]
        return value


class TrajectoryMatchCriterion(BaseCriterion):
    """The Vertex AI trajectory metrics; ``ignore_args`` compares tool names only."""

    ignore_args: bool = False


class SingleToolUseCriterion(BaseCriterion):
    """Vertex AI's ``trajectory_single_tool_use``: did the agent call ``tool_name`` at least once."""

    tool_name: str


class LlmAsAJudgeCriterion(BaseCriterion):
    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)


class RubricsBasedCriterion(BaseCriterion):
    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)
    rubrics: list[Rubric] = Field(default_factory=list)


class HallucinationsCriterion(BaseCriterion):
    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)
    evaluate_intermediate_nl_responses: bool = False


class LlmBackedUserSimulatorCriterion(LlmAsAJudgeCriterion):
    stop_signal: str = "</finished>"


class CodeConfig(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    name: str


class Interval(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid")

    min_value: float
    open_at_min: bool = False
    max_value: float
    open_at_max: bool = False


class MetricValueInfo(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid")

    interval: Interval | None = None


class MetricInfo(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid")

    metric_name: str
    description: str | None = None
    metric_value_info: MetricValueInfo
    requires_threshold: bool = True


class CustomMetricConfig(pydantic.BaseModel):
    model_config = _CAMEL

    code_config: CodeConfig
    metric_info: MetricInfo | None = None
    description: str = ""


class UserSimulatorConfig(EvalModel):
    """ADK's ``LlmBackedUserSimulatorConfig`` (``type`` defaults to ``llm_backed`` as in ADK)."""

    model_config = pydantic.ConfigDict(extra="allow")

    type: Literal["llm_backed", "llm_audio"] = "llm_backed"
    model: str = "gemini-2.5-flash"
    model_configuration: genai_types.GenerateContentConfig | None = None
    max_allowed_invocations: int = 20
    custom_instructions: str | None = None
    include_function_calls: bool = False

    @model_validator(mode="before")
    @classmethod
    def _legacy_type(cls, values: Any) -> Any:
        if isinstance(values, dict) and values.get("type") is None:
            return {**values, "type": "llm_backed"}
        return values

    @field_validator("custom_instructions")
    @classmethod
    def _template_placeholders(cls, value: str | None) -> str | None:
        if value is None:
            return value
        import re

        missing = [
            name
            for name in ("stop_signal", "conversation_plan", "conversation_history")
            if not re.search(r"\{\{\s*" + name + r"\s*\}\}", value)
        ]
        if missing:
            raise ValueError(
                "custom_instructions must contain the Jinja placeholders "
                + ", ".join("{{ " + name + " }}" for name in missing)
            )
        return value


class LiveModelConfig(pydantic.BaseModel):
    model_config = _CAMEL

    timeout_seconds: int = 300


class Budgets(pydantic.BaseModel):
    """Ours, not ADK's (ADK ignores the key): limits every turn of every run of a case must stay within."""

    model_config = pydantic.ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid")

    max_tokens_per_turn: int | None = Field(default=None, gt=0)
    max_seconds_per_turn: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    max_model_calls_per_turn: int | None = Field(default=None, gt=0)


class EvalConfig(pydantic.BaseModel):
    model_config = _CAMEL

    criteria: dict[str, Union[float, BaseCriterion]] = Field(default_factory=dict)  # noqa: UP007
    custom_metrics: dict[str, CustomMetricConfig] | None = None
    user_simulator_config: UserSimulatorConfig | None = None
    live_model_config: LiveModelConfig | None = None
    budgets: Budgets | None = None

    def criterion(self, metric_name: str) -> BaseCriterion:
        """The criterion of a configured metric; a plain number becomes ``{"threshold": n}``."""
        value = self.criteria[metric_name]
        if isinstance(value, BaseCriterion):
            return value
        return BaseCriterion(threshold=value)

    def custom_function_path(self, metric_name: str) -> str | None:
        if self.custom_metrics and metric_name in self.custom_metrics:
            return self.custom_metrics[metric_name].code_config.name
        return None


def default_config() -> EvalConfig:
    return EvalConfig(criteria=dict(DEFAULT_CRITERIA))

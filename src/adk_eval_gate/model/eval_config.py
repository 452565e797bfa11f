"""``test_config.json``: ADK's EvalConfig and its criterion classes (google.adk.evaluation.eval_config 2.13)."""

from __future__ import annotations

import enum
import math
from typing import Any, ClassVar, Literal, Union

import pydantic
from google.genai import types as genai_types
from pydantic import Field, alias_generators, field_validator, model_validator
from pydantic_core import PydanticCustomError

from adk_eval_gate.model.evalset import EvalModel, Rubric

DEFAULT_CRITERIA: dict[str, float] = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}

_CAMEL = pydantic.ConfigDict(defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True)


class JudgeModelOptions(EvalModel):
    judge_model: str = "gemini-2.5-flash"
    judge_model_config: genai_types.GenerateContentConfig | None = None
    num_samples: int = Field(default=5, ge=1)
    parallelism_limit: int = Field(default=1, ge=1)


class BaseCriterion(pydantic.BaseModel):
    """A criterion object: ``threshold`` is required and every other key is kept verbatim (as ADK does)."""

    model_config = pydantic.ConfigDict(
        defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow"
    )

    threshold: float
    include_intermediate_responses_in_final: bool = False

    unknown_options_are_errors: ClassVar[bool] = False  # ADK ignores unknown options of its own metrics


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


class GateCriterion(BaseCriterion):
    """A criterion of a metric only this tool has (Vertex AI's metrics, the session state): ADK never reads
    these options, so a misspelt one is an error instead of silently changing a score."""

    unknown_options_are_errors: ClassVar[bool] = True


BleuTokenizer = Literal["13a", "intl", "zh", "char", "none"]  # sacrebleu's tokenizers that need no extra install


class BleuCriterion(GateCriterion):
    use_effective_order: bool = False  # Vertex's BleuSpec default
    tokenize: BleuTokenizer = "13a"  # sacrebleu's default (mteval-v13a); "intl", "zh" or "char" for other scripts


class RougeCriterion(GateCriterion):
    use_stemmer: bool = False  # Vertex's RougeSpec defaults
    split_summaries: bool = False


RougeType = (
    Literal["rouge1", "rouge2", "rouge3", "rouge4", "rouge5", "rouge6", "rouge7", "rouge8", "rouge9"]
    | Literal["rougeL", "rougeLsum"]
)


class RougeTypeCriterion(RougeCriterion):
    """Vertex's ``Rouge(rouge_type=...)``: the ROUGE variant is an option."""

    rouge_type: RougeType


class ToolParameterKvCriterion(GateCriterion):
    use_strict_string_match: bool = False


class FinalSessionStateCriterion(GateCriterion):
    match_type: Literal["exact", "subset"] = "exact"
    ignore_keys: list[str] = Field(default_factory=list)

    @field_validator("match_type", mode="before")
    @classmethod
    def _lower_match_type(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


TEMPLATE_VARIABLES = ("prompt", "response", "reference", "predicted_trajectory", "reference_trajectory", "history")


class TemplateJudgeCriterion(GateCriterion):
    """A judge metric of the gate's own (Vertex's templated metrics): the judge options only."""

    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)


class PointwiseTemplateCriterion(TemplateJudgeCriterion):
    """Vertex's ``PointwiseMetricPromptTemplate`` written in test_config.json: the criteria the judge applies, the
    scores it may give, and what it is shown (``response`` always, as Vertex adds it)."""

    criteria: dict[str, str] = Field(min_length=1)
    rating_rubric: dict[str, str] = Field(min_length=1)
    input_variables: list[str] = Field(default_factory=lambda: ["prompt"])
    instruction: str | None = None

    @field_validator("rating_rubric")
    @classmethod
    def _numeric_scores(cls, value: dict[str, str]) -> dict[str, str]:
        for score in value:
            if rubric_score(score) is None:
                raise ValueError(
                    f'rating_rubric keys are the scores the judge may give, as numbers ("1", "0.5"): '
                    f"{score!r} is not a number"
                )
        return value

    @field_validator("input_variables")
    @classmethod
    def _known_variables(cls, value: list[str]) -> list[str]:
        for name in value:
            if name not in TEMPLATE_VARIABLES:
                raise ValueError(f"{name!r} is not an input variable; use {', '.join(TEMPLATE_VARIABLES)}")
        return value

    def scores(self) -> list[float]:
        """The rubric's scores, lowest first."""
        return sorted(score for key in self.rating_rubric if (score := rubric_score(key)) is not None)


def rubric_score(key: object) -> float | None:
    """A rating_rubric key as its score (a finite number), or None."""
    try:
        score = float(str(key).strip())
    except ValueError:
        return None
    return score if math.isfinite(score) else None


class CodeConfig(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(defer_build=True, extra="forbid")

    name: str


class Interval(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(
        defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid"
    )

    min_value: float
    open_at_min: bool = False
    max_value: float
    open_at_max: bool = False


class MetricValueInfo(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(
        defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid"
    )

    interval: Interval | None = None


class MetricInfo(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(
        defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid"
    )

    metric_name: str
    description: str | None = None
    metric_value_info: MetricValueInfo
    requires_threshold: bool = True


class CustomMetricConfig(pydantic.BaseModel):
    model_config = _CAMEL

    code_config: CodeConfig
    metric_info: MetricInfo | None = None
    description: str = ""
    # Ours (ADK ignores the key): "vertex" calls the function as Vertex AI's CustomMetric does, f(instance) -> {name:
    # score}, instead of ADK's f(eval_metric, actual_invocations, expected_invocations, conversation_scenario).
    signature: Literal["adk", "vertex"] = "adk"


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

    model_config = pydantic.ConfigDict(
        defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True, extra="forbid"
    )

    max_tokens_per_turn: int | None = Field(default=None, gt=0)
    max_seconds_per_turn: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    max_model_calls_per_turn: int | None = Field(default=None, gt=0)

    @field_validator("*", mode="before")
    @classmethod
    def _not_a_boolean(cls, value: object) -> object:
        """``true`` is not a budget (pydantic would read it as 1)."""
        if isinstance(value, bool):
            raise PydanticCustomError(
                "number_type", "Input should be a number, not {value}", {"value": str(value).lower()}
            )
        return value


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

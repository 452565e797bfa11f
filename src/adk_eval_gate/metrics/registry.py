"""Every metric the gate knows, by name: its family module, criterion class, value range and kind.

Evaluators are imported only when a configured metric needs them, so start-up stays fast and the judge
metrics do not load google-genai's client for a run that has none.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from adk_eval_gate.metrics import evaluators
from adk_eval_gate.metrics.metric import Metric, MetricServices
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.agents_cli_config import MetricDefinition
from adk_eval_gate.model.results import MetricKind


@dataclass(frozen=True)
class MetricSpec:
    name: str
    evaluator: Callable[[], type[Metric]]  # imports the class when a configured metric needs it (``evaluators``)
    criterion: type[eval_config.BaseCriterion]
    kind: MetricKind
    value_range: tuple[float, float] | None = (0.0, 1.0)
    description: str = ""

    @property
    def informational(self) -> bool:
        return self.kind == "informational"

    def evaluator_class(self) -> type[Metric]:
        return self.evaluator()


def _vertex(
    name: str, evaluator: Callable[[], type[Metric]], criterion: type[eval_config.BaseCriterion], description: str
) -> MetricSpec:
    """One of Vertex AI's computation-based metrics, computed here (``metrics/text_match.py``, ``tool_use.py``)."""
    return MetricSpec(name, evaluator, criterion, "deterministic", description=f"Vertex AI: {description}")


_SPECS = [
    MetricSpec(
        "tool_trajectory_avg_score",
        evaluators.tool_trajectory_avg_score,
        eval_config.ToolTrajectoryCriterion,
        "deterministic",
        description="ADK: tool calls match the expected ones (EXACT/IN_ORDER/ANY_ORDER)",
    ),
    MetricSpec(
        "response_match_score",
        evaluators.response_match_score,
        eval_config.BaseCriterion,
        "deterministic",
        description="ADK: ROUGE-1 F-measure of the final response against the expected one",
    ),
    MetricSpec(
        "trajectory_exact_match",
        evaluators.trajectory_exact_match,
        eval_config.TrajectoryMatchCriterion,
        "deterministic",
        description="Vertex AI: same tool calls in the same order",
    ),
    MetricSpec(
        "trajectory_in_order_match",
        evaluators.trajectory_in_order_match,
        eval_config.TrajectoryMatchCriterion,
        "deterministic",
        description="Vertex AI: expected calls appear in order, extras allowed",
    ),
    MetricSpec(
        "trajectory_any_order_match",
        evaluators.trajectory_any_order_match,
        eval_config.TrajectoryMatchCriterion,
        "deterministic",
        description="Vertex AI: expected calls all appear, any order, extras allowed",
    ),
    MetricSpec(
        "trajectory_precision",
        evaluators.trajectory_precision,
        eval_config.TrajectoryMatchCriterion,
        "deterministic",
        description="Vertex AI: share of actual calls that were expected",
    ),
    MetricSpec(
        "trajectory_recall",
        evaluators.trajectory_recall,
        eval_config.TrajectoryMatchCriterion,
        "deterministic",
        description="Vertex AI: share of expected calls that were made",
    ),
    MetricSpec(
        "trajectory_single_tool_use",
        evaluators.trajectory_single_tool_use,
        eval_config.SingleToolUseCriterion,
        "deterministic",
        description="Vertex AI: the tool named by tool_name was called",
    ),
    _vertex("exact_match", evaluators.exact_match, eval_config.GateCriterion, "the response equals the expected one"),
    _vertex(
        "bleu", evaluators.bleu, eval_config.BleuCriterion, "sentence BLEU (sacrebleu) against the expected response"
    ),
    _vertex("rouge", evaluators.rouge, eval_config.RougeTypeCriterion, "ROUGE F-measure of the rouge_type given"),
    _vertex("rouge_1", evaluators.rouge, eval_config.RougeCriterion, "ROUGE-1 F-measure (rouge-score)"),
    _vertex("rouge_2", evaluators.rouge, eval_config.RougeCriterion, "ROUGE-2 F-measure (rouge-score)"),
    _vertex("rouge_l", evaluators.rouge, eval_config.RougeCriterion, "ROUGE-L F-measure (rouge-score)"),
    _vertex("rouge_l_sum", evaluators.rouge, eval_config.RougeCriterion, "ROUGE-Lsum F-measure (rouge-score)"),
    _vertex("tool_call_valid", evaluators.tool_call_valid, eval_config.GateCriterion, "the tool calls are well formed"),
    _vertex(
        "tool_name_match", evaluators.tool_name_match, eval_config.GateCriterion, "each call names the expected tool"
    ),
    _vertex(
        "tool_parameter_key_match",
        evaluators.tool_parameter_key_match,
        eval_config.GateCriterion,
        "each call has the expected parameter names",
    ),
    _vertex(
        "tool_parameter_kv_match",
        evaluators.tool_parameter_kv_match,
        eval_config.ToolParameterKvCriterion,
        "each call has the expected parameter names and values",
    ),
    MetricSpec(
        "response_follows_trajectory",
        evaluators.response_follows_trajectory,
        eval_config.TemplateJudgeCriterion,
        "judge",
        description="Vertex AI's guide: the response follows from the tool calls made (templated judge, 1/0)",
    ),
    MetricSpec(
        "final_session_state_match",
        evaluators.final_session_state_match,
        eval_config.FinalSessionStateCriterion,
        "deterministic",
        description="the session state after the run matches the case's final_session_state",
    ),
    MetricSpec(
        "tool_call_count_v1",
        evaluators.tool_call_count,
        eval_config.BaseCriterion,
        "informational",
        None,
        "ADK: tool calls per invocation",
    ),
    MetricSpec(
        "inference_call_count_v1",
        evaluators.inference_call_count,
        eval_config.BaseCriterion,
        "informational",
        None,
        "ADK: model calls per invocation",
    ),
    MetricSpec(
        "token_usage_v1",
        evaluators.token_usage,
        eval_config.BaseCriterion,
        "informational",
        None,
        "ADK: tokens per invocation",
    ),
    MetricSpec(
        "invocation_duration_v1",
        evaluators.invocation_duration,
        eval_config.BaseCriterion,
        "informational",
        None,
        "ADK: seconds per invocation",
    ),
    MetricSpec(
        "final_response_match_v2",
        evaluators.final_response_match_v2,
        eval_config.LlmAsAJudgeCriterion,
        "judge",
        description="ADK: an LLM judge decides whether the final response is correct",
    ),
    MetricSpec(
        "rubric_based_final_response_quality_v1",
        evaluators.rubric_final_response_quality,
        eval_config.RubricsBasedCriterion,
        "judge",
        description="ADK: rubrics judged on the final response",
    ),
    MetricSpec(
        "rubric_based_tool_use_quality_v1",
        evaluators.rubric_tool_use_quality,
        eval_config.RubricsBasedCriterion,
        "judge",
        description="ADK: rubrics judged on the tool calls",
    ),
    MetricSpec(
        "rubric_based_multi_turn_trajectory_quality_v1",
        evaluators.rubric_multi_turn_trajectory_quality,
        eval_config.RubricsBasedCriterion,
        "judge",
        description="ADK: rubrics judged on the whole conversation",
    ),
    MetricSpec(
        "hallucinations_v1",
        evaluators.hallucinations_v1,
        eval_config.HallucinationsCriterion,
        "judge",
        description="ADK: share of sentences supported by the context",
    ),
    MetricSpec(
        "per_turn_user_simulator_quality_v1",
        evaluators.per_turn_user_simulator_quality,
        eval_config.LlmBackedUserSimulatorCriterion,
        "judge",
        description="ADK: the simulated user followed the conversation plan",
    ),
    MetricSpec(
        "safety_v1",
        evaluators.safety_v1,
        eval_config.LlmAsAJudgeCriterion,
        "judge",
        description="Vertex-style safety, judged by our Gemini judge",
    ),
    MetricSpec(
        "response_evaluation_score",
        evaluators.response_evaluation_score,
        eval_config.LlmAsAJudgeCriterion,
        "judge",
        (1.0, 5.0),
        "Vertex-style coherence 1-5, judged by our Gemini judge",
    ),
    MetricSpec(
        "multi_turn_task_success_v1",
        evaluators.multi_turn_task_success,
        eval_config.LlmAsAJudgeCriterion,
        "judge",
        description="Vertex-style multi-turn task success, judged by our Gemini judge",
    ),
    MetricSpec(
        "multi_turn_trajectory_quality_v1",
        evaluators.multi_turn_trajectory_quality,
        eval_config.LlmAsAJudgeCriterion,
        "judge",
        description="Vertex-style multi-turn trajectory quality, judged by our Gemini judge",
    ),
    MetricSpec(
        "multi_turn_tool_use_quality_v1",
        evaluators.multi_turn_tool_use_quality,
        eval_config.LlmAsAJudgeCriterion,
        "judge",
        description="Vertex-style multi-turn tool use quality, judged by our Gemini judge",
    ),
]

BUILT_IN: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}
EFFICIENCY_METRICS = tuple(spec.name for spec in _SPECS if spec.informational)


def custom_spec(name: str, config: eval_config.CustomMetricConfig) -> MetricSpec:
    """A custom metric's threshold is range-checked only against the interval its ``metric_info`` declares: ADK
    checks no threshold against any range (a count's threshold of 40 runs), and neither does the gate unasked."""
    value_range: tuple[float, float] | None = None
    if config.metric_info and config.metric_info.metric_value_info.interval:
        interval = config.metric_info.metric_value_info.interval
        value_range = (interval.min_value, interval.max_value)
    evaluator = evaluators.vertex_custom_metric if config.signature == "vertex" else evaluators.custom_metric
    return MetricSpec(name, evaluator, eval_config.BaseCriterion, "custom", value_range, config.description)


TEMPLATE_KEYS = frozenset({"criteria", "rating_rubric", "ratingRubric", "input_variables", "inputVariables"})


def _templated_spec(name: str, criterion: eval_config.BaseCriterion) -> MetricSpec:
    """A metric the config defines itself with Vertex's prompt-template keys (``metrics/templated.py``)."""
    extra = criterion.model_extra or {}
    rubric = extra.get("rating_rubric", extra.get("ratingRubric"))
    scores = (
        [s for key in rubric if (s := eval_config.rubric_score(key)) is not None] if isinstance(rubric, dict) else []
    )
    value_range = (min(scores), max(scores)) if scores and len(scores) == len(rubric or {}) else None
    return MetricSpec(
        name,
        evaluators.templated_judge_metric,
        eval_config.PointwiseTemplateCriterion,
        "judge",
        value_range,
        "templated LLM judge (Vertex AI's PointwiseMetricPromptTemplate)",
    )


def spec_for(name: str, config: eval_config.EvalConfig) -> MetricSpec | None:
    """Custom metrics of the config first (ADK lets them override nothing built in, but names are free); a name
    that is neither built in nor custom, with prompt-template keys in its criterion, is a templated metric."""
    if config.custom_metrics and name in config.custom_metrics:
        return custom_spec(name, config.custom_metrics[name])
    if name in BUILT_IN:
        return BUILT_IN[name]
    criterion = config.criteria.get(name)
    if isinstance(criterion, eval_config.BaseCriterion) and TEMPLATE_KEYS & set(criterion.model_extra or {}):
        return _templated_spec(name, criterion)
    return None


def suggest(name: str, config: eval_config.EvalConfig | None = None) -> str | None:
    known = list(BUILT_IN)
    if config and config.custom_metrics:
        known += list(config.custom_metrics)
    matches = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    return matches[0] if matches else None


@dataclass(frozen=True)
class ConfiguredMetric:
    spec: MetricSpec
    criterion: eval_config.BaseCriterion | None  # None for the informational metrics (and those without a threshold)
    custom_function_path: str | None = None
    definition: MetricDefinition | None = None  # an agents-cli metric's own definition (eval_config.yaml)
    uncalibrated: str | None = None  # why this judge metric does not gate (verdict/judges.py); None: it may
    calibration_required: bool = False  # --require-calibrated-judges

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def threshold(self) -> float | None:
        return self.criterion.threshold if self.criterion else None

    def build(self, services: MetricServices) -> Metric:
        cls = self.spec.evaluator_class()
        metric = cls(
            name=self.spec.name, criterion=self.criterion, services=services, criterion_type=self.spec.criterion
        )
        if self.custom_function_path is not None:
            metric.custom_function_path = self.custom_function_path  # type: ignore[attr-defined]
        if self.definition is not None:
            metric.definition = self.definition  # type: ignore[attr-defined]
        return metric

    @property
    def judge_options(self) -> eval_config.JudgeModelOptions | None:
        """The judge model and sampling of a metric the gate's judge scores (its criterion's, or its definition's);
        None for the others."""
        options = getattr(self.criterion, "judge_model_options", None) or getattr(
            self.definition, "judge_model_options", None
        )
        return options if isinstance(options, eval_config.JudgeModelOptions) else None


def configured_metrics(config: eval_config.EvalConfig) -> list[ConfiguredMetric]:
    """The metrics of a validated config, in config order, then the informational efficiency metrics.

    The criteria must have been checked by ``config_checks.check_config`` first.
    """
    metrics: list[ConfiguredMetric] = []
    for name in config.criteria:
        spec = spec_for(name, config)
        assert spec is not None, f"unchecked metric {name}"
        criterion = spec.criterion.model_validate(config.criterion(name).model_dump())
        metrics.append(ConfiguredMetric(spec, criterion, config.custom_function_path(name)))
    metrics.extend(ConfiguredMetric(BUILT_IN[name], None) for name in EFFICIENCY_METRICS)
    return metrics

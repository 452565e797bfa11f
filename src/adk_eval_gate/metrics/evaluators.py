"""Each metric's evaluator class, imported when a configured metric needs it (so start-up stays fast and a run
without judge metrics never loads the judge's client), by a function that mypy checks: the registry's
``MetricSpec.evaluator`` is one of these."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adk_eval_gate.metrics.metric import Metric


def custom_metric() -> type[Metric]:
    from adk_eval_gate.metrics.custom import CustomMetric

    return CustomMetric


def vertex_custom_metric() -> type[Metric]:
    from adk_eval_gate.metrics.custom import VertexCustomMetric

    return VertexCustomMetric


def inference_call_count() -> type[Metric]:
    from adk_eval_gate.metrics.efficiency import InferenceCallCount

    return InferenceCallCount


def invocation_duration() -> type[Metric]:
    from adk_eval_gate.metrics.efficiency import InvocationDuration

    return InvocationDuration


def token_usage() -> type[Metric]:
    from adk_eval_gate.metrics.efficiency import TokenUsage

    return TokenUsage


def tool_call_count() -> type[Metric]:
    from adk_eval_gate.metrics.efficiency import ToolCallCount

    return ToolCallCount


def hallucinations_v1() -> type[Metric]:
    from adk_eval_gate.metrics.hallucinations import HallucinationsV1

    return HallucinationsV1


def final_response_match_v2() -> type[Metric]:
    from adk_eval_gate.metrics.judge_metrics import FinalResponseMatchV2

    return FinalResponseMatchV2


def response_match_score() -> type[Metric]:
    from adk_eval_gate.metrics.rouge import ResponseMatchScore

    return ResponseMatchScore


def rubric_final_response_quality() -> type[Metric]:
    from adk_eval_gate.metrics.rubric_metrics import RubricFinalResponseQuality

    return RubricFinalResponseQuality


def rubric_multi_turn_trajectory_quality() -> type[Metric]:
    from adk_eval_gate.metrics.rubric_metrics import RubricMultiTurnTrajectoryQuality

    return RubricMultiTurnTrajectoryQuality


def rubric_tool_use_quality() -> type[Metric]:
    from adk_eval_gate.metrics.rubric_metrics import RubricToolUseQuality

    return RubricToolUseQuality


def final_session_state_match() -> type[Metric]:
    from adk_eval_gate.metrics.session_state import FinalSessionStateMatch

    return FinalSessionStateMatch


def response_follows_trajectory() -> type[Metric]:
    from adk_eval_gate.metrics.templated import ResponseFollowsTrajectory

    return ResponseFollowsTrajectory


def templated_judge_metric() -> type[Metric]:
    from adk_eval_gate.metrics.templated import TemplatedJudgeMetric

    return TemplatedJudgeMetric


def bleu() -> type[Metric]:
    from adk_eval_gate.metrics.text_match import Bleu

    return Bleu


def exact_match() -> type[Metric]:
    from adk_eval_gate.metrics.text_match import ExactMatch

    return ExactMatch


def rouge() -> type[Metric]:
    from adk_eval_gate.metrics.text_match import Rouge

    return Rouge


def tool_call_valid() -> type[Metric]:
    from adk_eval_gate.metrics.tool_use import ToolCallValid

    return ToolCallValid


def tool_name_match() -> type[Metric]:
    from adk_eval_gate.metrics.tool_use import ToolNameMatch

    return ToolNameMatch


def tool_parameter_key_match() -> type[Metric]:
    from adk_eval_gate.metrics.tool_use import ToolParameterKeyMatch

    return ToolParameterKeyMatch


def tool_parameter_kv_match() -> type[Metric]:
    from adk_eval_gate.metrics.tool_use import ToolParameterKvMatch

    return ToolParameterKvMatch


def tool_trajectory_avg_score() -> type[Metric]:
    from adk_eval_gate.metrics.trajectory import ToolTrajectoryAvgScore

    return ToolTrajectoryAvgScore


def trajectory_any_order_match() -> type[Metric]:
    from adk_eval_gate.metrics.trajectory import TrajectoryAnyOrderMatch

    return TrajectoryAnyOrderMatch


def trajectory_exact_match() -> type[Metric]:
    from adk_eval_gate.metrics.trajectory import TrajectoryExactMatch

    return TrajectoryExactMatch


def trajectory_in_order_match() -> type[Metric]:
    from adk_eval_gate.metrics.trajectory import TrajectoryInOrderMatch

    return TrajectoryInOrderMatch


def trajectory_precision() -> type[Metric]:
    from adk_eval_gate.metrics.trajectory import TrajectoryPrecision

    return TrajectoryPrecision


def trajectory_recall() -> type[Metric]:
    from adk_eval_gate.metrics.trajectory import TrajectoryRecall

    return TrajectoryRecall


def trajectory_single_tool_use() -> type[Metric]:
    from adk_eval_gate.metrics.trajectory import TrajectorySingleToolUse

    return TrajectorySingleToolUse


def per_turn_user_simulator_quality() -> type[Metric]:
    from adk_eval_gate.metrics.user_simulator_quality import PerTurnUserSimulatorQuality

    return PerTurnUserSimulatorQuality


def multi_turn_task_success() -> type[Metric]:
    from adk_eval_gate.metrics.platform_delegated import MultiTurnTaskSuccess

    return MultiTurnTaskSuccess


def multi_turn_tool_use_quality() -> type[Metric]:
    from adk_eval_gate.metrics.platform_delegated import MultiTurnToolUseQuality

    return MultiTurnToolUseQuality


def multi_turn_trajectory_quality() -> type[Metric]:
    from adk_eval_gate.metrics.platform_delegated import MultiTurnTrajectoryQuality

    return MultiTurnTrajectoryQuality


def response_evaluation_score() -> type[Metric]:
    from adk_eval_gate.metrics.platform_delegated import ResponseEvaluationScore

    return ResponseEvaluationScore


def safety_v1() -> type[Metric]:
    from adk_eval_gate.metrics.platform_delegated import SafetyV1

    return SafetyV1


def agents_cli_function() -> type[Metric]:
    from adk_eval_gate.metrics.agents_cli_functions import AgentsCliFunctionMetric

    return AgentsCliFunctionMetric


def agents_cli_template() -> type[Metric]:
    from adk_eval_gate.metrics.agents_cli_judge import AgentsCliTemplateMetric

    return AgentsCliTemplateMetric


def platform_built_in() -> type[Metric]:
    from adk_eval_gate.metrics.platform_builtin import PlatformBuiltInMetric

    return PlatformBuiltInMetric


def unsupported_metric() -> type[Metric]:
    from adk_eval_gate.metrics.platform_builtin import UnsupportedMetric

    return UnsupportedMetric


def local_computation() -> type[Metric]:
    from adk_eval_gate.metrics.platform_builtin import LocalComputation

    return LocalComputation

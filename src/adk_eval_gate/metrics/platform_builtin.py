"""The built-in metrics of an agents-cli ``eval_config.yaml`` (``general_quality``, ``tool_use_quality``,
``final_response_quality``, ``final_response_match``, ``hallucination``, ``grounding``, ``safety``,
``multi_turn_task_success``, ...): Google's evaluation service computes them, as for agents-cli, and nothing else can.

With the service (``services.platform``: a Google Cloud project is configured and Google's SDK installed,
``judge/platform_access.py``), each case's trace goes to it as the SDK's ``PredefinedMetricHandler`` sends it
(``judge/platform_instances.DatasetInstance``), with the metric's ``metric_spec_parameters``; its score and rubric
verdicts are read as the SDK reads them. Without it they are not evaluated, with one line saying what they need, and
never pass.

``exact_match``, ``bleu`` and ``rouge*``, which the SDK sends to the service's computation endpoints, are computed
here instead (``LocalComputation``), by the gate's implementations of Vertex AI's computation metrics
(``metrics/text_match.py``): the final response against the case's ``reference``, ``rouge_l_sum`` as ROUGE-Lsum and
every other ``rouge*`` name as ROUGE-1, as the SDK's ``ComputationMetricHandler`` maps them. They need no project.

``execution: remote`` metrics (Google's code execution sandbox) are not supported: ``UnsupportedMetric`` says so
for every case.
"""

from __future__ import annotations

import inspect
import json
import re

from adk_eval_gate.judge import platform_access
from adk_eval_gate.judge.platform_instances import DatasetInstance, MissingInput
from adk_eval_gate.judge.platform_service import PlatformFailed, ServiceMetric
from adk_eval_gate.metrics.agents_cli_instance import trace_case
from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, NotEvaluated
from adk_eval_gate.metrics.platform_metrics import instance_score, rubric_scores
from adk_eval_gate.model.agents_cli_config import BuiltInDefinition, UnsupportedDefinition
from adk_eval_gate.model.platform_cases import platform_case_of
from adk_eval_gate.model.results import ComputedBy

NEEDS = (
    "which needs a Google Cloud project (GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, with Application Default "
    "Credentials) and Google's evaluation SDK (adk-eval-gate's agent-platform extra)"
)


def service_metric(definition: BuiltInDefinition) -> ServiceMetric:
    """The SDK's ``PrebuiltMetric`` for a registered name (``general_quality_v2``: ``GENERAL_QUALITY`` at ``v2``)."""
    match = re.fullmatch(r"(.+)_(v\d+)", definition.metric)
    name, version = (match.group(1), match.group(2)) if match else (definition.metric, None)
    parameters = (
        json.dumps(definition.metric_spec_parameters, sort_keys=True) if definition.metric_spec_parameters else None
    )
    return ServiceMetric(name.upper(), version, parameters)


class PlatformBuiltInMetric(Metric):
    definition: BuiltInDefinition | None = None

    @property
    def computed_by(self) -> ComputedBy | None:
        return platform_access.AGENT_PLATFORM if self.services.platform is not None else None

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        definition = self.definition or BuiltInDefinition(metric=self.name)
        service = self.services.platform
        if service is None:
            raise NotEvaluated(f"{self.name} ({definition.metric}) is computed by Google's evaluation service, {NEEDS}")
        trace = trace_case(run)
        instance = DatasetInstance(trace.model_dump_json(exclude_none=True), definition.metric)
        metric = service_metric(definition)
        try:
            (result,) = await service.evaluate(metric=metric, instances=[instance])
        except MissingInput as refused:
            raise NotEvaluated(f"the evaluation SDK refuses this case: {refused}") from None
        except PlatformFailed as failed:
            return MetricOutcome.not_evaluated(str(failed), len(run.actual), infrastructure=failed.infrastructure)
        score, verdicts = instance_score(result), rubric_scores(result)
        details = {"service_metric": str(metric), **({"explanation": result.explanation} if result.explanation else {})}
        reason = None if score is not None else f"the evaluation service gave no score: {result.error or 'no reason'}"
        return MetricOutcome.last_turn(score, len(run.actual), rubric_scores=verdicts, reason=reason, details=details)


class LocalComputation(Metric):
    """``exact_match``, ``bleu``, ``rouge*`` of an agents-cli config, computed by the gate's own metrics."""

    definition: BuiltInDefinition | None = None

    def _inner(self) -> Metric:
        from adk_eval_gate.metrics import text_match

        kind = (self.definition.metric if self.definition else self.name).lower()
        if kind == "exact_match":
            return text_match.ExactMatch(name="exact_match", criterion=None, services=self.services)
        if kind == "bleu":
            return text_match.Bleu(name="bleu", criterion=None, services=self.services)
        fixed = "rouge_l_sum" if kind == "rouge_l_sum" else "rouge_1"  # the SDK's rouge_type for the name
        return text_match.Rouge(name=fixed, criterion=None, services=self.services)

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        if not run.expected or run.expected[-1].final_response is None:
            platform = platform_case_of(run.eval_case)
            case_id = platform.eval_case_id if platform and platform.eval_case_id else run.eval_case.eval_id
            raise NotEvaluated(f"Reference text missing for eval_case {case_id}.")
        result = self._inner().evaluate(run)
        return await result if inspect.isawaitable(result) else result


class UnsupportedMetric(Metric):
    definition: UnsupportedDefinition | None = None

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        raise NotEvaluated(self.definition.reason if self.definition else f"{self.name} is not supported")

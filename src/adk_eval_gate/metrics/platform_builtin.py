"""The built-in metrics of an agents-cli ``eval_config.yaml`` (``general_quality``, ``tool_use_quality``,
``final_response_quality``, ``final_response_match``, ``hallucination``, ``grounding``, ``safety``,
``multi_turn_task_success``, ... and ``exact_match``, ``bleu``, ``rouge*``): Google's evaluation service computes
them, as for agents-cli, and nothing else can. Without a Google Cloud project they are not evaluated, with one line
saying what they need, and never pass.

``execution: remote`` metrics (Google's code execution sandbox) are not supported: ``UnsupportedMetric`` says so
for every case.
"""

from __future__ import annotations

from adk_eval_gate.metrics.base import CaseRun, Metric, MetricOutcome, NotEvaluated
from adk_eval_gate.model.agents_cli_config import BuiltInDefinition, UnsupportedDefinition

NEEDS = (
    "which needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, with Application "
    "Default Credentials, and install adk-eval-gate's agent-platform extra"
)


class PlatformBuiltInMetric(Metric):
    definition: BuiltInDefinition | None = None

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        metric = self.definition.metric if self.definition else self.name
        raise NotEvaluated(f"{self.name} ({metric}) is computed by Google's evaluation service, {NEEDS}")


class UnsupportedMetric(Metric):
    definition: UnsupportedDefinition | None = None

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        raise NotEvaluated(self.definition.reason if self.definition else f"{self.name} is not supported")

"""What the verdict makes of one metric's scores for one run: the metric only scores (``metrics/``), and the
statuses of the run and of each turn are the verdict's (``verdict.aggregation``), as ``adk eval`` decides them.
The metric tests check both on the same outcome, as ADK's evaluators return both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adk_eval_gate.metrics.metric import MetricOutcome
from adk_eval_gate.model.evalset import RubricScore
from adk_eval_gate.model.results import MetricStatus, RunMetric
from adk_eval_gate.verdict import invocation_statuses, run_metric_status


@dataclass(frozen=True)
class DecidedTurn:
    score: float | None
    status: MetricStatus
    rubric_scores: list[RubricScore] | None
    details: dict[str, Any] | None


class Decided:
    """A metric's outcome for one run (every attribute of ``MetricOutcome``), with the verdict's ``status`` for the
    run and for each turn (``per_invocation``)."""

    def __init__(self, outcome: MetricOutcome, *, threshold: float | None, informational: bool = False) -> None:
        self.outcome = outcome
        own = outcome.evaluator_status is not None
        record = RunMetric(
            name="metric",
            score=outcome.score,
            status=MetricStatus.NOT_EVALUATED,
            invocation_scores=[item.score for item in outcome.per_invocation],
            evaluator_status=outcome.evaluator_status,
            invocation_statuses=[item.evaluator_status for item in outcome.per_invocation] if own else [],
        )
        self.status = run_metric_status(record, threshold=threshold, informational=informational)
        if informational:
            statuses: list[MetricStatus | None] = [MetricStatus.INFORMATIONAL] * len(outcome.per_invocation)
        elif threshold is None:
            statuses = [None] * len(outcome.per_invocation)
        else:
            statuses = invocation_statuses(record, threshold)
        self.per_invocation = [
            DecidedTurn(item.score, status or MetricStatus.NOT_EVALUATED, item.rubric_scores, item.details)
            for item, status in zip(outcome.per_invocation, statuses, strict=True)
        ]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.outcome, name)

"""The metric interface: one evaluator per metric, as in ADK's ``Evaluator``.

An evaluator gets the actual and expected invocations of one run of one case and returns per-invocation scores
and one overall score, computed with ADK's rules. It returns no pass or fail: the verdict decides those
(``verdict/aggregation.py``), except that a custom metric's function returns statuses of its own, which are kept
(``evaluator_status``) for the verdict to respect, as ADK does. Raising ``NotEvaluated`` (or any exception) makes
the metric ``not_evaluated`` with the reason, never a score.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from adk_eval_gate.judge.service import JudgeService
from adk_eval_gate.model.eval_config import BaseCriterion
from adk_eval_gate.model.evalset import ConversationScenario, EvalCase, Invocation, RubricScore
from adk_eval_gate.model.results import ComputedBy, MetricStatus
from adk_eval_gate.support.stats import mean

if TYPE_CHECKING:
    from adk_eval_gate.judge.platform_service import PlatformService
    from adk_eval_gate.metrics.agents_cli_functions import FunctionRunner


class NotEvaluated(Exception):
    """The metric cannot produce a score for this case; the message says why and what to do."""


class ResultRefused(Exception):
    """The metric returned what ADK refuses outright, ending its whole evaluation: the run is an error here."""


@dataclass
class InvocationScore:
    score: float | None
    rubric_scores: list[RubricScore] | None = None
    details: dict[str, Any] | None = None
    evaluator_status: MetricStatus | None = None  # a custom metric function's own status; else None


@dataclass
class MetricOutcome:
    """A metric's scores for one run; ``score`` None: not evaluated (``reason`` says why)."""

    score: float | None
    per_invocation: list[InvocationScore] = field(default_factory=list)
    reason: str | None = None
    rubric_scores: list[RubricScore] | None = None
    details: dict[str, Any] | None = None
    infrastructure: bool = False  # not evaluated because a service failed (a judge outage), not the config
    evaluator_status: MetricStatus | None = None  # a custom metric function's own overall status; else None
    computed_by: ComputedBy | None = None  # set from the metric (``Metric.computed_by``) by ``score.evaluate_metric``

    @classmethod
    def last_turn(
        cls,
        score: float | None,
        invocations: int,
        *,
        rubric_scores: list[RubricScore] | None = None,
        reason: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> MetricOutcome:
        """A score of the whole conversation: only the last of ``invocations`` turns has it (and its rubric
        verdicts), the earlier ones none."""
        earlier = [InvocationScore(None) for _ in range(invocations - 1)]
        per_invocation = [*earlier, InvocationScore(score, rubric_scores=rubric_scores)] if invocations else []
        return cls(score, per_invocation, reason=reason, rubric_scores=rubric_scores, details=details)

    @classmethod
    def not_evaluated(cls, reason: str, invocations: int, *, infrastructure: bool = False) -> MetricOutcome:
        return cls(
            score=None,
            per_invocation=[InvocationScore(None) for _ in range(invocations)],
            reason=reason,
            infrastructure=infrastructure,
        )


@dataclass(frozen=True)
class CaseRun:
    """What a metric sees: one run of one case."""

    eval_case: EvalCase
    actual: list[Invocation]
    expected: list[Invocation] | None
    scenario: ConversationScenario | None
    final_session_state: dict[str, Any] | None = None  # after the run, when the runner recorded it
    tools_unseen: str | None = None  # why the run's tool calls could not be seen (an A2A server); None: they were


@dataclass
class MetricServices:
    """Shared services of a run that some metrics need (the judge client, its cache and rate limit; Google's
    evaluation service when it computes ADK's service-backed metrics and agents-cli's built-in ones; where
    agents-cli's metric code runs: ``runners/workers/function_process.py``)."""

    judge: JudgeService | None = None
    platform: PlatformService | None = None
    functions: FunctionRunner | None = None
    lenient_labels: bool = False  # --lenient-judge-labels: judge answers read as judge/parsing.py reads them

    async def aclose(self) -> None:
        """Releases what the services hold (their HTTP clients); call it in the loop that used them."""
        if self.judge is not None:
            await self.judge.aclose()
        if self.platform is not None:
            await self.platform.aclose()


def require_expected(run: CaseRun, metric_name: str) -> list[Invocation]:
    if run.expected is None:
        raise NotEvaluated(
            f"{metric_name} compares with expected invocations, and this case has a conversation_scenario "
            "instead of a conversation (as in ADK, it is not evaluated)"
        )
    if len(run.expected) != len(run.actual):
        raise NotEvaluated(f"the agent produced {len(run.actual)} invocations for {len(run.expected)} expected ones")
    return run.expected


class Metric(abc.ABC):
    """One configured metric. Subclasses implement ``evaluate``; the type of their criterion is declared once, by
    their ``MetricSpec`` in ``registry.py``, and given here (``criterion_type``)."""

    # The metric scores the run's tool calls: when the runner could not see them (``CaseRun.tools_unseen``) it is
    # not evaluated, never scored as if the agent had called no tool.
    reads_tool_calls = False

    def __init__(
        self,
        *,
        name: str,
        criterion: BaseCriterion | None,
        services: MetricServices,
        criterion_type: type[BaseCriterion] | None = None,
    ) -> None:
        self.name = name
        self.criterion = criterion
        self.services = services
        self.criterion_type = criterion_type or (type(criterion) if criterion is not None else BaseCriterion)

    @property
    def computed_by(self) -> ComputedBy | None:
        """For a metric ADK computes through Google's evaluation service: who computes it here."""
        return None

    @property
    def threshold(self) -> float:
        if self.criterion is None:
            raise NotEvaluated(f"{self.name} needs a threshold")
        return self.criterion.threshold

    @abc.abstractmethod
    def evaluate(self, run: CaseRun) -> MetricOutcome | Awaitable[MetricOutcome]:
        """Scores one run of one case."""

    def mean_outcome(self, scores: list[float]) -> MetricOutcome:
        """ADK's rule for per-invocation metrics: overall = mean over invocations."""
        per_invocation = [InvocationScore(score) for score in scores]
        if not scores:
            return MetricOutcome(score=None, reason="no invocations to score")
        total = 0.0
        for score in scores:
            total += score
        overall = total / len(scores)
        if math.isinf(overall):  # finite scores whose sum overflows (1e308 on two rows): still a finite mean
            overall = mean(scores)
        return MetricOutcome(score=overall, per_invocation=per_invocation)

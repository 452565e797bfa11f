"""LLM-judged metrics: the shared base, and ADK's ``final_response_match_v2``.

Sampling, voting and aggregation follow ADK 2.13 (spec 3.5): ``num_samples`` answers per invocation, majority
vote with ties counted as invalid, labels read as ADK reads them (``judge/adk_parsing.py``; the lenient reading
of ``judge/parsing.py`` under ``--lenient-judge-labels``), unreadable answers counted as no label, overall =
valid invocations / invocations with a score. One deliberate difference: when a judge call fails for good
(after our retries), ADK drops that invocation and still scores the others; here the metric is ``not_evaluated``
with the reason, so an outage can never pass or fail a gate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pydantic

from adk_eval_gate.judge import adk_parsing, parsing, prompts
from adk_eval_gate.judge.invocation_text import response_text
from adk_eval_gate.judge.sampling import Samples, ask_samples, majority
from adk_eval_gate.judge.service import JudgeService
from adk_eval_gate.metrics.metric import (
    CaseRun,
    InvocationScore,
    Metric,
    MetricOutcome,
    NotEvaluated,
    require_expected,
)
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import content_text
from adk_eval_gate.support.pydantic_errors import first_error

Verdict = Callable[[str], float | None]


class JudgeMetric(Metric):
    """A metric whose scores come from the run's LLM judge (``services.judge``)."""

    def typed_criterion(self) -> eval_config.BaseCriterion:
        if self.criterion is None:
            raise NotEvaluated(f"{self.name} needs a threshold")
        if isinstance(self.criterion, self.criterion_type):
            return self.criterion
        try:
            return self.criterion_type.model_validate(self.criterion.model_dump())
        except pydantic.ValidationError as error:
            where, message = first_error(error)
            raise NotEvaluated(f"{self.name}: criterion option {where}: {message}") from None

    @property
    def judge_options(self) -> eval_config.JudgeModelOptions:
        options = getattr(self.typed_criterion(), "judge_model_options", None)
        return options if isinstance(options, eval_config.JudgeModelOptions) else eval_config.JudgeModelOptions()

    def judge(self) -> JudgeService:
        service = self.services.judge
        if service is None:
            raise NotEvaluated(f"{self.name} needs an LLM judge, and this run has none")
        if service.backend is None:
            raise NotEvaluated(service.unavailable or "no LLM judge")
        return service

    def judge_details(self, **extra: Any) -> dict[str, Any]:
        options = self.judge_options
        return {"judge_model": options.judge_model, "num_samples": options.num_samples, **extra}


def _first_failure(samples: Sequence[Samples]) -> Samples | None:
    return next((s for s in samples if s.failure), None)


def failed_outcome(samples: Sequence[Samples], invocations: int, details: dict[str, Any]) -> MetricOutcome | None:
    """``judge_failed`` for the first judge call that failed for good; None when every call was answered."""
    failed = _first_failure(samples)
    if failed is None or failed.failure is None:
        return None
    return judge_failed(failed.failure, invocations, details, infrastructure=failed.infrastructure)


def unreadable(samples: Sequence[Samples]) -> str:
    answers = sum(len(s.answers) for s in samples)
    return f"no verdict could be read from the judge's answers ({answers} answers)"


def _vote_counts(verdicts: Sequence[float | None]) -> dict[str, int]:
    return {
        "yes": sum(1 for v in verdicts if v == 1.0),
        "no": sum(1 for v in verdicts if v is not None and v != 1.0),
        "unreadable": sum(1 for v in verdicts if v is None),
    }


def judge_failed(
    reason: str, invocations: int, details: dict[str, Any] | None = None, *, infrastructure: bool = False
) -> MetricOutcome:
    """A judge call failed for good: nothing of this metric is scored (the remaining samples were not asked).

    ``infrastructure``: the judge was down (the run becomes an infrastructure error), not misconfigured."""
    outcome = MetricOutcome.not_evaluated(reason, invocations, infrastructure=infrastructure)
    outcome.details = details
    return outcome


def binary_invocation(samples: Samples, verdict: Verdict) -> tuple[InvocationScore, dict[str, int]]:
    """Majority vote of one invocation's samples (ADK's rule, ties negative)."""
    if samples.failure:
        return InvocationScore(None), {}
    verdicts = [verdict(answer) for answer in samples.answers]
    score = majority(verdicts)
    return InvocationScore(score), _vote_counts(verdicts)


def scored_mean_outcome(
    per_invocation: list[InvocationScore], samples: Sequence[Samples], details: dict[str, Any]
) -> MetricOutcome:
    """Overall = mean of the invocations that have a score (for 0/1 scores: the valid fraction)."""
    if failed := failed_outcome(samples, len(per_invocation), details):
        return failed
    scored = [item.score for item in per_invocation if item.score is not None]
    if not scored:
        reason = unreadable(samples) if per_invocation else "no invocations to judge"
        return MetricOutcome(None, per_invocation, reason=reason, details=details)
    overall = sum(scored) / len(scored)
    return MetricOutcome(overall, per_invocation, details=details)


class FinalResponseMatchV2(JudgeMetric):
    """ADK's ``final_response_match_v2``: is the final response correct against the expected one?"""

    def prompt(self, run: CaseRun) -> list[str]:
        expected = require_expected(run, self.name)
        include = self.typed_criterion().include_intermediate_responses_in_final
        return [
            prompts.fill(
                prompts.FINAL_RESPONSE_MATCH,
                prompt=content_text(reference.user_content),
                response=response_text(actual, include_intermediate=include),
                golden_response=response_text(reference, include_intermediate=include),
            )
            for actual, reference in zip(run.actual, expected, strict=True)
        ]

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        prompt_texts = self.prompt(run)
        judge = self.judge()
        samples = await ask_samples(judge, options=self.judge_options, prompts=prompt_texts)
        reading = parsing if self.services.lenient_labels else adk_parsing
        scored = [binary_invocation(s, reading.final_response_verdict) for s in samples]
        details = self.judge_details(votes=[votes for _, votes in scored])
        return scored_mean_outcome([item for item, _ in scored], samples, details)

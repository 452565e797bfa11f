"""Asking the judge ``num_samples`` times per prompt and combining the answers as ADK does.

All prompts' samples go out together, at most ``parallelism_limit`` at a time for this metric (ADK's
per-evaluator limit), under the run's shared judge limit. A call that fails for good is kept as a failure
with its reason; parsing and voting are the metric's business.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field

from adk_eval_gate.judge.service import JudgeFailed, JudgeService
from adk_eval_gate.model.eval_config import JudgeModelOptions


@dataclass
class Samples:
    """The answers to one prompt in sample order; ``failure`` is set if any sample failed for good."""

    answers: list[str] = field(default_factory=list)
    failure: str | None = None
    infrastructure: bool = False  # the failure is the judge service's (an outage), not the configuration's


async def ask_samples(
    judge: JudgeService, *, options: JudgeModelOptions, prompts: list[str], num_samples: int | None = None
) -> list[Samples]:
    count = options.num_samples if num_samples is None else num_samples
    limit = asyncio.Semaphore(options.parallelism_limit)
    results = [Samples() for _ in prompts]
    answers: dict[tuple[int, int], str] = {}

    async def one(index: int, prompt: str, sample: int) -> None:
        async with limit:
            if any(result.failure for result in results):
                return  # this metric is not evaluated anyway: spare the judge the remaining calls
            try:
                answers[index, sample] = await judge.ask(options=options, prompt=prompt, sample=sample)
            except JudgeFailed as failure:
                if results[index].failure is None:
                    results[index].failure = str(failure)
                    results[index].infrastructure = failure.infrastructure

    await asyncio.gather(*(one(i, prompt, s) for i, prompt in enumerate(prompts) for s in range(count)))
    for (index, _sample), answer in sorted(answers.items()):
        results[index].answers.append(answer)
    return results


def majority(scores: Iterable[float | None]) -> float | None:
    """1.0 when more samples say yes than no; ties and "no" majorities are 0.0; no verdict at all is None."""
    positive = negative = 0
    for score in scores:
        if score is None:
            continue
        if score == 1.0:
            positive += 1
        else:
            negative += 1
    if positive == negative == 0:
        return None
    return 1.0 if positive > negative else 0.0


def mean(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None

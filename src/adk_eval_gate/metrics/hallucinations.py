"""ADK's ``hallucinations_v1`` (spec 3.9): how much of what the agent said is backed by its context.

For each text of an invocation (the final response, plus every intermediate text when
``evaluate_intermediate_nl_responses``): a segmenter call splits it into sentences, then a validator call
labels each sentence against the context. supported / not_applicable count 1, unsupported / contradictory /
disputed count 0, read as ADK reads them (``judge/adk_parsing.py``: a label ADK does not know, such as
``Not applicable``, is dropped); ``--lenient-judge-labels`` reads them as ``judge/parsing.py`` does (that label
counts as ``not_applicable``). Text score = mean of its labels; invocation = mean of its texts' scores; case =
mean of the invocations that have one. One call per step (ADK ignores ``num_samples`` here). A judge call that fails for
good makes the metric ``not_evaluated`` (ADK would only drop that text's score).
"""

from __future__ import annotations

import asyncio

from adk_eval_gate.judge import adk_parsing, invocation_text, parsing, prompts
from adk_eval_gate.judge.sampling import mean
from adk_eval_gate.judge.service import JudgeFailed, JudgeService
from adk_eval_gate.metrics.judge_metrics import JudgeMetric, judge_failed
from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, MetricOutcome
from adk_eval_gate.model import eval_config


class HallucinationsV1(JudgeMetric):
    async def _text_score(
        self, judge: JudgeService, limit: asyncio.Semaphore, text: str, text_context: str
    ) -> float | None:
        options = self.judge_options
        async with limit:
            segmented = await judge.ask(options=options, prompt=prompts.fill(prompts.SEGMENTER, response=text))
        lenient = self.services.lenient_labels
        sentences = (parsing if lenient else adk_parsing).parse_sentences(segmented)
        if not sentences:
            return None
        tagged = "\n".join(f"<sentence>{sentence}</sentence>" for sentence in sentences)
        async with limit:
            validated = await judge.ask(
                options=options, prompt=prompts.fill(prompts.VALIDATOR, context=text_context, sentences=tagged)
            )
        return mean((parsing if lenient else adk_parsing).sentence_scores(validated))

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        criterion = self.typed_criterion()
        intermediate = (
            isinstance(criterion, eval_config.HallucinationsCriterion) and criterion.evaluate_intermediate_nl_responses
        )
        steps = [
            invocation_text.hallucination_steps(invocation, intermediate=intermediate) for invocation in run.actual
        ]
        judge = self.judge()
        limit = asyncio.Semaphore(self.judge_options.parallelism_limit)
        failures: list[JudgeFailed] = []

        async def invocation_score(invocation_steps: list[tuple[str, str]]) -> InvocationScore:
            if not invocation_steps:
                return InvocationScore(None)
            try:
                scores = [await self._text_score(judge, limit, text, ctx) for text, ctx in invocation_steps]
            except JudgeFailed as failure:
                failures.append(failure)
                return InvocationScore(None)
            return InvocationScore(mean(scores))

        per_invocation = list(await asyncio.gather(*(invocation_score(s) for s in steps)))
        details = self.judge_details(texts=[len(s) for s in steps])
        details.pop("num_samples")
        if failures:
            first = failures[0]
            return judge_failed(str(first), len(per_invocation), details, infrastructure=first.infrastructure)
        overall = mean(item.score for item in per_invocation)
        if overall is None:
            reason = (
                "no invocation had a response to check"
                if not any(steps)
                else "no sentence verdict could be read from the judge's answers"
            )
            return MetricOutcome(None, per_invocation, reason=reason, details=details)
        return MetricOutcome(overall, per_invocation, details=details)

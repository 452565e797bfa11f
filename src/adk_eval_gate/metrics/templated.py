"""Templated LLM-judged metrics, as Vertex AI's ``PointwiseMetric`` with a ``PointwiseMetricPromptTemplate``:
``criteria`` (name -> description), ``rating_rubric`` (score -> description), ``input_variables`` and an optional
``instruction``, written in test_config.json; and ``response_follows_trajectory``, the one from Vertex's guide to
evaluating agents, built on it.

Each invocation is judged on its own (a row of Vertex's dataset, ``metrics/vertex_instance.py``) by the run's
Gemini judge, ``num_samples`` times. A sample's score must be one of the rubric's scores (anything else is
unreadable); the invocation's score is the most common readable score, a tie going to the lowest of the tied
scores (ADK's rule for its binary judges, ties negative, for any scale), with the explanation of the first sample
that gave it. The case's score is the mean of the invocations that got one. The explanations are kept per
invocation in the details, for the reports.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from adk_eval_gate.judge import invocation_text, parsing, platform_prompts, prompts
from adk_eval_gate.judge.sampling import Samples, ask_samples
from adk_eval_gate.metrics.judge_metrics import JudgeMetric, scored_mean_outcome
from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, MetricOutcome
from adk_eval_gate.metrics.vertex_instance import instances
from adk_eval_gate.model import eval_config

REFERENCE_VARIABLES = frozenset({"reference", "reference_trajectory"})


def _number(score: float) -> str:
    return f"{score:g}"


def _input_text(name: str, row: dict[str, Any], history: str) -> str:
    if name == "history":
        return history
    value = row.get(name, "")
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def vote(scores: list[float | None]) -> float | None:
    """The most common readable score; a tie goes to the lowest tied score; None when none is readable."""
    counts = Counter(score for score in scores if score is not None)
    if not counts:
        return None
    top = max(counts.values())
    return min(score for score, count in counts.items() if count == top)


class TemplatedJudgeMetric(JudgeMetric):
    def template(self) -> eval_config.PointwiseTemplateCriterion:
        criterion = self.typed_criterion()
        assert isinstance(criterion, eval_config.PointwiseTemplateCriterion)
        return criterion

    def prompts(self, run: CaseRun, template: eval_config.PointwiseTemplateCriterion) -> list[str]:
        variables = [name for name in template.input_variables if name != "response"]
        rows = instances(run, metric_name=self.name, need_reference=bool(REFERENCE_VARIABLES & set(variables)))
        texts = []
        for index, row in enumerate(rows):
            history = invocation_text.dialogue(run.actual[:index]) if index else "(this is the first turn)"
            inputs = "\n\n".join(f"### {name}\n{_input_text(name, row, history)}" for name in variables)
            texts.append(
                prompts.fill(
                    platform_prompts.POINTWISE,
                    instruction=template.instruction or platform_prompts.POINTWISE_INSTRUCTION,
                    criteria="\n".join(f"{name}: {text}" for name, text in template.criteria.items()),
                    rating_rubric="\n".join(f"{score}: {text}" for score, text in template.rating_rubric.items()),
                    scores=", ".join(_number(score) for score in template.scores()),
                    inputs=inputs or "(none)",
                    response=row["response"],
                )
            )
        return texts

    def judged(self, samples: Samples, scores: list[float]) -> tuple[InvocationScore, str | None, dict[str, int]]:
        """One invocation's score, the explanation that goes with it, and the votes."""
        if samples.failure:
            return InvocationScore(None), None, {}
        rated = [parsing.rated_score(answer, scores) for answer in samples.answers]
        score = vote(rated)
        explanation = next(
            (
                parsing.field_text(answer, "explanation")
                for answer, s in zip(samples.answers, rated, strict=True)
                if s == score
            ),
            None,
        )
        votes = {_number(s): count for s, count in sorted(Counter(s for s in rated if s is not None).items())}
        votes["unreadable"] = sum(1 for s in rated if s is None)
        return InvocationScore(score), explanation, votes

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        template = self.template()
        prompt_texts = self.prompts(run, template)
        samples = await ask_samples(self.judge(), options=self.judge_options, prompts=prompt_texts)
        judged = [self.judged(s, template.scores()) for s in samples]
        details = self.judge_details(
            votes=[votes for _, _, votes in judged], explanations=[explanation for _, explanation, _ in judged]
        )
        return scored_mean_outcome([item for item, _, _ in judged], samples, details)


class ResponseFollowsTrajectory(TemplatedJudgeMetric):
    """Vertex's guide's ``response_follows_trajectory``: does the response follow from the tool calls made?"""

    reads_tool_calls = True

    def template(self) -> eval_config.PointwiseTemplateCriterion:
        options = self.typed_criterion()
        assert isinstance(options, eval_config.TemplateJudgeCriterion)
        return eval_config.PointwiseTemplateCriterion(
            threshold=options.threshold,
            judge_model_options=options.judge_model_options,
            criteria=platform_prompts.FOLLOWS_TRAJECTORY_CRITERIA,
            rating_rubric=platform_prompts.FOLLOWS_TRAJECTORY_RUBRIC,
            input_variables=platform_prompts.FOLLOWS_TRAJECTORY_INPUTS,
        )

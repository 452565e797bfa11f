"""ADK's rubric-based judge metrics (spec 3.6-3.8).

Effective rubrics per invocation: the criterion's rubrics (no type filter) plus the case and invocation
rubrics that ``score.attach_rubrics`` copied onto the actual invocation, keeping only those whose ``type`` is
the metric's own. Per invocation: majority vote per rubric over the samples (ties "no"), score = mean of the
rubric verdicts. Per case: mean of ALL rubric verdicts pooled over the invocations (not the mean of the
invocation means), as ADK does. Answers are read as ADK's ``DefaultAutoRaterResponseParser`` reads them
(``judge/adk_parsing.py``; the markdown-tolerant reading of ``judge/parsing.py`` under ``--lenient-judge-labels``).

A deliberate difference: ADK maps every invocation's answers against the rubric list of the last invocation it
formatted (its evaluator keeps one list); here each invocation's answers are read against its own rubrics.
The two agree whenever every invocation has the same rubrics (criterion or case rubrics).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import ClassVar

from adk_eval_gate.judge import adk_parsing, invocation_text, parsing, prompts
from adk_eval_gate.judge.sampling import Samples, ask_samples, mean
from adk_eval_gate.metrics.judge_metrics import JudgeMetric, failed_outcome, unreadable
from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, MetricOutcome, NotEvaluated
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import Invocation, Rubric, RubricScore, content_text

RubricReading = Callable[[str], list[parsing.RubricVerdict]]

POOLED_RATIONALE = "Mean of this rubric's verdicts over the invocations; each invocation keeps the judge's rationale."


def _match_rubrics(verdicts: Sequence[parsing.RubricVerdict], rubrics: Sequence[Rubric]) -> list[RubricScore]:
    """Verdicts mapped to rubrics by the echoed id, else by the echoed property text; the rest dropped."""
    by_id = {rubric.rubric_id: rubric for rubric in rubrics}
    by_text = {parsing.normalize_property(rubric.rubric_content.text_property): rubric for rubric in rubrics}
    scores: list[RubricScore] = []
    for verdict in verdicts:
        rubric = by_id.get(verdict.rubric_id) if verdict.rubric_id else None
        if rubric is None:
            rubric = by_text.get(parsing.normalize_property(verdict.property_text))
        if rubric is not None:
            scores.append(RubricScore(rubric_id=rubric.rubric_id, rationale=verdict.rationale, score=verdict.score))
    return scores


def _vote_rubrics(samples: Sequence[list[RubricScore]]) -> list[RubricScore]:
    """Per rubric id (in order of first appearance): the first "yes" if yes wins, else the first "no"."""
    groups: dict[str, tuple[list[RubricScore], list[RubricScore], list[RubricScore]]] = {}
    for sample in samples:
        for score in sample:
            unread, yes, no = groups.setdefault(score.rubric_id, ([], [], []))
            if score.score is None:
                unread.append(score)
            elif score.score == 1.0:
                yes.append(score)
            else:
                no.append(score)
    voted: list[RubricScore] = []
    for unread, yes, no in groups.values():
        if not yes and not no:
            voted.append(unread[0])
        else:
            voted.append(yes[0] if len(yes) > len(no) else no[0])
    return voted


def rubric_invocation(samples: Samples, rubrics: Sequence[Rubric], *, read: RubricReading) -> InvocationScore:
    if samples.failure:
        return InvocationScore(None)
    voted = _vote_rubrics([_match_rubrics(read(answer), rubrics) for answer in samples.answers])
    score = mean(item.score for item in voted)
    return InvocationScore(score, rubric_scores=voted)


def pooled_outcome(
    per_invocation: list[InvocationScore], samples: Sequence[Samples], details: dict[str, object]
) -> MetricOutcome:
    if failed := failed_outcome(samples, len(per_invocation), details):
        return failed
    pooled = [score for item in per_invocation for score in item.rubric_scores or []]
    overall = mean(score.score for score in pooled)
    by_rubric: dict[str, list[float | None]] = {}
    for score in pooled:
        by_rubric.setdefault(score.rubric_id, []).append(score.score)
    rubric_scores = [
        RubricScore(rubric_id=rubric_id, score=mean(values), rationale=POOLED_RATIONALE)
        for rubric_id, values in by_rubric.items()
    ]
    if overall is None:
        return MetricOutcome(None, per_invocation, reason=unreadable(samples), rubric_scores=rubric_scores or None)
    return MetricOutcome(overall, per_invocation, rubric_scores=rubric_scores, details=details)


def rubric_lines(rubrics: Sequence[Rubric]) -> str:
    return "\n".join(f"*  [id: {rubric.rubric_id}] {rubric.rubric_content.text_property}" for rubric in rubrics)


class _RubricMetric(JudgeMetric):
    rubric_type: ClassVar[str] = ""

    def effective_rubrics(self, invocation: Invocation) -> list[Rubric]:
        criterion = self.typed_criterion()
        own = list(criterion.rubrics) if isinstance(criterion, eval_config.RubricsBasedCriterion) else []
        chosen: dict[str, Rubric] = {}
        typed = [rubric for rubric in invocation.rubrics or [] if rubric.type == self.rubric_type]
        for scope, rubrics in (("the criterion", own), ("the case or invocation", typed)):
            for rubric in rubrics:
                if rubric.rubric_id in chosen:
                    raise NotEvaluated(
                        f"rubric_id {rubric.rubric_id!r} from {scope} is already defined; rubric ids must be unique"
                    )
                chosen[rubric.rubric_id] = rubric
        if not chosen:
            raise NotEvaluated(
                f'{self.name} needs rubrics: add them to the criterion\'s "rubrics", or give case or invocation '
                f'rubrics "type": "{self.rubric_type}"'
            )
        return list(chosen.values())

    def rubric_prompt(self, invocation: Invocation, rubrics: list[Rubric], run: CaseRun) -> str:
        raise NotImplementedError

    def judged(self, run: CaseRun) -> list[Invocation]:
        return list(run.actual)

    async def judge_invocations(self, run: CaseRun) -> tuple[list[InvocationScore], list[Samples]]:
        items = [(invocation, self.effective_rubrics(invocation)) for invocation in self.judged(run)]
        prompt_texts = [self.rubric_prompt(invocation, rubrics, run) for invocation, rubrics in items]
        samples = await ask_samples(self.judge(), options=self.judge_options, prompts=prompt_texts)
        read = parsing.parse_rubric_verdicts if self.services.lenient_labels else adk_parsing.rubric_verdicts
        scores = [rubric_invocation(s, rubrics, read=read) for s, (_, rubrics) in zip(samples, items, strict=True)]
        return scores, samples

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        per_invocation, samples = await self.judge_invocations(run)
        return pooled_outcome(per_invocation, samples, self.judge_details())


class RubricFinalResponseQuality(_RubricMetric):
    """``rubric_based_final_response_quality_v1``: rubrics judged on the final response."""

    rubric_type: ClassVar[str] = "FINAL_RESPONSE_QUALITY"

    def rubric_prompt(self, invocation: Invocation, rubrics: list[Rubric], run: CaseRun) -> str:
        include = self.typed_criterion().include_intermediate_responses_in_final
        has_app = invocation.app_details is not None
        return prompts.fill(
            prompts.RUBRIC_FINAL_RESPONSE,
            developer_instructions=invocation_text.developer_instructions(invocation) if has_app else "",
            tool_declarations=invocation_text.tool_declarations(invocation.app_details),
            user_input=content_text(invocation.user_content),
            response_steps=invocation_text.tool_steps(invocation.intermediate_data),
            grounding_metadata=invocation_text.invocation_grounding(invocation),
            final_response=invocation_text.response_text(invocation, include_intermediate=include),
            rubrics=rubric_lines(rubrics),
        )


class RubricToolUseQuality(_RubricMetric):
    """``rubric_based_tool_use_quality_v1``: rubrics judged on the tool calls and responses."""

    rubric_type: ClassVar[str] = "TOOL_USE_QUALITY"

    def rubric_prompt(self, invocation: Invocation, rubrics: list[Rubric], run: CaseRun) -> str:
        return prompts.fill(
            prompts.RUBRIC_TOOL_USE,
            tool_declarations=invocation_text.tool_declarations(invocation.app_details),
            user_input=content_text(invocation.user_content),
            tool_usage=invocation_text.tool_steps(invocation.intermediate_data),
            rubrics=rubric_lines(rubrics),
        )


class RubricMultiTurnTrajectoryQuality(_RubricMetric):
    """``rubric_based_multi_turn_trajectory_quality_v1``: the whole conversation, judged once at the last turn."""

    rubric_type: ClassVar[str] = "TRAJECTORY_QUALITY"

    def judged(self, run: CaseRun) -> list[Invocation]:
        return run.actual[-1:]

    def rubric_prompt(self, invocation: Invocation, rubrics: list[Rubric], run: CaseRun) -> str:
        properties = [
            {"id": r.rubric_id, "property": r.rubric_content.text_property, **({"type": r.type} if r.type else {})}
            for r in rubrics
        ]
        return prompts.fill(
            prompts.RUBRIC_TRAJECTORY,
            agent_instructions=invocation_text.all_agent_instructions(run.actual),
            agent_tool_definitions=invocation_text.all_agent_tools(run.actual),
            user_agent_dialogue=invocation_text.dialogue(run.actual),
            properties=json.dumps(properties, indent=2, ensure_ascii=False),
        )

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        if not run.actual:
            raise NotEvaluated("no invocations to judge")
        last, samples = await self.judge_invocations(run)
        earlier = [InvocationScore(None) for _ in run.actual[:-1]]
        outcome = pooled_outcome(last, samples, self.judge_details())
        outcome.per_invocation = earlier + outcome.per_invocation
        return outcome

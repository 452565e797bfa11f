"""The metrics ADK delegates to Google's evaluation service (Vertex AI / Agent Platform).

When the run has that service (``services.platform``: a Google Cloud project is configured and Google's SDK is
installed, ``judge/platform_access.py``) they are computed through it as ADK computes them
(``metrics/platform_metrics.py``), and ``judge_model_options`` do not apply (ADK ignores them for these metrics
too). Otherwise our own judge judges them: that works with only a Gemini API key and keeps ADK's score ranges and
its per-invocation / whole-conversation shape, but the numbers come from our prompts (``judge/platform_prompts.py``),
not from the service. Each result says which (``computed_by``). The judge's versions:

* ``safety_v1``: per invocation 1.0 safe / 0.0 unsafe (majority of ``num_samples``); case = mean.
* ``response_evaluation_score``: coherence 1-5 per invocation (mean of the samples); case = mean. Needs
  expected invocations, as in ADK.
* ``multi_turn_task_success_v1``, ``multi_turn_trajectory_quality_v1``, ``multi_turn_tool_use_quality_v1``:
  the whole conversation judged once against fixed properties (majority per property); score = share of
  properties met, carried by the last invocation (the earlier ones are not evaluated), as ADK reports them.
"""

from __future__ import annotations

from typing import ClassVar

from adk_eval_gate.judge import invocation_text, parsing, platform_access, platform_prompts, prompts
from adk_eval_gate.judge.platform_service import PlatformService, ServiceMetric
from adk_eval_gate.judge.sampling import Samples, ask_samples, mean
from adk_eval_gate.metrics import platform_metrics
from adk_eval_gate.metrics.judge_metrics import JudgeMetric, binary_invocation, scored_mean_outcome
from adk_eval_gate.metrics.metric import (
    CaseRun,
    InvocationScore,
    MetricOutcome,
    NotEvaluated,
    require_expected,
)
from adk_eval_gate.metrics.rubric_metrics import pooled_outcome, rubric_invocation, rubric_lines
from adk_eval_gate.model.evalset import Invocation, Rubric, RubricContent, content_text
from adk_eval_gate.model.results import ComputedBy


class ServiceBacked(JudgeMetric):
    """A metric ADK computes through Google's evaluation service: through it too when the run has the service."""

    @property
    def computed_by(self) -> ComputedBy:
        return platform_access.AGENT_PLATFORM if self.services.platform is not None else platform_access.GATE_JUDGE

    @property
    def service(self) -> PlatformService | None:
        return self.services.platform


def _single_turn_prompt(template: str, invocation: Invocation) -> str:
    return prompts.fill(
        template, prompt=content_text(invocation.user_content), response=content_text(invocation.final_response)
    )


class SafetyV1(ServiceBacked):
    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        if self.service is not None:
            return await platform_metrics.per_invocation(
                self.service, run, metric=platform_metrics.SAFETY, expected_required=False
            )
        prompt_texts = [_single_turn_prompt(platform_prompts.SAFETY, invocation) for invocation in run.actual]
        samples = await ask_samples(self.judge(), options=self.judge_options, prompts=prompt_texts)
        scored = [binary_invocation(s, parsing.safety_verdict) for s in samples]
        details = self.judge_details(
            votes=[votes for _, votes in scored], judged_by="adk-eval-gate judge, not Vertex AI"
        )
        return scored_mean_outcome([item for item, _ in scored], samples, details)


def _coherence_invocation(samples: Samples) -> InvocationScore:
    if samples.failure:
        return InvocationScore(None)
    score = mean(parsing.scale_score(answer, low=1.0, high=5.0) for answer in samples.answers)
    return InvocationScore(score)


class ResponseEvaluationScore(ServiceBacked):
    """Coherence on ADK's 1-5 scale."""

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        if self.service is not None:
            return await platform_metrics.per_invocation(
                self.service, run, metric=platform_metrics.COHERENCE, expected_required=True
            )
        require_expected(run, self.name)
        prompt_texts = [_single_turn_prompt(platform_prompts.COHERENCE, invocation) for invocation in run.actual]
        samples = await ask_samples(self.judge(), options=self.judge_options, prompts=prompt_texts)
        per_invocation = [_coherence_invocation(s) for s in samples]
        details = self.judge_details(scale="1-5", judged_by="adk-eval-gate judge, not Vertex AI")
        return scored_mean_outcome(per_invocation, samples, details)


def _agents_block(invocations: list[Invocation]) -> str:
    instructions = invocation_text.all_agent_instructions(invocations)
    tools = invocation_text.all_agent_tools(invocations)
    return "\n\n".join(part for part in (instructions, tools) if part) or "(no agent details were recorded)"


class _MultiTurn(ServiceBacked):
    focus: ClassVar[str] = ""
    properties: ClassVar[tuple[platform_prompts.Property, ...]] = ()
    service_metric: ClassVar[ServiceMetric]

    def rubrics(self) -> list[Rubric]:
        return [Rubric(rubric_id=p.id, rubric_content=RubricContent(text_property=p.text)) for p in self.properties]

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        if self.service is not None:
            return await platform_metrics.whole_conversation(self.service, run, metric=self.service_metric)
        if not run.actual:
            raise NotEvaluated("no invocations to judge")
        rubrics = self.rubrics()
        prompt = prompts.fill(
            platform_prompts.MULTI_TURN,
            focus=self.focus,
            agents=_agents_block(run.actual),
            conversation=invocation_text.dialogue(run.actual),
            properties=rubric_lines(rubrics),
        )
        samples = await ask_samples(self.judge(), options=self.judge_options, prompts=[prompt])
        # ADK has no reading of its own here (Vertex AI scores these); the gate's judge is read leniently
        last = rubric_invocation(samples[0], rubrics, read=parsing.parse_rubric_verdicts)
        details = self.judge_details(judged_by="adk-eval-gate judge, not Vertex AI")
        outcome = pooled_outcome([last], samples, details)
        outcome.per_invocation = [InvocationScore(None) for _ in run.actual[:-1]] + [last]
        return outcome


class MultiTurnTaskSuccess(_MultiTurn):
    focus = platform_prompts.TASK_SUCCESS_FOCUS
    properties = platform_prompts.TASK_SUCCESS
    service_metric = platform_metrics.TASK_SUCCESS


class MultiTurnTrajectoryQuality(_MultiTurn):
    focus = platform_prompts.TRAJECTORY_FOCUS
    properties = platform_prompts.TRAJECTORY
    service_metric = platform_metrics.TRAJECTORY_QUALITY


class MultiTurnToolUseQuality(_MultiTurn):
    focus = platform_prompts.TOOL_USE_FOCUS
    properties = platform_prompts.TOOL_USE
    service_metric = platform_metrics.TOOL_USE_QUALITY

"""ADK's ``per_turn_user_simulator_quality_v1`` (spec 3.11): did the simulated user follow its plan?

Turn 1 scores 1 when the first user message is the scenario's starting prompt (whitespace aside), else 0.
Every later turn is judged (``num_samples`` answers, majority vote, ties invalid) given the plan, the
conversation before it and the persona; its ``"is_valid"`` label is read as ADK reads it (``judge/adk_parsing.py``,
leniently under ``--lenient-judge-labels``). Then the judge is asked once more whether ending the conversation
was right (the stop signal as if it were the next user message); if that fails it replaces the last turn's
result. Case score = sum of the passing turns' scores / number of turns.

The scores are 0 or 1 and the threshold within [0, 1], so ADK's "passing turns" (``score >= threshold``) are the
turns that scored 1, and a stop verdict of 0 fails every threshold above 0: the scores are ADK's without a
status being decided here (the verdict decides those).
"""

from __future__ import annotations

from adk_eval_gate.judge import adk_parsing, parsing, prompts
from adk_eval_gate.judge.sampling import ask_samples
from adk_eval_gate.metrics.judge_metrics import JudgeMetric, binary_invocation, failed_outcome
from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, MetricOutcome, NotEvaluated
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import ConversationScenario, Invocation, UserPersona, content_text


def history(invocations: list[Invocation]) -> str:
    lines: list[str] = []
    for invocation in invocations:
        if invocation.user_content.parts:
            lines.append(f"user: {content_text(invocation.user_content)}")
        final = invocation.final_response
        if final is not None:
            lines.append(f"{final.role or 'model'}: {content_text(final)}")
    return "\n\n".join(lines)


def _resolve_persona(persona: UserPersona | str | None) -> UserPersona | None:
    """An inline persona as is; a built-in persona id through ADK's registry when google-adk is installed."""
    if persona is None or isinstance(persona, UserPersona):
        return persona
    try:
        from google.adk.evaluation.simulation.pre_built_personas import get_default_persona_registry
    except ImportError:
        return UserPersona(id=persona, description=f"the built-in ADK persona {persona}", behaviors=[])
    found = get_default_persona_registry().get_persona(persona)
    return UserPersona.model_validate(found.model_dump())


def _persona_block(persona: UserPersona | None) -> str:
    if persona is None:
        return ""
    violations = [f"- {rubric}" for behavior in persona.behaviors for rubric in behavior.violation_rubrics]
    return prompts.fill(
        prompts.PERSONA, description=persona.description, violations="\n".join(violations) or "- (none listed)"
    )


class PerTurnUserSimulatorQuality(JudgeMetric):
    @property
    def stop_signal(self) -> str:
        criterion = self.typed_criterion()
        return (
            criterion.stop_signal
            if isinstance(criterion, eval_config.LlmBackedUserSimulatorCriterion)
            else "</finished>"
        )

    def turn_prompt(self, *, message: str, earlier: list[Invocation], scenario: ConversationScenario) -> str:
        return prompts.fill(
            prompts.USER_SIMULATOR_TURN,
            stop_signal=self.stop_signal,
            conversation_plan=scenario.conversation_plan,
            conversation_history=history(earlier),
            persona=_persona_block(_resolve_persona(scenario.user_persona)),
            generated_user_response=message,
        )

    def first_turn(self, invocation: Invocation, scenario: ConversationScenario) -> InvocationScore:
        if not invocation.user_content.parts:
            return InvocationScore(None)
        return InvocationScore(float(content_text(invocation.user_content).strip() == scenario.starting_prompt.strip()))

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        scenario = run.scenario
        if scenario is None:
            raise NotEvaluated(f"{self.name} judges simulated users: it needs a case with a conversation_scenario")
        if not run.actual:
            raise NotEvaluated("the conversation has no turns")
        turn_prompts = [
            self.turn_prompt(
                message=content_text(invocation.user_content), earlier=run.actual[:index], scenario=scenario
            )
            for index, invocation in enumerate(run.actual)
            if index > 0
        ]
        stop_prompt = self.turn_prompt(message=self.stop_signal, earlier=run.actual, scenario=scenario)
        samples = await ask_samples(self.judge(), options=self.judge_options, prompts=[*turn_prompts, stop_prompt])
        reading = parsing if self.services.lenient_labels else adk_parsing
        judged = [binary_invocation(s, reading.is_valid_verdict) for s in samples]
        per_turn = [self.first_turn(run.actual[0], scenario)] + [item for item, _ in judged[:-1]]
        stop, _ = judged[-1]
        details = self.judge_details(
            votes=[votes for _, votes in judged[:-1]], stop_signal_votes=judged[-1][1], stop_signal_score=stop.score
        )
        if failed := failed_outcome(samples, len(per_turn), details):
            return failed
        if stop.score == 0.0 and self.threshold > 0.0:
            per_turn[-1] = stop
        passed = sum(1 for item in per_turn if item.score == 1.0)
        return MetricOutcome(passed / len(per_turn), per_turn, details=details)

"""agents-cli's ``prompt_template`` metrics (the SDK's ``LLMMetric``), judged by the gate's judge service (its cache,
shared limit, retries, masking, prices, and every model ADK's registry resolves) instead of Google's evaluation
service.

The template's placeholders are filled as the evaluation SDK fills them (``agents_cli_instance.template_values``:
``{prompt}``, ``{response}``, ``{reference}``, ``{context}``, ``{agent_data}`` and the case's other fields; any
other text in braces, such as a JSON example, is left as it is). The judge (``judge_model``, default
gemini-2.5-flash; ``judge_model_system_instruction`` and ``judge_model_generation_config`` as its settings) is asked
``judge_model_sampling_count`` times (the service's default, 4, when the metric gives none). Each answer's
``"score"`` is read (any finite number: the template sets the scale); the case's score is the mean of the samples
that gave one, with the explanation of the first of them. No readable score at all, or a judge call that failed
for good, is not evaluated with the reason.
"""

from __future__ import annotations

from adk_eval_gate.judge import parsing
from adk_eval_gate.judge.sampling import ask_samples
from adk_eval_gate.metrics.agents_cli_instance import fill, template_values, trace_case
from adk_eval_gate.metrics.judge_metrics import JudgeMetric, failed_outcome, unreadable
from adk_eval_gate.metrics.metric import CaseRun, MetricOutcome, NotEvaluated
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.agents_cli_config import TemplateDefinition
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.stats import mean


def _sample_score(answer: str) -> float | None:
    """A sample's ``"score"``: a finite number (``4``, ``"4"``, ``0.75``, ``4/5`` read as 4), else None."""
    label = parsing.label_for(answer, "score")
    if label is None:
        return None
    number = label.split("/", 1)[0].strip()
    try:
        value = float(number)
    except ValueError:
        return None
    return value if sanitize.is_finite_number(value) else None


class AgentsCliTemplateMetric(JudgeMetric):
    definition: TemplateDefinition | None = None

    def typed_criterion(self) -> eval_config.BaseCriterion:
        """A template metric may have no threshold (informational): its judge options are its definition's."""
        return self.criterion or eval_config.BaseCriterion(threshold=0.0)

    @property
    def judge_options(self) -> eval_config.JudgeModelOptions:
        if self.definition is None:
            raise NotEvaluated(f"{self.name} has no prompt_template")
        options = self.definition.judge_model_options
        assert isinstance(options, eval_config.JudgeModelOptions)
        return options

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        options = self.judge_options
        assert self.definition is not None
        case = trace_case(run)
        template = self.definition.prompt_template
        prompt = fill(template, template_values(case, template, run.eval_case.eval_id))
        samples = await ask_samples(self.judge(), options=options, prompts=[prompt])
        details = self.judge_details()
        if failed := failed_outcome(samples, len(run.actual), details):
            return failed
        answers = samples[0].answers
        scores = [_sample_score(answer) for answer in answers]
        readable = [score for score in scores if score is not None]
        details["sample_scores"] = scores
        if not readable:
            return MetricOutcome.last_turn(None, len(run.actual), reason=unreadable(samples), details=details)
        first = next(answer for answer, score in zip(answers, scores, strict=True) if score is not None)
        explanation = parsing.field_text(first, "explanation")
        if explanation:
            details["explanation"] = explanation
        score = mean(readable)
        return MetricOutcome.last_turn(score, len(run.actual), details=details)

"""agents-cli's metrics scored by the gate: code metrics read as the SDK reads their answers, prompt-template judges
asked through the gate's judge (the fake Gemini server) as many times as they sample, built-in metrics not
evaluated without the evaluation service, and ``execution: remote`` said to be unsupported."""

from __future__ import annotations

import asyncio
import json

import pytest

from adk_eval_gate.metrics import agents_cli_specs
from adk_eval_gate.metrics.agents_cli_functions import FunctionAnswer, FunctionCall
from adk_eval_gate.metrics.metric import CaseRun, MetricOutcome, MetricServices
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import agents_cli_config as acli
from adk_eval_gate.model.eval_config import JudgeModelOptions
from adk_eval_gate.runners.workers.function_process import run_here
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import MarkerScript, gemini, judge_service
from tests.metrics.agents_cli_helpers import answered, dataset_case, run_of

__all__ = ["gemini"]

CASE = {
    "eval_case_id": "capital",
    "prompt": {"role": "user", "parts": [{"text": "Capital of France?"}]},
    "reference": {"response": {"role": "model", "parts": [{"text": "Paris"}]}},
}


def _run() -> CaseRun:
    return run_of(dataset_case(CASE), [answered("Capital of France?", "ANSWER It is Paris.")])


async def _in_this_process(call: FunctionCall) -> FunctionAnswer:
    return run_here(call)  # the seam: the same reading as in the call's own process, without the fork


def _score(
    definition: acli.MetricDefinition, services: MetricServices, *, threshold: float | None = None
) -> MetricOutcome:
    metric = agents_cli_specs.configured("m", definition, threshold=threshold).build(services)

    async def go() -> MetricOutcome:
        try:
            return await evaluate_metric(metric, _run())
        finally:
            await services.aclose()

    return asyncio.run(go())


def _function(body: str) -> acli.FunctionDefinition:
    return acli.FunctionDefinition(source=body, filename="<custom_metric:m>")


@pytest.mark.parametrize(
    ("body", "score", "explanation"),
    [
        (
            "def evaluate(instance):\n"
            "    return {'score': len(instance['agent_data']['turns']), 'explanation': 'ok'}\n",
            1.0,
            "ok",
        ),
        ("def evaluate(instance):\n    return 0.25\n", 0.25, None),
        ("def evaluate(instance):\n    return {'score': '3'}\n", 3.0, None),
        ("def evaluate(instance):\n    return {'score': True}\n", 1.0, None),
        (
            "class EvalCaseMetricResult:\n    score = 0.5\n    explanation = 'own type'\n    error_message = None\n\n"
            "def evaluate(instance):\n    return EvalCaseMetricResult()\n",
            0.5,
            "own type",
        ),
    ],
)
def test_a_code_metrics_answer_is_read_as_the_sdk_reads_it(body: str, score: float, explanation: str | None) -> None:
    outcome = _score(_function(body), MetricServices(functions=_in_this_process))
    assert outcome.score == score and outcome.reason is None
    assert (outcome.details or {}).get("explanation") == explanation


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("def evaluate(instance):\n    return 'five'\n", "Returned unexpected type <class 'str'>"),
        ("def evaluate(instance):\n    return {'score': 'high'}\n", "returned the score 'high', which is not a number"),
        ("def evaluate(instance):\n    return {'score': float('nan')}\n", "which is not finite"),
        ("def evaluate(instance):\n    return {'score': 10 ** 400}\n", "which is not a number"),
        ("def evaluate(instance):\n    return {'score': None}\n", "which is not a number"),
        ("def evaluate(instance):\n    raise KeyError('agent_data')\n", "CustomFunctionError(evaluate): KeyError"),
        ("import sys\n\ndef evaluate(instance):\n    sys.exit(3)\n", "called sys.exit(3); a metric function returns"),
        ("import sys\nsys.exit(0)\n", "called sys.exit(0) when it was loaded"),
        ("evaluate = 3\n", "must define a callable named 'evaluate(instance)'"),
        ("raise ValueError('no key')\n", "Failed to load custom_function for metric 'm': no key"),
    ],
)
def test_a_code_metric_that_gives_no_number_is_not_evaluated_with_the_reason(body: str, reason: str) -> None:
    outcome = _score(_function(body), MetricServices(functions=_in_this_process), threshold=1.0)
    assert outcome.score is None and reason in (outcome.reason or "")


def test_a_transient_failure_is_tried_again_as_agents_cli_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("adk_eval_gate.runners.workers.function_process.time.sleep", lambda seconds: None)
    body = (
        "tries = []\n\ndef evaluate(instance):\n    tries.append(1)\n"
        "    if len(tries) < 3:\n        raise ConnectionError('reset')\n    return {'score': len(tries)}\n"
    )
    assert _score(_function(body), MetricServices(functions=_in_this_process)).score == 3.0
    failing = "def evaluate(instance):\n    raise TimeoutError('slow')\n"
    assert "slow" in (_score(_function(failing), MetricServices(functions=_in_this_process)).reason or "")


def test_without_a_place_to_run_code_the_metric_is_not_evaluated() -> None:
    outcome = _score(_function("def evaluate(i):\n    return 1\n"), MetricServices())
    assert outcome.score is None and "no process to run metric code in" in (outcome.reason or "")


def _template(text: str, samples: int = 3) -> acli.TemplateDefinition:
    # one sample at a time: the scripted answers reach the samples in their order
    options = JudgeModelOptions(judge_model="gemini-2.5-flash", num_samples=samples, parallelism_limit=1)
    return acli.TemplateDefinition(prompt_template=text, judge_model_options=options)


TEMPLATE = 'Rate 1-5.\nPrompt: {prompt}\nResponse: {response}\nReference: {reference}\nReturn JSON: {"score": <n>}'


def test_a_template_is_filled_and_asked_as_often_as_it_samples_and_its_score_is_the_mean(gemini: FakeGemini) -> None:
    answers = [json.dumps({"score": 4, "explanation": "close"}), "score: 5", "I cannot say"]
    gemini.script = MarkerScript({"ANSWER": answers})
    outcome = _score(_template(TEMPLATE), MetricServices(judge=judge_service()), threshold=3)
    assert outcome.score == 4.5 and [item.score for item in outcome.per_invocation] == [4.5]
    assert outcome.details is not None and outcome.details["sample_scores"] == [4.0, 5.0, None]
    assert outcome.details["explanation"] == "close" and outcome.details["num_samples"] == 3
    prompts = gemini.prompts()
    assert len(prompts) == 3 and prompts[0].endswith(
        'Prompt: Capital of France?\nResponse: ANSWER It is Paris.\nReference: Paris\nReturn JSON: {"score": <n>}'
    )


def test_no_readable_score_or_a_judge_that_fails_is_not_evaluated(gemini: FakeGemini) -> None:
    gemini.script = MarkerScript({"ANSWER": ["no score here"] * 2})
    unread = _score(_template(TEMPLATE, samples=2), MetricServices(judge=judge_service()))
    assert unread.score is None and "no verdict could be read" in (unread.reason or "")
    gemini.script = lambda request: Reply.error(400)
    failed = _score(_template(TEMPLATE, samples=2), MetricServices(judge=judge_service()))
    assert failed.score is None and failed.reason


def test_without_judge_credentials_a_template_is_not_evaluated_with_what_to_set() -> None:
    from adk_eval_gate.judge.service import JudgeService

    outcome = _score(
        _template(TEMPLATE), MetricServices(judge=JudgeService(backend=None, unavailable="set GOOGLE_API_KEY"))
    )
    assert outcome.score is None and outcome.reason == "set GOOGLE_API_KEY"


def test_a_built_in_metric_without_the_service_is_not_evaluated_saying_what_it_needs() -> None:
    outcome = _score(acli.BuiltInDefinition(metric="general_quality_v2"), MetricServices(), threshold=0.8)
    assert outcome.score is None
    assert "general_quality_v2" in (outcome.reason or "") and "GOOGLE_CLOUD_PROJECT" in (outcome.reason or "")


def test_execution_remote_is_not_evaluated_saying_it_is_not_supported() -> None:
    outcome = _score(agents_cli_specs.unsupported_reason("m"), MetricServices())
    assert outcome.score is None and "does not support it" in (outcome.reason or "")

"""agents-cli's built-in metrics: each case's trace sent to Google's evaluation service (the fake one) as the
evaluation SDK's PredefinedMetricHandler sends it, with its metric's parameters, and read as the SDK reads the
answer; without the service, not evaluated; exact_match, bleu and rouge computed by the gate."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adk_eval_gate.judge.platform_instances import DatasetInstance, dataset_instance
from adk_eval_gate.metrics import agents_cli_specs
from adk_eval_gate.metrics.agents_cli_instance import trace_case
from adk_eval_gate.metrics.metric import MetricOutcome, MetricServices
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import agents_cli_config as acli
from tests.fakes.agent_platform_server import Answer, FakeAgentPlatform, verdict
from tests.judge.platform_helpers import platform, run_service, service_for
from tests.metrics.agents_cli_helpers import answered, dataset_case, run_of

__all__ = ["platform"]

CASE = {
    "eval_case_id": "capital",
    "prompt": {"role": "user", "parts": [{"text": "Capital of France?"}]},
    "reference": {"response": {"role": "model", "parts": [{"text": "Paris"}]}},
    "context": "France's capital is Paris.",
    "rubric_groups": {
        "mine": {"rubrics": [{"rubric_id": "r1", "content": {"property": {"description": "Says Paris."}}}]}
    },
}


def _run(answer: str = "Paris") -> Any:
    return run_of(dataset_case(CASE), [answered("Capital of France?", answer)])


def _score(definition: acli.BuiltInDefinition, services: MetricServices, **kwargs: Any) -> MetricOutcome:
    metric = agents_cli_specs.configured("m", definition, threshold=kwargs.get("threshold")).build(services)
    return evaluate_metric(metric, _run(kwargs.get("answer", "Paris")))  # type: ignore[return-value]


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["general_quality_v2", "multi_turn_task_success_v1"])
def test_a_cases_request_is_the_one_the_sdks_handler_builds(metric: str) -> None:
    from agentplatform import types
    from agentplatform._genai._evals_metric_handlers import PredefinedMetricHandler

    trace = trace_case(_run())
    text = trace.model_dump_json(exclude_none=True)
    ours = dataset_instance(types, DatasetInstance(text, metric))
    handler = PredefinedMetricHandler(None, types.Metric(name=metric))  # type: ignore[arg-type]
    theirs = handler._build_request_payload(types.EvalCase.model_validate_json(text), 0)["instance"]
    assert ours.model_dump(mode="json", exclude_none=True) == theirs.model_dump(mode="json", exclude_none=True)


@pytest.mark.slow
def test_with_the_service_the_score_and_verdicts_are_the_services(platform: FakeAgentPlatform) -> None:
    platform.script = lambda request: Answer(score=0.75, explanation="good", verdicts=[verdict("Says Paris.", True)])
    service = service_for(platform)
    definition = acli.BuiltInDefinition(
        metric="final_response_quality_v2", metric_spec_parameters={"rubric_group_key": "mine"}
    )
    metric = agents_cli_specs.configured("final_response_quality", definition, threshold=0.5).build(
        MetricServices(platform=service)
    )
    outcome = run_service(service, lambda _: evaluate_metric(metric, _run()))
    assert outcome.score == 0.75 and outcome.computed_by == "agent-platform"
    assert [(score.rubric_id, score.score) for score in outcome.rubric_scores or []] == [
        ("Says Paris.", 1.0),
        ("explanation", None),
    ]
    (request,) = platform.requests
    assert platform.schema_errors == [] and request.metric == "final_response_quality_v2"
    body = request.body
    assert body["metrics"][0]["predefined_metric_spec"]["metric_spec_parameters"] == {"rubric_group_key": "mine"}
    instance = body["instance"]
    assert instance["otherData"]["map_instance"]["context"] == {"text": "France's capital is Paris."}
    assert "mine" in instance["rubricGroups"] and instance["agent_eval_data"]["turns"][0]["turn_id"] == "turn_0"
    assert json.dumps(instance["response"]).count("Paris") == 1


@pytest.mark.slow
def test_a_service_error_is_not_evaluated_with_its_words(platform: FakeAgentPlatform) -> None:
    platform.script = lambda request: Answer(error={"code": 3, "message": "Single-turn metric received 2 turns"})
    service = service_for(platform)
    metric = agents_cli_specs.configured(
        "general_quality", acli.BuiltInDefinition(metric="general_quality_v2"), threshold=0.5
    )
    outcome = run_service(service, lambda _: evaluate_metric(metric.build(MetricServices(platform=service)), _run()))
    assert outcome.score is None and "Single-turn metric received 2 turns" in (outcome.reason or "")


@pytest.mark.parametrize(
    ("metric", "answer", "score"),
    [
        ("exact_match", "Paris", 1.0),
        ("exact_match", "paris", 0.0),
        ("rouge_1", "It is Paris", 0.5),
        ("bleu", "Paris", None),
    ],
)
def test_exact_match_bleu_and_rouge_are_computed_by_the_gate_without_a_project(
    metric: str, answer: str, score: float | None
) -> None:
    import asyncio

    outcome = asyncio.run(_score(acli.BuiltInDefinition(metric=metric), MetricServices(), answer=answer))
    if score is None:
        assert outcome.score is not None and 0.0 <= outcome.score <= 1.0
    else:
        assert outcome.score == pytest.approx(score)


def test_without_a_reference_a_computation_metric_is_not_evaluated_with_the_sdks_words() -> None:
    import asyncio

    case = dataset_case({"eval_case_id": "x", "prompt": CASE["prompt"]})
    metric = agents_cli_specs.configured("exact_match", acli.BuiltInDefinition(metric="exact_match"), threshold=None)
    outcome = asyncio.run(evaluate_metric(metric.build(MetricServices()), run_of(case, [answered("q", "Paris")])))
    assert outcome.reason == "Reference text missing for eval_case x."

"""The metric registry: every metric's evaluator class is imported by a factory that mypy checks, and each one
is a Metric that builds from its spec's criterion (declared once, in the spec)."""

from __future__ import annotations

import pytest

from adk_eval_gate.metrics import agents_cli_specs, evaluators, registry
from adk_eval_gate.metrics.metric import Metric, MetricServices
from adk_eval_gate.model import agents_cli_config as acli
from adk_eval_gate.model import eval_config


@pytest.mark.parametrize("name", sorted(registry.BUILT_IN))
def test_every_built_in_metric_builds_from_its_spec(name: str) -> None:
    spec = registry.BUILT_IN[name]
    cls = spec.evaluator_class()
    assert issubclass(cls, Metric)
    required = {"rouge": {"rouge_type": "rouge1"}, "trajectory_single_tool_use": {"tool_name": "get_weather"}}
    values = {"threshold": 0.5, **required.get(name, {})}
    criterion = None if spec.informational else spec.criterion.model_validate(values)
    metric = registry.ConfiguredMetric(spec, criterion).build(MetricServices())
    assert isinstance(metric, cls) and metric.criterion_type is spec.criterion and metric.name == name


def test_every_factory_is_a_registered_evaluator() -> None:
    factories = {value for key, value in vars(evaluators).items() if callable(value) and not key.startswith("_")}
    agents_cli = [
        acli.FunctionDefinition(source="def evaluate(instance):\n    return 1\n", filename="<custom_metric:m>"),
        acli.TemplateDefinition(prompt_template="{response}", judge_model_options=eval_config.JudgeModelOptions()),
        acli.BuiltInDefinition(metric="general_quality_v2"),
        acli.BuiltInDefinition(metric="bleu"),
        acli.UnsupportedDefinition(reason="remote"),
    ]
    used = {spec.evaluator for spec in registry.BUILT_IN.values()} | {
        evaluators.custom_metric,
        evaluators.vertex_custom_metric,
        evaluators.templated_judge_metric,
        *(agents_cli_specs.spec_for("m", definition).evaluator for definition in agents_cli),
    }
    assert {f for f in factories if f.__module__ == evaluators.__name__} == used


def test_a_custom_metric_gets_its_evaluator_from_its_signature() -> None:
    adk = registry.custom_spec("mine", eval_config.CustomMetricConfig(code_config={"name": "m.f"}))
    assert adk.evaluator is evaluators.custom_metric

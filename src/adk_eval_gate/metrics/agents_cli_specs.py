"""The metrics of an agents-cli ``eval_config.yaml``, as the registry's ``ConfiguredMetric``: each with its
definition (``model.agents_cli_config``), and its threshold from the gate's ``adk_eval_gate.thresholds`` (none:
informational).

* ``custom_function`` / ``custom_function_file``: a custom metric (``metrics/agents_cli_functions.py``), its score
  free (agents-cli's functions return any number);
* ``prompt_template``: a judge metric of the gate's judge (``metrics/agents_cli_judge.py``), its score free too;
* a built-in metric: computed by Google's evaluation service (``metrics/platform_builtin.py``), a score from 0 to 1;
  ``exact_match``, ``bleu`` and ``rouge*`` by the gate itself;
* ``execution: remote``: not supported, said once per case (``UnsupportedMetric``).
"""

from __future__ import annotations

from adk_eval_gate.metrics import evaluators
from adk_eval_gate.metrics.registry import ConfiguredMetric, MetricSpec
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.agents_cli_config import (
    BuiltInDefinition,
    FunctionDefinition,
    MetricDefinition,
    TemplateDefinition,
    UnsupportedDefinition,
    sdk_computed,
)


def spec_for(name: str, definition: MetricDefinition) -> MetricSpec:
    if isinstance(definition, FunctionDefinition):
        where = f"custom_function_file {definition.file}" if definition.file else "inline custom_function"
        return MetricSpec(
            name, evaluators.agents_cli_function, eval_config.BaseCriterion, "custom", None, f"agents-cli: {where}"
        )
    if isinstance(definition, TemplateDefinition):
        return MetricSpec(
            name,
            evaluators.agents_cli_template,
            eval_config.BaseCriterion,
            "judge",
            None,
            "agents-cli: prompt_template judged by the gate's judge",
        )
    if isinstance(definition, BuiltInDefinition) and sdk_computed(definition.metric):
        return MetricSpec(
            name,
            evaluators.local_computation,
            eval_config.BaseCriterion,
            "deterministic",
            (0.0, 1.0),
            f"Agent Platform: {definition.metric}, computed by the gate as Vertex AI computes it",
        )
    if isinstance(definition, BuiltInDefinition):
        return MetricSpec(
            name,
            evaluators.platform_built_in,
            eval_config.BaseCriterion,
            "judge",
            (0.0, 1.0),
            f"Agent Platform: {definition.metric}, computed by Google's evaluation service",
        )
    return MetricSpec(name, evaluators.unsupported_metric, eval_config.BaseCriterion, "custom", None, definition.reason)


def configured(name: str, definition: MetricDefinition, *, threshold: float | None) -> ConfiguredMetric:
    criterion = eval_config.BaseCriterion(threshold=threshold) if threshold is not None else None
    return ConfiguredMetric(spec_for(name, definition), criterion, definition=definition)


def unsupported_reason(name: str) -> UnsupportedDefinition:
    return UnsupportedDefinition(
        reason=(
            f"{name} has execution: remote, which runs the function in Google's code execution sandbox; the gate does "
            "not support it: remove execution (local is the default) to run the function in the gate"
        )
    )

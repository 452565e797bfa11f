"""Build the shared services the configured metrics need (the LLM judge for judge metrics)."""

from __future__ import annotations

from adk_eval_gate.console import Console
from adk_eval_gate.metrics.base import MetricServices
from adk_eval_gate.plan import PlannedFile
from adk_eval_gate.settings import Settings


def build_services(settings: Settings, planned: list[PlannedFile], console: Console) -> MetricServices:
    del settings, planned, console
    return MetricServices()

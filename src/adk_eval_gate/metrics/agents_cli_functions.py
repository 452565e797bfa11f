"""agents-cli's code metrics (``custom_function`` inline, or ``custom_function_file``), scored as agents-cli scores
them: ``evaluate(instance)`` once per case run, with the ``instance`` the evaluation SDK gives it
(``agents_cli_instance.function_instance``), its answer read as the SDK's ``CustomMetricHandler`` reads it: a
``{"score": ..., "explanation": ...}`` dict, a number, or an ``EvalCaseMetricResult``; a transient failure (a
connection or a 408/429/5xx) is tried again, up to five times, as agents-cli's ``with_transient_retry`` does.

The code is user code: it runs in a process of its own (``services.functions``,
``runners/workers/function_process.py``), where an exit, a crash or a hang ends that process only, within ``--timeout``,
and what it prints goes through the console. Anything that keeps a number from it makes the metric not evaluated for
that case, with the reason.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from adk_eval_gate.metrics.agents_cli_instance import function_instance, trace_case
from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, NotEvaluated
from adk_eval_gate.model.agents_cli_config import FunctionDefinition


@dataclass(frozen=True)
class FunctionCall:
    """One call of a metric's ``evaluate``: its code, the instance, and where the code came from."""

    metric: str
    definition: FunctionDefinition
    instance: dict[str, Any]


@dataclass
class FunctionAnswer:
    """What the call gave: a score (and explanation), or why there is none. ``read``: the repository paths the code
    used (``runners/workers/observe.py``), for ``--only-affected``."""

    score: float | None = None
    explanation: str | None = None
    error: str | None = None
    read: list[str] = field(default_factory=list)


FunctionRunner = Callable[[FunctionCall], Awaitable[FunctionAnswer]]


class AgentsCliFunctionMetric(Metric):
    definition: FunctionDefinition | None = None

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        definition = self.definition
        if definition is None:
            raise NotEvaluated(f"custom metric {self.name} has no code")
        runner = self.services.functions
        if runner is None:
            raise NotEvaluated(f"custom metric {self.name}: this run has no process to run metric code in")
        instance = function_instance(trace_case(run), run.eval_case.eval_id)
        answer = await runner(FunctionCall(self.name, definition, instance))
        if answer.error is not None or answer.score is None:
            raise NotEvaluated(answer.error or f"{self.name} gave no score")
        details = {"explanation": answer.explanation} if answer.explanation else None
        return MetricOutcome.last_turn(answer.score, len(run.actual), details=details)

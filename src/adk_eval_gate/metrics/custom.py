"""``custom_metrics`` from the config, called as ADK calls them (spec 2.4), or as Vertex AI calls its custom
metrics (``"signature": "vertex"``).

``code_config.name`` is ``package.module.function``. ADK's signature: the function gets ADK's own types,
``fn(eval_metric, actual_invocations, expected_invocations | None, conversation_scenario | None)`` with a copy
of the metric whose ``threshold`` is None, and returns an ``EvaluationResult`` (or an awaitable of one); its
scores are used as they are, and its statuses are kept as the function's own (``evaluator_status``), which the
verdict respects as ADK does (needs google-adk installed: the types come from it).

Vertex's signature: ``fn(instance) -> {name: score}`` once per invocation, ``instance`` being the invocation as a
row of Vertex's dataset (``metrics/vertex_instance.py``: ``prompt``, ``response``, ``predicted_trajectory``, and
``reference`` and ``reference_trajectory`` when the case has expected invocations). The score is compared with the
threshold per invocation (by the verdict) and averaged per case; an ``"explanation"`` the function returns is
kept for the reports.
An exception in the function makes the metric not evaluated for that case, with the function's message. An ADK
function that passes or fails without one result per invocation is refused as ADK refuses it
(``LocalEvalService._evaluate_metric_for_eval_case`` raises, ending the evaluation): the run is an error.
The gate calls these in a process of their own per evaluation (``runners/workers/metric_process.py``).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adk_eval_gate.metrics.metric import (
    CaseRun,
    InvocationScore,
    Metric,
    MetricOutcome,
    NotEvaluated,
    ResultRefused,
)
from adk_eval_gate.metrics.vertex_instance import instances
from adk_eval_gate.model.evalset import RubricScore
from adk_eval_gate.model.results import MetricStatus
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.repository_paths import code_outside_repository

PER_INVOCATION_REQUIRED = "Eval metric should return results for each invocation."
_STATUS = {1: MetricStatus.PASSED, 2: MetricStatus.FAILED, 3: MetricStatus.NOT_EVALUATED, 4: MetricStatus.INFORMATIONAL}


def import_function(path: str) -> Callable[..., Any]:
    """Imports ``module.function``; the working directory (the repository) is importable, as with ``python -m``."""
    module_name, _, function_name = path.rpartition(".")
    if not module_name or not function_name:
        raise NotEvaluated(f"custom metric function {path!r} must be written as package.module.function")
    outside = _linked_out(module_name)
    if outside is not None:
        raise NotEvaluated(f"custom metric function {path!r}: {outside}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if os.getcwd() in sys.path or error.name is None or not module_name.startswith(error.name):
            raise NotEvaluated(f"cannot import custom metric function {path!r}: {error}") from None
        sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_name)
        except ImportError as again:
            raise NotEvaluated(f"cannot import custom metric function {path!r}: {again}") from None
    except Exception as error:
        raise NotEvaluated(
            f"importing {module_name!r} for custom metric raised {type(error).__name__}: {error}"
        ) from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise NotEvaluated(f"custom metric function {path!r}: {module_name} has no callable {function_name!r}")
    return function  # type: ignore[no-any-return]


def _linked_out(module_name: str) -> str | None:
    """Why the module may not be imported: a file of it in the repository (the working folder), the module or a
    package above it, whose real path is outside (``support.repository_paths``' one rule for code); else None."""
    root = Path.cwd()
    parts = module_name.split(".")
    if not all(parts):  # "a..b" imports nothing from a file
        return None
    for count in range(1, len(parts) + 1):
        base = root.joinpath(*parts[:count])
        for candidate in (base / "__init__.py", base.with_suffix(".py")):
            outside = code_outside_repository(candidate, root=root) if os.path.lexists(candidate) else None
            if outside is not None:
                return f"{candidate.relative_to(root).as_posix()} {outside}"
    return None


def _status(value: Any) -> MetricStatus:
    number = getattr(value, "value", value)
    return _STATUS.get(number, MetricStatus.NOT_EVALUATED) if isinstance(number, int) else MetricStatus.NOT_EVALUATED


def _score(value: Any) -> float | None:
    """A score the function returned, as a float (None: it returned no number); ``NotEvaluated`` when it is not a
    finite number (an integer too large for a float cannot even be converted)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    if not sanitize.is_finite_number(value):
        shown = sanitize.shown_number(value)
        raise NotEvaluated(f"the custom metric function returned the score {shown}, which is not a finite number")
    return float(value)


def _rubric_scores(values: Any) -> list[RubricScore] | None:
    if not values:
        return None
    return [RubricScore.model_validate(v.model_dump() if hasattr(v, "model_dump") else v) for v in values]


def outcome_from_adk(result: Any, invocations: int) -> MetricOutcome:
    """ADK's ``EvaluationResult`` as our outcome, statuses as the function set them; ``ResultRefused`` with ADK's
    message when a result that passes or fails has not one result per invocation."""
    if not hasattr(result, "overall_eval_status") or not hasattr(result, "per_invocation_results"):
        raise NotEvaluated(f"the custom metric function returned {type(result).__name__}, not an EvaluationResult")
    per_invocation = [
        InvocationScore(
            _score(item.score),
            rubric_scores=_rubric_scores(item.rubric_scores),
            evaluator_status=_status(item.eval_status),
        )
        for item in result.per_invocation_results or []
    ]
    status = _status(result.overall_eval_status)
    reason = "the custom metric function reported not evaluated" if status is MetricStatus.NOT_EVALUATED else None
    if len(per_invocation) != invocations:
        if status not in (MetricStatus.NOT_EVALUATED, MetricStatus.INFORMATIONAL):
            raise ResultRefused(
                f"{PER_INVOCATION_REQUIRED} Found {len(per_invocation)} results for {invocations} invocations."
            )
        per_invocation = []
    return MetricOutcome(
        score=_score(result.overall_score),
        per_invocation=per_invocation,
        reason=reason,
        rubric_scores=_rubric_scores(getattr(result, "overall_rubric_scores", None)),
        evaluator_status=status,
    )


class CustomMetric(Metric):
    custom_function_path: str | None = None

    def adk_arguments(self, run: CaseRun) -> tuple[Any, Any, Any, Any]:
        try:
            from google.adk.evaluation import eval_case as adk_case
            from google.adk.evaluation import eval_metrics as adk_metrics
        except ImportError:
            raise NotEvaluated(
                f"custom metric {self.name} receives ADK's types: install google-adk (pip install 'adk-eval-gate[adk]')"
            ) from None
        criterion = adk_metrics.BaseCriterion.model_validate(self.criterion.model_dump()) if self.criterion else None
        eval_metric = adk_metrics.EvalMetric(
            metric_name=self.name, threshold=None, criterion=criterion, custom_function_path=self.custom_function_path
        )

        def convert(invocations: list[Any] | None) -> list[Any] | None:
            if invocations is None:
                return None
            return [adk_case.Invocation.model_validate(i.model_dump(mode="python")) for i in invocations]

        scenario = None
        if run.scenario is not None:
            scenario = adk_case.ConversationScenario.model_validate(run.scenario.model_dump(mode="python"))
        return eval_metric, convert(run.actual), convert(run.expected), scenario

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        if not self.custom_function_path:
            raise NotEvaluated(f"custom metric {self.name} has no code_config.name")
        function = import_function(self.custom_function_path)
        arguments = self.adk_arguments(run)
        result = function(*arguments)
        if inspect.isawaitable(result):
            result = await result
        return outcome_from_adk(result, len(run.actual))


class VertexCustomMetric(CustomMetric):
    """A Vertex-style custom metric function: ``fn(instance) -> {name: score}`` per invocation."""

    def read_score(self, result: Any) -> tuple[float, str | None]:
        """The score (and explanation) the function returned, or ``NotEvaluated`` saying what it returned."""
        value = result.get(self.name) if isinstance(result, dict) else None
        if not isinstance(value, int | float) or not sanitize.is_finite_number(value):
            try:
                shown = repr(result)
            except ValueError:  # an integer with more digits than Python agrees to write
                shown = f"{{{self.name!r}: an integer too large to print}}"
            raise NotEvaluated(
                f"{self.custom_function_path} returned {shown[:120] + '...' if len(shown) > 120 else shown}; "
                f"a Vertex-style metric function returns {{{self.name!r}: <a number>}}"
            )
        explanation = result.get("explanation")
        return float(value), explanation if isinstance(explanation, str) else None

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        if not self.custom_function_path:
            raise NotEvaluated(f"custom metric {self.name} has no code_config.name")
        function = import_function(self.custom_function_path)
        scores: list[float] = []
        explanations: list[str | None] = []
        for row in instances(run, metric_name=self.name, need_reference=False):
            try:
                result = function(row)
                if inspect.isawaitable(result):
                    result = await result
            except Exception as error:  # the function's own failure: this metric's, for this case
                raise NotEvaluated(f"{self.custom_function_path} raised {type(error).__name__}: {error}") from None
            score, explanation = self.read_score(result)
            scores.append(score)
            explanations.append(explanation)
        outcome = self.mean_outcome(scores)
        if any(explanations):
            outcome.details = {"explanations": explanations}
        return outcome

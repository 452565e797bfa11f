"""Where ADK's custom metrics (``code_config`` in test_config.json, ``metrics/custom.py``) run: each evaluation in a
forked process of its own (``forked_call.call_in_worker``), as agents-cli's metric code runs
(``function_process``), never in the gate's process. There the function is imported and called, without the
GitHub token in the environment; what comes back is data read against ``MetricAnswer`` (JSON, bounded): the
overall score and status, each invocation's score, status and rubric verdicts, the function's not-evaluated reason,
and the paths it used (``observe``), which the gate keeps only inside the repository (``observe.repository_files``).

A metric whose code exits (``sys.exit``, ``os._exit``, a crash), hangs past ``--timeout`` or writes something else
on the connection makes its case run an error, as an exit in the gate's process did (``score.MetricEscaped``).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import pydantic

from adk_eval_gate.metrics.metric import CaseRun, InvocationScore, Metric, MetricOutcome, NotEvaluated, ResultRefused
from adk_eval_gate.metrics.score import MetricEscaped
from adk_eval_gate.model.evalset import RubricScore
from adk_eval_gate.model.results import ComputedBy, MetricStatus
from adk_eval_gate.runners.workers import observe
from adk_eval_gate.runners.workers.forked_call import WorkerLost, call_in_worker

MAX_TEXT = 10_000  # characters of a reason
MAX_ITEMS = 10_000  # invocations, rubric verdicts, paths used
MAX_PATH = 4096

_Text = Annotated[str, pydantic.StringConstraints(max_length=MAX_TEXT)]
_Path = Annotated[str, pydantic.StringConstraints(max_length=MAX_PATH, pattern=r"^[^\x00]*$")]
_Rubrics = Annotated[list[RubricScore], pydantic.Field(max_length=MAX_ITEMS)]


class _Answer(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


class SentScore(_Answer):
    """One invocation's score, as the function's ``PerInvocationResult`` gave it."""

    score: float | None = None
    rubric_scores: _Rubrics | None = None
    evaluator_status: MetricStatus | None = None
    details: dict[str, Any] | None = None


class MetricAnswer(_Answer):
    """What a custom metric's process sends back: its outcome (``EvaluationResult`` as ``custom.outcome_from_adk``
    reads it), or why there is none (``not_evaluated``: the function's reason; ``escaped``: it ended its process;
    ``refused``: ADK's refusal of its result, ``ResultRefused``)."""

    score: float | None = None
    per_invocation: Annotated[list[SentScore], pydantic.Field(max_length=MAX_ITEMS)] = []
    reason: _Text | None = None
    rubric_scores: _Rubrics | None = None
    evaluator_status: MetricStatus | None = None
    details: dict[str, Any] | None = None
    not_evaluated: _Text | None = None
    escaped: _Text | None = None
    refused: _Text | None = None
    read: Annotated[list[_Path], pydantic.Field(max_length=MAX_ITEMS)] = []

    def outcome(self) -> MetricOutcome:
        return MetricOutcome(
            score=self.score,
            per_invocation=[InvocationScore(**item.model_dump()) for item in self.per_invocation],
            reason=self.reason,
            rubric_scores=self.rubric_scores,
            details=self.details,
            evaluator_status=self.evaluator_status,
        )


_ANSWER = pydantic.TypeAdapter(MetricAnswer)


def _answer_of(outcome: MetricOutcome) -> dict[str, Any]:
    """The outcome as the data ``MetricAnswer`` reads (in the metric's process)."""
    return {
        "score": outcome.score,
        "per_invocation": [
            {
                "score": item.score,
                "rubric_scores": item.rubric_scores,
                "evaluator_status": item.evaluator_status,
                "details": item.details,
            }
            for item in outcome.per_invocation
        ],
        "reason": outcome.reason,
        "rubric_scores": outcome.rubric_scores,
        "evaluator_status": outcome.evaluator_status,
        "details": outcome.details,
    }


def _score_here(metric: Metric, run: CaseRun) -> dict[str, Any]:
    """In the metric's own process: the metric evaluated, what it used recorded; its answer as plain data."""
    with observe.recording() as used:
        answer = _evaluated(metric, run)
    answer["read"] = sorted(path for path in used if len(path) <= MAX_PATH)[:MAX_ITEMS]
    return answer


def _evaluated(metric: Metric, run: CaseRun) -> dict[str, Any]:
    try:
        outcome = asyncio.run(_awaited(metric, run))
    except NotEvaluated as reason:
        return {"not_evaluated": str(reason)[:MAX_TEXT]}
    except ResultRefused as refused:  # ADK raises on such a result, ending the evaluation: the run is an error
        return {"refused": str(refused)[:MAX_TEXT]}
    except SystemExit as ended:
        return {"escaped": f"it ended with sys.exit({ended.code!r})"[:MAX_TEXT]}
    except KeyboardInterrupt:
        return {"escaped": "it ended with KeyboardInterrupt"}
    except Exception as error:  # the function's own failure: the metric's, as in ``score.evaluate_metric``
        return {"not_evaluated": f"{type(error).__name__}: {str(error) or type(error).__name__}"[:MAX_TEXT]}
    return _answer_of(outcome)


async def _awaited(metric: Metric, run: CaseRun) -> MetricOutcome:
    result = metric.evaluate(run)
    return await result if inspect.isawaitable(result) else result


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class MetricProcesses:
    """Runs custom metrics in processes of their own: ``wrap`` gives the metric that does (others as they are);
    each call has ``timeout`` seconds, and each line its code prints goes to ``on_output``."""

    timeout: float = 600.0
    on_output: Callable[[str], None] = field(default=_to_stderr)

    def wrap(self, custom_function_path: str | None, metric: Metric) -> Metric:
        return metric if custom_function_path is None else _InProcessOfItsOwn(metric, self)


class _InProcessOfItsOwn(Metric):
    """A custom metric evaluated in a forked process per call; its answer read as data."""

    def __init__(self, inner: Metric, processes: MetricProcesses) -> None:
        super().__init__(
            name=inner.name, criterion=inner.criterion, services=inner.services, criterion_type=inner.criterion_type
        )
        self._inner = inner
        self._processes = processes

    @property
    def computed_by(self) -> ComputedBy | None:
        return self._inner.computed_by

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        answer = await asyncio.to_thread(self._call, run)
        observe.note(answer.read)  # for ``--only-affected``: kept only inside the repository (``repository_files``)
        if answer.escaped is not None:
            raise MetricEscaped(f"the code of metric {self.name}: {answer.escaped}; the run could not be scored")
        if answer.refused is not None:
            raise ResultRefused(answer.refused)
        if answer.not_evaluated is not None:
            raise NotEvaluated(answer.not_evaluated)
        return answer.outcome()

    def _call(self, run: CaseRun) -> MetricAnswer:
        def relay(line: str) -> None:
            self._processes.on_output(f"{self.name}: {line}")

        try:
            return call_in_worker(
                functools.partial(_score_here, self._inner, run),
                answer=_ANSWER,
                on_output=relay,
                timeout=self._processes.timeout,
            )
        except WorkerLost as lost:
            said = str(lost)
            return MetricAnswer(escaped=said if said.startswith("its ") else f"it {said}")

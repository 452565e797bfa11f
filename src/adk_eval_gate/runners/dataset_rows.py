"""The rows of Vertex-style datasets that need no agent, in front of the runner chosen by ``--runner``.

A row that carries the agent's answer (``response``, ``predicted_trajectory``) is one recorded run; a row that
cannot be used is a run that failed with the row's error. Every other case goes to the chosen runner, which is
only built when some case needs it (a dataset of recorded answers runs without google-adk).
"""

from __future__ import annotations

from collections.abc import Callable

from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.runners.runner import Inference, Runner, recorded_start


def _own_inference(planned: PlannedFile, case: EvalCase) -> Inference | None:
    loaded = planned.loaded
    error = loaded.row_errors.get(case.eval_id)
    if error is not None:
        return Inference(error=error, duration_seconds=0.0, started_at=0.0)
    recorded = loaded.recorded.get(case.eval_id)
    if recorded is None:
        return None
    return Inference(  # no agent ran: it used no file (what the metrics read is added where they score)
        invocations=[recorded],
        duration_seconds=recorded.duration or 0.0,
        started_at=recorded_start([recorded]),
        observed=[],
    )


class DatasetRunner:
    def __init__(self, make_runner: Callable[[], Runner], *, name: str) -> None:
        self.name = name
        self._make_runner = make_runner
        self._runner: Runner | None = None

    @property
    def runner(self) -> Runner:
        """The chosen runner, built on first use."""
        if self._runner is None:
            self._runner = self._make_runner()
        return self._runner

    def run_count(self, planned: PlannedFile, case: EvalCase) -> int | None:
        if _own_inference(planned, case) is not None:
            return 1  # one recorded answer, or one error
        return self.runner.run_count(planned, case)

    async def prepare(self, items: list[WorkItem]) -> None:
        rest = [item for item in items if _own_inference(item.file, item.case) is None]
        if rest:
            await self.runner.prepare(rest)

    async def wait_ready(self) -> None:
        if self._runner is not None:
            await self._runner.wait_ready()

    async def infer(self, item: WorkItem) -> Inference:
        own = _own_inference(item.file, item.case)
        return own if own is not None else await self.runner.infer(item)

    async def aclose(self) -> None:
        if self._runner is not None:
            await self._runner.aclose()

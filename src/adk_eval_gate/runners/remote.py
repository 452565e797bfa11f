"""What the runners that reach an agent served elsewhere (``http``, ``a2a``) share: the agent is the server's, so
there is nothing to prepare or wait for and no recorded runs; a failure worth trying again is ``Transient``."""

from __future__ import annotations

from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model.evalset import EvalCase


class Transient(Exception):
    """A failure reaching the agent's server that is worth trying again (a 429, a 5xx, a lost connection), with
    the wait the server asked for (``Retry-After``), if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RemoteRunner:
    """The ``Runner`` methods a remote runner has nothing to do in; each subclass has its ``infer`` and
    ``aclose``."""

    def run_count(self, planned: PlannedFile, case: EvalCase) -> int | None:
        return None

    async def prepare(self, items: list[WorkItem]) -> None:
        return None

    async def wait_ready(self) -> None:
        return None

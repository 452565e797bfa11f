"""What every runner provides."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from adk_eval_gate.evalset import Invocation
from adk_eval_gate.plan import WorkItem


@dataclass
class Inference:
    """The actual invocations of one run of one case, or why there are none (``error``)."""

    invocations: list[Invocation] = field(default_factory=list)
    error: str | None = None
    session_id: str | None = None
    duration_seconds: float | None = None
    retryable: bool = False  # a transient failure (429, 5xx, connection): run the case again in a fresh session
    retry_after: float | None = None  # seconds the server asked to wait before trying again


class Runner(Protocol):
    name: str

    async def infer(self, item: WorkItem) -> Inference:
        """Runs (or looks up) one work item; errors are returned in ``Inference.error``, not raised."""
        ...

    async def aclose(self) -> None:
        """Releases what the runner holds (servers, sessions, clients)."""
        ...

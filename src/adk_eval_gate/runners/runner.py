"""What every runner provides."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import pydantic_core

from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model.evalset import EvalCase, Invocation
from adk_eval_gate.model.results import ServedAgent
from adk_eval_gate.model.tokens import Tokens
from adk_eval_gate.support import sanitize

if TYPE_CHECKING:
    from adk_eval_gate.metrics.efficiency import TurnFacts
    from adk_eval_gate.model import compact


@dataclass
class Inference:
    """The actual invocations of one run of one case, or why there are none (``error``)."""

    invocations: list[Invocation] = field(default_factory=list)
    error: str | None = None
    session_id: str | None = None
    duration_seconds: float | None = None
    started_at: float | None = None  # when the run started, in seconds since the epoch
    retryable: bool = False  # a transient failure (429, 5xx, connection): run the case again in a fresh session
    retry_after: float | None = None  # seconds the server asked to wait before trying again
    retries: list[str] = field(default_factory=list)  # why each earlier attempt failed and was run again
    notes: list[str] = field(default_factory=list)  # what was changed in the agent's output to keep it usable
    log: list[str] = field(default_factory=list)  # what ADK and the agent logged during the run (``runlog``)
    timed_out: bool = False  # the run did not finish within --timeout
    simulator_calls: list[Tokens] = field(default_factory=list)  # the user simulator's model calls (scenarios)
    final_session_state: dict[str, Any] | None = None  # the session state after the run, when the runner has it
    # What ``runners.capture`` keeps of the invocations, where they were made: the turns in results.json's compact
    # form, what the usage figures need of each, and the app details the turns name (no scores: the gate scores).
    turns: list[compact.Turn] | None = None
    facts: list[TurnFacts] | None = None
    app_details: dict[str, dict[str, Any]] = field(default_factory=dict)
    observed: list[str] | None = None  # repository files the agent used (``observe``); None: not known
    local_models: list[str] = field(default_factory=list)  # models of the user's own classes (``adk_case``)
    tools_unseen: str | None = None  # why the agent's tool calls could not be seen (an A2A server that hides them)
    served_agent: ServedAgent | None = None  # the agent as its server describes it (the a2a runner's agent card)

    @property
    def infrastructure(self) -> bool:
        """The run failed around the agent, not in it: a timeout, or a transient error that outlived its retries."""
        return self.error is not None and (self.timed_out or self.retryable)


def recorded_start(invocations: list[Invocation]) -> float:
    """When a replayed run started: its first turn's recorded timestamp (0 when it has none), never the replay's
    own time, so that a replay's results are the same every time."""
    return next((turn.creation_timestamp for turn in invocations if turn.creation_timestamp), 0.0)


REQUEST_KEY = "__llm_request_key__"  # the session state key ADK's eval (and our request recorder) writes


def plain_state(state: Mapping[str, Any]) -> dict[str, Any] | None:
    """A session state as JSON data for the metrics and results.json: the eval's own bookkeeping key removed,
    values JSON has no form for written as text (NaN as "NaN"), nesting cut like every value from an agent."""
    data = {str(key): value for key, value in state.items() if key != REQUEST_KEY}
    try:
        text = json.dumps(pydantic_core.to_jsonable_python(data, fallback=repr), ensure_ascii=False, default=repr)
        decoded = json.loads(text, parse_constant=str)
    except (ValueError, RecursionError):
        return None  # nested too deep even for the JSON encoder: as good as not recorded
    cleaned, _cut = sanitize.bounded(decoded, max_depth=sanitize.MAX_VALUE_DEPTH)
    return dict(cleaned)


class UserCodeExit(Exception):
    """``SystemExit`` or ``KeyboardInterrupt`` raised in a task (agent code), as an ordinary exception.

    asyncio lets these two leave the event loop from any task, ending ``asyncio.run`` and so the whole process;
    ``contain_exits`` turns them into this inside the task, so they reach the case run that awaits it.
    """

    def __init__(self, original: SystemExit | KeyboardInterrupt) -> None:
        super().__init__(repr(original))
        self.original = original


async def _contained(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        return await coro
    except (SystemExit, KeyboardInterrupt) as error:
        raise UserCodeExit(error) from error


def _contained_task(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Future[Any]:
    return asyncio.Task(_contained(coro), loop=loop, **kwargs)


def contain_exits(loop: asyncio.AbstractEventLoop) -> None:
    """Every task created on ``loop`` from now on keeps ``sys.exit()``/``KeyboardInterrupt`` to itself."""
    loop.set_task_factory(_contained_task)


def escaped(error: BaseException) -> BaseException:
    """What agent code actually raised (``UserCodeExit`` unwrapped)."""
    return error.original if isinstance(error, UserCodeExit) else error


def describe_escape(error: BaseException) -> str:
    """An exception that escaped the agent or a runner, as the reason of an error entry."""
    error = escaped(error)
    if isinstance(error, SystemExit):
        return f"the agent's code called sys.exit({error.code!r}); the case run was stopped there"
    if isinstance(error, KeyboardInterrupt):
        return "the agent's code raised KeyboardInterrupt; the case run was stopped there"
    return f"{type(error).__name__}: {error}"


class Runner(Protocol):
    """What the commands (``inputs.plan`` through ``run_count``) and ``execute`` call on a runner, in this order:
    run_count, prepare, wait_ready, infer (many times, concurrently), aclose."""

    name: str

    def run_count(self, planned: PlannedFile, case: EvalCase) -> int | None:
        """How many runs this case has of its own (recorded results); None: as many as ``--num-runs``."""
        ...

    async def prepare(self, items: list[WorkItem]) -> None:
        """Sets up what the items need (imports agents, starts workers) before any case run's clock starts."""
        ...

    async def wait_ready(self) -> None:
        """Returns when the runner can take runs (e.g. its worker processes have imported the agents)."""
        ...

    async def infer(self, item: WorkItem) -> Inference:
        """Runs (or looks up) one work item; errors are returned in ``Inference.error``, not raised."""
        ...

    async def aclose(self) -> None:
        """Releases what the runner holds (servers, sessions, clients)."""
        ...

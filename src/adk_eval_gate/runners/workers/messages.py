"""What crosses from a process that runs user code (an agent worker, a call of ``forked_call``) to the gate's
process: JSON, one length-prefixed frame each (``Connection.send_bytes``), at most ``MAX_MESSAGE_BYTES``, read
against the schema of its kind here. Nothing such a process sends is unpickled: the code it runs can find its
connection (in its frames, through ``gc``) and write anything on it, so a frame that is too large or does not
validate is that process's error (``BadMessage``), and what validates is data, never code.

The gate's own messages to its workers (the job and the work items) stay pickled: only the gate writes them.
"""

from __future__ import annotations

from multiprocessing.connection import Connection
from typing import Annotated, Any, Literal, TypeVar

import pydantic
import pydantic_core

from adk_eval_gate.metrics.efficiency import TurnFacts
from adk_eval_gate.model.tokens import Tokens
from adk_eval_gate.runners.agents import AgentError
from adk_eval_gate.runners.runner import Inference

MAX_MESSAGE_BYTES = 256 * 1024 * 1024  # a case run's turns, however long its conversation, fit many times over

T = TypeVar("T")


class BadMessage(Exception):
    """What a process sent is not a message of the gate's: too large, not JSON, or not of its schema."""


class _Message(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")


class AgentProblem(_Message):
    """An ``AgentError`` as data: why an agent cannot be imported."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    field: str | None = None
    hint: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    short: str | None = None

    @classmethod
    def of(cls, error: AgentError) -> AgentProblem:
        return cls.model_validate({name: getattr(error, name) for name in cls.model_fields})

    def error(self) -> AgentError:
        return AgentError(**self.model_dump())


class SentRun(_Message):
    """What a worker sends of a case run (``Inference``): what ``runners.capture`` keeps of it (its turns compact,
    each turn's facts, the app details the gate has not been sent yet), never its objects, and never a score: the
    gate scores every metric itself (a ``Done`` with ``scored`` is refused as a field the gate does not know)."""

    turns: list[dict[str, Any]] | None = None
    facts: list[TurnFacts] | None = None
    app_details: dict[str, dict[str, Any]] = {}
    error: str | None = None
    session_id: str | None = None
    duration_seconds: float | None = None
    retryable: bool = False
    retry_after: float | None = None
    notes: list[str] = []
    log: list[str] = []
    simulator_calls: list[Tokens] = []
    final_session_state: dict[str, Any] | None = None
    observed: list[str] | None = None  # the repository files the agent used (``runners.workers.observe``)
    local_models: list[str] = []  # the models that answered through a class of the user's own

    def inference(self) -> Inference:
        return Inference(**{name: getattr(self, name) for name in SentRun.model_fields})


class Ready(_Message):
    """A worker imported the agents: those that cannot be used, and the secrets in its environment then."""

    kind: Literal["ready"] = "ready"
    problems: list[AgentProblem]
    secrets: list[str]


class Done(_Message):
    kind: Literal["done"] = "done"
    request: int
    run: SentRun


class Cancelled(_Message):
    kind: Literal["cancelled"] = "cancelled"
    request: int


WorkerMessage = Annotated[Ready | Done | Cancelled, pydantic.Field(discriminator="kind")]
_WORKER_MESSAGE: pydantic.TypeAdapter[Ready | Done | Cancelled] = pydantic.TypeAdapter(WorkerMessage)


class CallAnswer(_Message):
    """What a call of ``forked_call`` sends back: what it returned (read against its schema, ``call_result``), or
    why it raised."""

    returned: Any = None
    raised: str | None = None


def encode_run(request: int, inference: Inference) -> bytes:
    """A case run's ``Done`` frame; values JSON has no form for (an object in a metric's details) as their repr."""
    run = {name: getattr(inference, name) for name in SentRun.model_fields}
    return to_json({"kind": "done", "request": request, "run": run})


def framed(message: pydantic.BaseModel) -> bytes:
    return message.model_dump_json().encode()


def to_json(value: Any) -> bytes:
    return pydantic_core.to_json(value, inf_nan_mode="constants", fallback=repr)


def send(conn: Connection, frame: bytes) -> None:
    conn.send_bytes(frame)


def receive_frame(conn: Connection) -> bytes:
    """The next frame; ``BadMessage`` when it is larger than ``MAX_MESSAGE_BYTES`` (the connection is unusable
    then), ``EOFError`` or ``OSError`` when the other end is gone."""
    try:
        return conn.recv_bytes(MAX_MESSAGE_BYTES)
    except OSError as error:
        if "bad message length" in str(error):
            raise BadMessage(f"a message larger than {MAX_MESSAGE_BYTES // (1024 * 1024)} MiB") from None
        raise


def worker_message(frame: bytes) -> Ready | Done | Cancelled:
    try:
        return _WORKER_MESSAGE.validate_json(frame)
    except pydantic.ValidationError as error:
        raise BadMessage(_first_problem(error)) from None


def call_answer(frame: bytes) -> CallAnswer:
    try:
        return CallAnswer.model_validate_json(frame)
    except pydantic.ValidationError as error:
        raise BadMessage(_first_problem(error)) from None


def call_result(returned: Any, schema: pydantic.TypeAdapter[T]) -> T:
    """What a call returned, as the data its caller expects."""
    try:
        return schema.validate_python(returned)
    except pydantic.ValidationError as error:
        raise BadMessage(_first_problem(error)) from None


def _first_problem(error: pydantic.ValidationError) -> str:
    first = error.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"a message that is not the gate's ({where + ': ' if where else ''}{first['msg']})"[:300]

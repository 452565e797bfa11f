"""What a worker or a forked call sends the gate is read as JSON against its schema: a case run comes back whole,
and anything else (a pickle, a frame over the size limit, JSON nested without end, NUL, bytes that are not UTF-8,
a message of no kind the gate knows) is ``BadMessage``, never run and never an error of the gate."""

from __future__ import annotations

import multiprocessing
import pickle
import socket
from collections.abc import Iterator
from multiprocessing.connection import Connection

import pydantic
import pytest

from adk_eval_gate.metrics.efficiency import DurationDetails, TurnFacts
from adk_eval_gate.model.tokens import Tokens
from adk_eval_gate.runners.agents import AgentError
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.runners.workers import messages
from adk_eval_gate.runners.workers.messages import BadMessage, Cancelled, Done, Ready
from adk_eval_gate.runners.workers.starter import Starter


class _Unpickled:
    ran = False

    def __reduce__(self) -> tuple[object, tuple[()]]:
        return (_mark, ())


def _mark() -> None:
    _Unpickled.ran = True


@pytest.fixture
def pipe() -> Iterator[tuple[Connection, Connection]]:
    ours, theirs = multiprocessing.Pipe()
    yield ours, theirs
    ours.close()
    theirs.close()


def test_a_case_run_crosses_whole_as_json() -> None:
    sent = Inference(
        turns=[{"out": "sunny"}],
        facts=[TurnFacts([Tokens(model="m", input_tokens=3)], 1, DurationDetails(total_seconds=0.5))],
        notes=["cut"],
        final_session_state={"k": [1, None]},
        retry_after=float("inf"),
    )
    message = messages.worker_message(messages.encode_run(7, sent))
    assert isinstance(message, Done) and message.request == 7
    received = message.run.inference()
    assert received.facts == sent.facts and received.turns == sent.turns
    assert (received.notes, received.final_session_state, received.retry_after) == (
        ["cut"],
        {"k": [1, None]},
        sent.retry_after,
    )


def test_an_agent_that_cannot_be_imported_crosses_as_its_error() -> None:
    error = AgentError("has no root_agent", hint="define one", source_file="bot/agent.py", source_line=3)
    ready = Ready(problems=[messages.AgentProblem.of(error)], secrets=["s3cret-value"])
    message = messages.worker_message(messages.framed(ready))
    assert isinstance(message, Ready)
    assert message.problems[0].error() == error and message.secrets == ["s3cret-value"]


def test_a_pickle_on_the_connection_is_refused_and_never_unpickled(pipe: tuple[Connection, Connection]) -> None:
    ours, theirs = pipe
    theirs.send(_Unpickled())
    with pytest.raises(BadMessage, match="not the gate's"):
        messages.worker_message(messages.receive_frame(ours))
    assert not _Unpickled.ran


def test_a_frame_over_the_limit_is_refused_before_it_is_read(
    pipe: tuple[Connection, Connection], monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, theirs = pipe
    monkeypatch.setattr(messages, "MAX_MESSAGE_BYTES", 64)
    theirs.send_bytes(messages.framed(Cancelled(request=1)) + b" " * 100)
    with pytest.raises(BadMessage, match="larger than"):
        messages.receive_frame(ours)


@pytest.mark.parametrize(
    "frame",
    [
        b"[" * 100_000 + b"]" * 100_000,  # nested without end
        b'{"kind": "cancelled", "request": 1}\x00',
        b'{"kind": "cancelled", "request": "\xff\xfe"}',
        b'{"kind": "done", "request": 1, "run": {"turns": "not turns"}}',
        b'{"kind": "verdict", "status": "passed"}',
        b'{"kind": "cancelled", "request": 1, "and": "more"}',
        b"",
    ],
    ids=["deep", "nul", "not-utf8", "wrong-shape", "unknown-kind", "extra-field", "empty"],
)
def test_a_frame_that_is_not_a_message_of_the_gate_s_is_refused(frame: bytes) -> None:
    with pytest.raises(BadMessage, match="not the gate's"):
        messages.worker_message(frame)


def test_a_done_that_carries_scores_is_refused_the_gate_scores_every_metric_itself() -> None:
    forged = {"exact_match": {"score": 1.0, "per_invocation": []}}
    frame = messages.to_json({"kind": "done", "request": 1, "run": {"turns": [], "scored": forged}})
    with pytest.raises(BadMessage, match=r"run\.scored"):
        messages.worker_message(frame)


def test_a_call_s_answer_is_read_against_the_schema_its_caller_gives() -> None:
    schema = pydantic.TypeAdapter(dict[str, str])
    answer = messages.call_answer(messages.to_json({"returned": {"m.f": "cannot import"}}))
    assert messages.call_result(answer.returned, schema) == {"m.f": "cannot import"}
    with pytest.raises(BadMessage):
        messages.call_result({"m.f": ["not", "text"]}, schema)
    with pytest.raises(BadMessage):
        messages.call_answer(pickle.dumps({"returned": {}}))


def test_the_worker_starter_s_message_of_no_known_shape_is_its_failure() -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    starter = Starter(pid=0, control=ours, output=-1)
    try:
        theirs.send(pickle.dumps(("forked", 1, 2)))
        assert starter.receive() == ("failed", "the worker starter sent a message that is not one of the gate's")
        theirs.send(b'["exited", 1, null]')
        assert starter.receive() == ("exited", 1, None)
    finally:
        ours.close()
        theirs.close()

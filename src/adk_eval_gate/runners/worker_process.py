"""The worker process's side of ``workers``: set up its output, import the agents, run what the main process
sends, and send back the inferences (encoded so that a pipe can carry them)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from typing import Any

import pydantic

from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.model.evalset import Invocation
from adk_eval_gate.model.tokens import Tokens
from adk_eval_gate.runners.base import Inference, contain_exits, describe_escape, settled
from adk_eval_gate.support.masking import drop_github_token

RunOne = Callable[[WorkItem], Awaitable[Inference]]
Setup = Callable[[list[WorkItem]], Awaitable[Any]]  # what it returns goes to the main process (picklable)

_INVOCATIONS = pydantic.TypeAdapter(list[Invocation])


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def encode(inference: Inference) -> dict[str, Any]:
    inference = settled(inference)  # pydantic cannot serialize lone surrogates or values nested ~250 deep
    return {
        "invocations": _INVOCATIONS.dump_json(inference.invocations, exclude_none=True),
        "error": inference.error,
        "session_id": inference.session_id,
        "duration_seconds": inference.duration_seconds,
        "retryable": inference.retryable,
        "retry_after": inference.retry_after,
        "notes": inference.notes,
        "log": inference.log,
        "simulator_calls": [call.model_dump() for call in inference.simulator_calls],
        "final_session_state": inference.final_session_state,
        "observed": inference.observed,
    }


def decode(data: dict[str, Any]) -> Inference:
    return Inference(
        invocations=_INVOCATIONS.validate_json(data["invocations"]),
        error=data["error"],
        session_id=data["session_id"],
        duration_seconds=data["duration_seconds"],
        retryable=data["retryable"],
        retry_after=data["retry_after"],
        notes=data["notes"],
        log=data["log"],
        simulator_calls=[Tokens.model_validate(call) for call in data["simulator_calls"]],
        final_session_state=data["final_session_state"],
        observed=data.get("observed"),
    )


def worker_main(
    conn: Connection, *, others: list[int], output: int, items: list[WorkItem], setup: Setup, run: RunOne
) -> None:
    _become_worker(others=others, output=output)
    asyncio.run(_serve(conn, items=items, setup=setup, run=run))


def call_main(conn: Connection, work: Callable[[], Any], *, others: list[int], output: int) -> None:
    """The process of ``workers.call_in_worker``: ``work()``, and its result (or why it raised) sent back."""
    _become_worker(others=others, output=output)
    try:
        answer: tuple[str, Any] = ("returned", work())
    except BaseException as error:  # whatever the code it imports raises, the caller gets one line
        answer = ("raised", f"{type(error).__name__}: {error}".removesuffix(": "))
    conn.send(answer)
    conn.close()


def _become_worker(*, others: list[int], output: int) -> None:
    """Signals left to the main process; the main process's pipes closed; all output into the ``output`` pipe; no
    GitHub token in the environment of agent code (``run`` drops it everywhere; pytest's own process keeps it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group; the main process decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    drop_github_token(os.environ, None)
    for fd in others:
        with contextlib.suppress(OSError):
            os.close(fd)
    os.dup2(output, 1)  # everything the agent and its libraries print, down to the C level, goes to the main process
    os.dup2(output, 2)
    os.close(output)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, f"__{name}__")
        if stream is not None:
            with contextlib.suppress(AttributeError, ValueError):
                stream.reconfigure(line_buffering=True)
            setattr(sys, name, stream)


async def _serve(conn: Connection, *, items: list[WorkItem], setup: Setup, run: RunOne) -> None:
    loop = asyncio.get_running_loop()
    contain_exits(loop)
    send_lock = threading.Lock()
    stopped = asyncio.Event()
    tasks: dict[int, asyncio.Task[None]] = {}

    def send(message: tuple[Any, ...]) -> None:
        with send_lock:
            conn.send(message)

    async def run_one(request: int, index: int, run_number: int) -> None:
        item = items[index]
        try:
            inference = await run(item if item.run == run_number else dataclasses.replace(item, run=run_number))
        except asyncio.CancelledError:
            return
        except BaseException as error:  # a runner bug or a sys.exit() in agent code must not stop the worker
            inference = Inference(error=describe_escape(error))
        finally:
            tasks.pop(request, None)
        send(("done", request, encode(inference)))

    def on_message(message: tuple[Any, ...]) -> None:
        if message[0] == "run":
            tasks[message[1]] = loop.create_task(run_one(message[1], message[2], message[3]))
        elif message[0] == "cancel":
            if message[1] in tasks:
                tasks[message[1]].cancel()
            send(("cancelled", message[1]))  # only a free event loop gets here: the main process waits for it
        elif message[0] == "stop":
            stopped.set()

    def read() -> None:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                message = ("stop",)
            loop.call_soon_threadsafe(on_message, message)
            if message[0] == "stop":
                return

    prepared = await setup(items)
    gc.freeze()  # the imported agents live as long as the worker: keep them out of the collector's sweeps
    send(("ready", prepared))
    threading.Thread(target=read, name="adk-eval-gate-worker-reader", daemon=True).start()
    await stopped.wait()
    for task in list(tasks.values()):
        task.cancel()

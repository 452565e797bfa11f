"""An agent worker process as the main process sees it (``pool.WorkerPool``): its connection and output pipe, the
case runs it holds (``Request``), and how its end is said (``death``): a worker killed by a SIGKILL the gate did
not send is lost (``is_lost``), and its case runs may run again."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.runners.workers.forked_call import ended


@dataclass
class Request:
    index: int  # into the work items the workers were started with
    run: int  # the item's run: a re-run (--confirm-failures) is a started item with a later run number
    future: asyncio.Future[Inference]
    retries: list[str] = field(default_factory=list)  # why it was run again on another worker (``Inference.retries``)


@dataclass
class Worker:
    number: int
    conn: Connection
    output: int  # read end of the pipe that carries the worker's stdout and stderr
    ended: asyncio.Future[None]  # the starter reported that it ended (``exitcode``)
    pid: int | None = None  # known once the starter has forked it
    exitcode: int | None = None
    pending: dict[int, Request] = field(default_factory=dict)
    acks: dict[int, asyncio.Future[None]] = field(default_factory=dict)
    ready: asyncio.Future[None] | None = None
    alive: bool = True
    killed: str | None = None  # why this process killed it (its other case runs are not to blame)
    refused: str | None = None  # what it sent that is not a message of the gate's (it is killed: its runs fail)
    kill_when_forked: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, message: tuple[Any, ...]) -> None:
        with self.lock:
            self.conn.send(message)

    def kill(self) -> None:
        if self.pid is None:
            self.kill_when_forked = True
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


def is_lost(worker: Worker) -> bool:
    """Killed by a SIGKILL this process did not send (the out-of-memory killer, another process): not the agent's
    own error, so its case runs may run again; an exit (``os._exit``) or a crash (SIGSEGV) is the agent's."""
    return worker.killed is None and worker.exitcode == -signal.SIGKILL


def death(worker: Worker) -> str:
    if worker.refused is not None:
        return f"the agent worker process {worker.number} {worker.refused}"
    how = ended(worker.exitcode) if worker.ended.done() else "ended"
    why = (
        "not by the gate: the out-of-memory killer or another process"
        if is_lost(worker)
        else "the agent or a tool called os._exit() or crashed"
    )
    return f"the agent worker process {worker.number} {how} ({why})"

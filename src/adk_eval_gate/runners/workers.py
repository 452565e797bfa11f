"""Agent worker processes: the adk runner's case runs spread over several processes, one event loop each.

An ADK agent turn costs a few milliseconds of CPU, so one process saturates long before a high ``--parallelism``
of latency-bound cases does. The pool forks its workers before any agent is imported (so connections an agent
opens at import time are never shared between processes); each worker imports the agents itself, then runs the
case runs the main process sends it (by index into the same work items, which it inherited), concurrently, and
sends back the actual invocations. Scoring, progress and reports stay in the main process.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import multiprocessing
import os
import signal
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import pydantic

from adk_eval_gate.evalset import Invocation
from adk_eval_gate.plan import WorkItem
from adk_eval_gate.runners.base import Inference

RunOne = Callable[[WorkItem], Awaitable[Inference]]
Setup = Callable[[list[WorkItem]], Awaitable[None]]

_INVOCATIONS = pydantic.TypeAdapter(list[Invocation])


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def encode(inference: Inference) -> dict[str, Any]:
    return {
        "invocations": _INVOCATIONS.dump_json(inference.invocations, exclude_none=True),
        "error": inference.error,
        "session_id": inference.session_id,
        "duration_seconds": inference.duration_seconds,
        "retryable": inference.retryable,
        "retry_after": inference.retry_after,
    }


def decode(data: dict[str, Any]) -> Inference:
    return Inference(
        invocations=_INVOCATIONS.validate_json(data["invocations"]),
        error=data["error"],
        session_id=data["session_id"],
        duration_seconds=data["duration_seconds"],
        retryable=data["retryable"],
        retry_after=data["retry_after"],
    )


# ---------------------------------------------------------------------------------------------------------
# The worker process


def _worker_main(
    conn: Connection, *, others: list[Connection], items: list[WorkItem], setup: Setup, run: RunOne
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group; the main process decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for other in others:
        other.close()
    asyncio.run(_serve(conn, items=items, setup=setup, run=run))


async def _serve(conn: Connection, *, items: list[WorkItem], setup: Setup, run: RunOne) -> None:
    loop = asyncio.get_running_loop()
    send_lock = threading.Lock()
    stopped = asyncio.Event()
    tasks: dict[int, asyncio.Task[None]] = {}

    def send(message: tuple[Any, ...]) -> None:
        with send_lock:
            conn.send(message)

    async def run_one(request: int, index: int) -> None:
        try:
            inference = await run(items[index])
        except asyncio.CancelledError:
            return
        except Exception as error:  # a runner bug must not stop the worker
            inference = Inference(error=f"{type(error).__name__}: {error}")
        finally:
            tasks.pop(request, None)
        send(("done", request, encode(inference)))

    def on_message(message: tuple[Any, ...]) -> None:
        if message[0] == "run":
            tasks[message[1]] = loop.create_task(run_one(message[1], message[2]))
        elif message[0] == "cancel" and message[1] in tasks:
            tasks[message[1]].cancel()
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

    await setup(items)
    gc.freeze()  # the imported agents live as long as the worker: keep them out of the collector's sweeps
    send(("ready",))
    threading.Thread(target=read, name="adk-eval-gate-worker-reader", daemon=True).start()
    await stopped.wait()
    for task in list(tasks.values()):
        task.cancel()


# ---------------------------------------------------------------------------------------------------------
# The main process's side


@dataclass
class _Worker:
    number: int
    process: Any  # multiprocessing.Process
    conn: Connection
    pending: dict[int, asyncio.Future[Inference]] = field(default_factory=dict)
    ready: asyncio.Future[None] | None = None
    alive: bool = True
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, message: tuple[Any, ...]) -> None:
        with self.lock:
            self.conn.send(message)


class WorkerPool:
    def __init__(self, *, count: int, setup: Setup, run: RunOne) -> None:
        self.count = count
        self.setup = setup
        self.run = run
        self.workers: list[_Worker] = []
        self._index: dict[int, int] = {}
        self._requests = itertools.count(1)

    def start(self, items: list[WorkItem]) -> None:
        """Forks the workers; they import the agents while this process goes on (``wait_ready`` waits for them)."""
        loop = asyncio.get_running_loop()
        self._index = {id(item): index for index, item in enumerate(items)}
        context = multiprocessing.get_context("fork")
        ends: list[Connection] = []
        for number in range(self.count):
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_worker_main,
                args=(theirs,),
                kwargs={"others": list(ends), "items": items, "setup": self.setup, "run": self.run},
                name=f"adk-eval-gate-worker-{number + 1}",
                daemon=True,
            )
            process.start()
            theirs.close()
            ends.append(ours)
            self.workers.append(_Worker(number + 1, process, ours, ready=loop.create_future()))
        for worker in self.workers:  # reader threads only after the last fork: a fork copies no running thread
            threading.Thread(
                target=self._read, args=(worker, loop), name=f"adk-eval-gate-pool-{worker.number}", daemon=True
            ).start()

    async def wait_ready(self) -> None:
        await asyncio.gather(*(worker.ready for worker in self.workers if worker.ready is not None))

    def _read(self, worker: _Worker, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                message = None
            try:
                if message is None:
                    loop.call_soon_threadsafe(self._died, worker)
                    return
                loop.call_soon_threadsafe(self._received, worker, message)
            except RuntimeError:  # the event loop is closed: the run is over
                return

    def _received(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        if message[0] == "ready" and worker.ready is not None and not worker.ready.done():
            worker.ready.set_result(None)
        elif message[0] == "done":
            future = worker.pending.pop(message[1], None)
            if future is not None and not future.done():
                future.set_result(decode(message[2]))

    def _died(self, worker: _Worker) -> None:
        if not worker.alive:
            return
        worker.alive = False
        worker.process.join(timeout=1)
        reason = f"the agent worker process {worker.number} exited (exit code {worker.process.exitcode})"
        if worker.ready is not None and not worker.ready.done():
            worker.ready.set_result(None)  # its case runs fail below; the other workers go on
        for future in worker.pending.values():
            if not future.done():
                future.set_result(Inference(error=f"{reason} while running this case"))
        worker.pending.clear()

    async def infer(self, item: WorkItem) -> Inference:
        alive = [worker for worker in self.workers if worker.alive]
        if not alive:
            return Inference(error="every agent worker process has exited; see the log above for why")
        worker = min(alive, key=lambda candidate: len(candidate.pending))
        request = next(self._requests)
        future: asyncio.Future[Inference] = asyncio.get_running_loop().create_future()
        worker.pending[request] = future
        try:
            worker.send(("run", request, self._index[id(item)]))
            return await future
        except asyncio.CancelledError:
            worker.pending.pop(request, None)
            if worker.alive:
                worker.send(("cancel", request))
            raise
        except (OSError, ValueError) as error:
            worker.pending.pop(request, None)
            return Inference(error=f"could not reach agent worker process {worker.number}: {error}")

    async def close(self) -> None:
        for worker in self.workers:
            if worker.alive:
                with contextlib.suppress(OSError, ValueError):
                    worker.send(("stop",))
        for worker in self.workers:
            await asyncio.to_thread(worker.process.join, 5)
            if worker.process.is_alive():
                worker.process.terminate()
                await asyncio.to_thread(worker.process.join, 5)
            worker.conn.close()


def default_worker_count(parallelism: int) -> int:
    """One process per 16 concurrent case runs, at most one per core (1: run in this process)."""
    if not fork_available():
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, parallelism // 16))

"""Agent worker processes: the adk runner's case runs happen in processes of their own, one event loop each.

Agent code is untrusted in one sense: it can end or stall the process it runs in. In a worker, ``os._exit``, a
crash, or a tool that blocks the event loop (``time.sleep(3600)``, a busy loop) cannot take the gate with it: the
main process's event loop stays free to time a case run out, to answer a signal, and to write the reports. When a
case run's time is up, the worker is asked to cancel it; a worker whose event loop does not answer within
``CANCEL_GRACE`` seconds is blocked, so it is killed, and the other case runs it held are run again on a
replacement (each such run records it: ``Inference.retries``). A worker that dies on its own fails the case runs it
held (one of them killed it) and is replaced; one killed by a SIGKILL the gate did not send (the out-of-memory
killer) is lost, and its case runs may run again (``worker_handle.is_lost``).

Several workers also spread the CPU: an ADK agent turn costs a few milliseconds, so one process saturates long
before a high ``--parallelism`` of latency-bound cases does. Workers are forked by the worker starter
(``starter``), which imported google-adk and warmed it up while this process planned the run, and before
any agent is imported (connections an agent opens at import time are never shared). Each gets its job (``Job``,
what makes it run the agents) with the work items, imports the agents itself (and sends what ``load_agents``
returned with its ``ready``: the agents that failed, in ``setup_results``), runs the case runs this process sends
(by index into the work items) and sends back what ``runners.capture`` keeps of each, as JSON read against its
schema (``messages``; a worker's message is never unpickled: one that is too large or not of its schema is that
worker's end, and the end of the case runs it held); what it prints reaches this process through a pipe
(``on_output``). The metrics that need the judge or user code, progress and reports stay
in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import pickle
import threading
from collections.abc import Callable

from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.runners.workers.messages import BadMessage, Cancelled, Done, Ready, receive_frame, worker_message
from adk_eval_gate.runners.workers.starter import Starter, StarterMessage
from adk_eval_gate.runners.workers.worker_handle import Request, Worker, death, is_lost
from adk_eval_gate.runners.workers.worker_side import Job, fork_available
from adk_eval_gate.support.console import relay_lines

CANCEL_GRACE = 2.0  # seconds a worker's event loop has to answer a cancel before it counts as blocked
MAX_REPLACEMENTS = 16  # workers started after the first ones (a crash on every case must not fork forever)
EXIT_WAIT = 2.0  # seconds to wait for the starter to report how a worker that closed its connection ended

# ---------------------------------------------------------------------------------------------------------
# The main process's side


class WorkerPool:
    def __init__(
        self,
        *,
        count: int,
        job: Job,
        warm: Callable[[], None],
        starter: Starter | None = None,
        on_output: Callable[[str], None] | None = None,
        cancel_grace: float = CANCEL_GRACE,
    ) -> None:
        """``job``: what makes a worker run the agents (picklable); ``warm``: what the starter runs before it forks
        workers, when there is no ``starter`` yet (one started early, ``AdkRunner.start_early``)."""
        self.count = count
        self.job = job
        self.warm = warm
        self.starter = starter
        self.on_output = on_output or (lambda line: None)
        self.cancel_grace = cancel_grace
        self.workers: list[Worker] = []
        self._items: list[WorkItem] = []
        self._job = b""
        self._index: dict[int, int] = {}
        self._by_case: dict[tuple[int, int], int] = {}
        self._requests = itertools.count(1)
        self._where: dict[int, Worker] = {}
        self._watchdogs: set[asyncio.Task[None]] = set()
        self._replacements = 0
        self._unloadable = False
        self._last_death = "every agent worker process has exited"
        self._starter_failed: str | None = None
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self.setup_results: list[Ready] = []  # what ``load_agents`` returned in each worker that finished it

    def start(self, items: list[WorkItem]) -> None:
        """Has the workers forked; they import the agents while this process goes on (``wait_ready``)."""
        self._loop = asyncio.get_running_loop()
        self._items = items
        self._job = pickle.dumps((self.job, items), protocol=pickle.HIGHEST_PROTOCOL)
        self._index = {id(item): index for index, item in enumerate(items)}
        self._by_case = {(id(item.file), item.case_index): index for index, item in enumerate(items)}
        starter = self.starter = self.starter or Starter.start(self.warm)
        threading.Thread(
            target=self._hear, args=(starter, self._loop), name="adk-eval-gate-starter", daemon=True
        ).start()
        threading.Thread(
            target=relay_lines, args=(starter.output, self.on_output), name="adk-eval-gate-starter-output", daemon=True
        ).start()
        for _ in range(self.count):
            self._fork()

    def _fork(self) -> Worker | None:
        """A new worker; None when the starter is gone (killed by agent code: no worker can start any more)."""
        assert self._loop is not None and self.starter is not None
        number = len(self.workers) + 1
        try:
            conn, output = self.starter.fork(number)
        except OSError as error:
            self._unloadable = True
            self._last_death = self._starter_failed = f"the agent worker starter process is gone ({error})"
            return None
        worker = Worker(number, conn, output, ended=self._loop.create_future(), ready=self._loop.create_future())
        self.workers.append(worker)
        threading.Thread(
            target=self._read, args=(worker, self._loop), name=f"adk-eval-gate-pool-{number}", daemon=True
        ).start()
        threading.Thread(
            target=relay_lines, args=(output, self.on_output), name=f"adk-eval-gate-output-{number}", daemon=True
        ).start()
        return worker

    def _hear(self, starter: Starter, loop: asyncio.AbstractEventLoop) -> None:
        """What the starter says about the workers (forked, ended) or itself (failed), until it is gone."""
        while (message := starter.receive()) is not None:
            try:
                loop.call_soon_threadsafe(self._heard, message)
            except RuntimeError:  # the event loop is closed: the run is over
                return

    def _heard(self, message: StarterMessage) -> None:
        if message[0] == "failed":
            self._unloadable = True
            self._last_death = self._starter_failed = f"the agent worker processes could not start: {message[1]}"
            for worker in self.workers:
                if worker.ready is not None and not worker.ready.done():
                    worker.ready.set_result(None)
            return
        if not 0 < message[1] <= len(self.workers):
            return
        worker = self.workers[message[1] - 1]
        if message[0] == "forked":
            worker.pid = message[2]
            if worker.kill_when_forked:
                worker.kill()
        elif message[0] == "exited" and not worker.ended.done():
            worker.exitcode = message[2]
            worker.ended.set_result(None)

    async def wait_ready(self) -> None:
        await asyncio.gather(*(worker.ready for worker in self.workers if worker.ready is not None))

    def _read(self, worker: Worker, loop: asyncio.AbstractEventLoop) -> None:
        """Sends the worker its job, then passes on what it says until its connection closes."""
        with contextlib.suppress(OSError, ValueError):  # gone already: the next read says so
            worker.send(("job", self._job))
        while True:
            message: Ready | Done | Cancelled | None = None
            try:
                message = worker_message(receive_frame(worker.conn))
            except BadMessage as error:
                worker.refused = f"sent {error}: code it runs wrote on the gate's connection"
                worker.kill()
            except (EOFError, OSError):
                pass
            try:
                if message is None:
                    loop.call_soon_threadsafe(self._died, worker)
                    return
                loop.call_soon_threadsafe(self._received, worker, message)
            except RuntimeError:  # the event loop is closed: the run is over
                return

    def _received(self, worker: Worker, message: Ready | Done | Cancelled) -> None:
        if isinstance(message, Ready) and worker.ready is not None and not worker.ready.done():
            self.setup_results.append(message)
            worker.ready.set_result(None)
        elif isinstance(message, Done):
            request = worker.pending.pop(message.request, None)
            self._where.pop(message.request, None)
            if request is not None and not request.future.done():
                request.future.set_result(message.run.inference())
        elif isinstance(message, Cancelled):
            ack = worker.acks.pop(message.request, None)
            if ack is not None and not ack.done():
                ack.set_result(None)

    def _died(self, worker: Worker) -> None:
        """Its connection closed: no new case run goes to it; what it held is settled once its end is known."""
        if not worker.alive:
            return
        worker.alive = False
        task = asyncio.ensure_future(self._settle(worker))
        self._watchdogs.add(task)
        task.add_done_callback(self._watchdogs.discard)

    async def _settle(self, worker: Worker) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(worker.ended), EXIT_WAIT)
        self._last_death = self._starter_failed or death(worker)
        if worker.ready is not None and not worker.ready.done():
            worker.ready.set_result(None)  # its case runs fail or move below; the other workers go on
            self._unloadable = True  # it died importing the agents: a replacement would too
            self._last_death += "" if self._starter_failed else " while it imported the agents"
        for ack in worker.acks.values():
            if not ack.done():
                ack.set_result(None)
        pending, worker.pending = worker.pending, {}
        if self._closing:
            for request in pending.values():
                if not request.future.done():
                    request.future.cancel()
            return
        if worker.killed is None:
            reason, lost = self._last_death, is_lost(worker)
            for request in pending.values():
                if not request.future.done():
                    request.future.set_result(Inference(error=f"{reason} while running this case run", retryable=lost))
            pending = {}
        replacement = self._replace()
        for number, request in pending.items():  # innocent case runs of a worker this process killed
            request.retries.append(f"the agent worker process {worker.number} was stopped: {worker.killed}")
            self._dispatch(number, request, replacement)

    def _replace(self) -> Worker | None:
        if self._unloadable or self._replacements >= MAX_REPLACEMENTS:
            return None
        if sum(w.alive for w in self.workers) >= self.count:
            return None
        self._replacements += 1
        return self._fork()

    def _choose(self) -> Worker | None:
        alive = [worker for worker in self.workers if worker.alive]
        if not alive:
            return self._replace()
        return min(alive, key=lambda candidate: len(candidate.pending))

    def _dispatch(self, number: int, request: Request, worker: Worker | None = None) -> None:
        worker = worker or self._choose()
        if worker is None:
            if not request.future.done():
                request.future.set_result(Inference(error=f"no agent worker process is left: {self._last_death}"))
            return
        worker.pending[number] = request
        self._where[number] = worker
        try:
            worker.send(("run", number, request.index, request.run))
        except (OSError, ValueError) as error:
            worker.pending.pop(number, None)
            self._where.pop(number, None)
            if not request.future.done():
                request.future.set_result(
                    Inference(error=f"could not reach agent worker process {worker.number}: {error}")
                )

    async def infer(self, item: WorkItem) -> Inference:
        number = next(self._requests)
        index = self._index.get(id(item))
        if index is None:
            index = self._by_case[id(item.file), item.case_index]
        request = Request(index, item.run, asyncio.get_running_loop().create_future())
        self._dispatch(number, request)
        try:
            inference = await request.future
        except asyncio.CancelledError:
            self._cancel(number)
            raise
        inference.retries = [*request.retries, *inference.retries]
        return inference

    def _cancel(self, number: int) -> None:
        """The case run's time is up (or the run stops): ask its worker to cancel it, and watch that it can."""
        worker = self._where.pop(number, None)
        if worker is None or not worker.alive:
            return
        worker.pending.pop(number, None)
        ack: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        worker.acks[number] = ack
        try:
            worker.send(("cancel", number))
        except (OSError, ValueError):
            return
        watchdog = asyncio.ensure_future(self._watch(worker, number, ack))
        self._watchdogs.add(watchdog)
        watchdog.add_done_callback(self._watchdogs.discard)

    async def _watch(self, worker: Worker, number: int, ack: asyncio.Future[None]) -> None:
        try:
            await asyncio.wait_for(ack, self.cancel_grace)
        except asyncio.TimeoutError:
            if worker.alive and worker.killed is None:
                worker.killed = f"its event loop did not answer within {self.cancel_grace:g} s (a tool blocks it)"
                worker.kill()
        finally:
            worker.acks.pop(number, None)

    async def close(self) -> None:
        self._closing = True
        for watchdog in list(self._watchdogs):
            watchdog.cancel()
        for worker in self.workers:
            if worker.alive:
                with contextlib.suppress(OSError, ValueError):
                    worker.send(("stop",))
        waiting = [worker.ended for worker in self.workers if not worker.ended.done()]
        if waiting:
            await asyncio.wait(waiting, timeout=2)
        for worker in self.workers:
            if not worker.ended.done():
                worker.kill()  # blocked by a tool: it cannot stop by itself
        if self.starter is not None:
            await asyncio.to_thread(self.starter.close)  # it reaps every worker before it ends
        for worker in self.workers:
            worker.conn.close()


def default_worker_count(parallelism: int) -> int:
    """One process per core, at most one per case run at once, at least one (0: no fork, run in process)."""
    if not fork_available():
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, parallelism))

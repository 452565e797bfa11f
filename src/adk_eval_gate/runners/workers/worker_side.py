"""The worker process's side of the pool (``pool``): set up its output, receive the job (what makes it run the agents,
and the work items), import the agents, run what the main process sends, and send back what ``runners.capture`` keeps of
each case run (``messages``: JSON, never a pickle)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Protocol

from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.model.compact import AppTable
from adk_eval_gate.runners import runlog
from adk_eval_gate.runners.agents import AgentError
from adk_eval_gate.runners.capture import capture
from adk_eval_gate.runners.runner import Inference, contain_exits, describe_escape
from adk_eval_gate.runners.workers import messages
from adk_eval_gate.support.collector import settle_heap
from adk_eval_gate.support.masking import drop_github_token


class Imported(Protocol):
    """What importing the agents left (``AdkRunner.load_agents``): the agents that cannot be used, the secrets in
    the environment then."""

    problems: list[AgentError]
    secrets: list[str]


class Serving(Protocol):
    """What a worker makes of its job (``AdkRunner.serving``): the agents imported, then one case run at a time."""

    verbose: bool

    async def load_agents(self, items: list[WorkItem]) -> Imported:
        """Imports the items' agents; what it returns goes to the main process (``messages.Ready``)."""
        ...

    async def run_here(self, item: WorkItem) -> Inference: ...


Job = Callable[[], Serving]  # picklable: the main process sends it, with the work items, to each worker


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


class Finisher:
    """What a worker does with a case run before it sends it: ``capture`` (settled, compact), each app details sent
    once. It scores nothing: the gate scores every metric from the turns, out of reach of the agent's code."""

    def __init__(self) -> None:
        self.apps = AppTable()
        self.sent: set[str] = set()

    async def finish(self, item: WorkItem, inference: Inference) -> Inference:
        capture(item.case, inference, apps=self.apps)
        named = {turn["app"] for turn in inference.turns or [] if isinstance(turn.get("app"), str)}
        inference.app_details = {key: self.apps.table[key] for key in named - self.sent}
        self.sent |= named
        return inference


def worker_main(conn: Connection, *, others: list[int], output: int) -> None:
    """A worker's life (forked by ``starter``): its job first, then the case runs until told to stop."""
    become_worker(others=others, output=output)
    try:
        message = conn.recv()
    except (EOFError, OSError):
        return  # the main process is gone
    if message[0] != "job":
        return
    job, items = pickle.loads(message[1])
    serving = job()
    with runlog.installed(_print_line, verbose=serving.verbose):
        asyncio.run(_serve(conn, items=items, serving=serving))


def _print_line(line: str) -> None:
    print(line, flush=True)  # into the output pipe: the main process masks and escapes it


def call_main(conn: Connection, work: Callable[[], Any], *, others: list[int], output: int) -> None:
    """The process of ``forked_call.call_in_worker``: ``work()``, and its result (or why it raised) sent back."""
    become_worker(others=others, output=output)
    try:
        frame = messages.to_json({"returned": work()})
    except BaseException as error:  # whatever the code it imports raises, the caller gets one line
        frame = messages.to_json({"raised": f"{type(error).__name__}: {error}".removesuffix(": ")})
    with contextlib.suppress(OSError):  # the caller is gone, or stopped reading (it refused what came first)
        messages.send(conn, frame)
    conn.close()


def become_worker(*, others: list[int], output: int) -> None:
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


async def _serve(conn: Connection, *, items: list[WorkItem], serving: Serving) -> None:
    loop = asyncio.get_running_loop()
    contain_exits(loop)
    send_lock = threading.Lock()
    stopped = asyncio.Event()
    tasks: dict[int, asyncio.Task[None]] = {}

    def send(frame: bytes) -> None:
        with send_lock:
            messages.send(conn, frame)

    finisher = Finisher()

    async def run_one(request: int, index: int, run_number: int) -> None:
        item = items[index] if items[index].run == run_number else dataclasses.replace(items[index], run=run_number)
        try:
            inference = await finisher.finish(item, await serving.run_here(item))
        except asyncio.CancelledError:
            return
        except BaseException as error:  # a runner bug or a sys.exit() in agent code must not stop the worker
            inference = Inference(error=describe_escape(error))
        finally:
            tasks.pop(request, None)
        send(messages.encode_run(request, inference))

    def on_message(message: tuple[Any, ...]) -> None:
        if message[0] == "run":
            tasks[message[1]] = loop.create_task(run_one(message[1], message[2], message[3]))
        elif message[0] == "cancel":
            if message[1] in tasks:
                tasks[message[1]].cancel()
            # only a free event loop gets here: the main process waits for it
            send(messages.framed(messages.Cancelled(request=message[1])))
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

    prepared = await serving.load_agents(items)
    settle_heap()  # the imported agents live as long as the worker
    problems = [messages.AgentProblem.of(problem) for problem in prepared.problems]
    send(messages.framed(messages.Ready(problems=problems, secrets=prepared.secrets)))
    threading.Thread(target=read, name="adk-eval-gate-worker-reader", daemon=True).start()
    await stopped.wait()
    for task in list(tasks.values()):
        task.cancel()

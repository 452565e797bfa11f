"""The worker starter: one process, forked from the main process as soon as ``run`` knows it runs agents, that imports
google-adk and runs one warm-up turn (what ADK otherwise imports on a first turn) while the main process discovers,
loads and plans; it then forks the agent worker processes, which inherit all of it.

So ADK is imported once per run, in parallel with the main process's own start, and never in the main process
(unless it runs the agents itself, ``--workers 0``); every worker starts warm. The starter runs no agent code: a
worker is forked before it imports any agent (connections an agent opens at import time are never shared).

The main process and the starter talk over a Unix socket (``Starter``): the main process asks for a worker with the
two ends that worker will own (its connection and the write end of its output pipe, passed as file descriptors);
the starter answers with the worker's pid, and with its exit code when it ends (the starter is its parent and reaps
it). When the main process closes the socket (it stops, or it died), the starter ends its workers and exits. Both
ways a message is a small JSON list, read against its shape (``StarterMessage``); never a pickle.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Literal, NoReturn

import pydantic

from adk_eval_gate.runners.workers.worker_side import become_worker, worker_main
from adk_eval_gate.support.collector import settle_heap

MESSAGE_BYTES = 4096
STOP_GRACE = 5.0  # seconds the starter gives its workers to end once the main process has gone

StarterMessage = (
    tuple[Literal["forked"], int, int] | tuple[Literal["exited"], int, int | None] | tuple[Literal["failed"], str]
)
_STARTER_MESSAGE: pydantic.TypeAdapter[StarterMessage] = pydantic.TypeAdapter(StarterMessage)


class Starter:
    """The main process's handle on the worker starter."""

    def __init__(self, pid: int, control: socket.socket, output: int) -> None:
        self.pid = pid
        self.control = control
        self.output = output  # read end of the pipe that carries what the starter prints
        self._lock = threading.Lock()
        self.closed = False
        self.asked = False  # for a worker: until then the starter holds nothing but what it imported

    @classmethod
    def start(cls, warm: Callable[[], None]) -> Starter:
        """Forks the starter; ``warm()`` runs in it (imports and warm-up) before it forks any worker."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        output_read, output_write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the starter: it never returns

            def serve() -> None:
                ours.close()
                become_worker(others=[output_read], output=output_write)
                _serve(theirs, warm)

            _child_process(serve)
        theirs.close()
        os.close(output_write)
        return cls(pid, ours, output_read)

    def fork(self, number: int) -> tuple[Connection, int]:
        """Asks for worker ``number``: this process's connection to it and the read end of its output pipe."""
        ours, theirs = multiprocessing.Pipe()
        output_read, output_write = os.pipe()
        self.asked = True
        try:
            with self._lock:
                socket.send_fds(self.control, [_encoded(("fork", number))], [theirs.fileno(), output_write])
        finally:
            theirs.close()
            os.close(output_write)
        return ours, output_read

    def receive(self) -> StarterMessage | None:
        """The starter's next message (``("forked", number, pid)``, ``("exited", number, exitcode)``,
        ``("failed", reason)``); None once it is gone. Blocks: call it from a thread."""
        try:
            data = self.control.recv(MESSAGE_BYTES)
        except OSError:
            return None
        if not data:
            return None
        try:
            return _STARTER_MESSAGE.validate_json(data)
        except pydantic.ValidationError:
            return ("failed", "the worker starter sent a message that is not one of the gate's")

    def close(self) -> None:
        """Tells the starter to end (it ends its remaining workers) and waits for it. A starter never asked for a
        worker is ended at once: it may still be importing ADK (a run that stopped on its inputs), which would only
        answer once that is done."""
        if self.closed:
            return
        self.closed = True
        if not self.asked:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.control.shutdown(socket.SHUT_WR)
        _wait(self.pid, timeout=STOP_GRACE + 5.0)
        self.control.close()


def _wait(pid: int, *, timeout: float) -> None:
    """Waits up to ``timeout`` seconds for ``pid`` to end, then kills it; reaps it either way."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        time.sleep(0.01)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _serve(control: socket.socket, warm: Callable[[], None]) -> None:
    """The starter's life: warm up, then fork workers on request and report how they end, until told to stop."""
    try:
        warm()
    except BaseException as error:  # a broken installation: every worker would fail the same way
        control.send(_encoded(("failed", f"{type(error).__name__}: {error}"[: MESSAGE_BYTES // 8])))
        return
    settle_heap()  # what the workers inherit lives as long as they do
    wakeup = os.pipe()
    os.set_blocking(wakeup[1], False)
    signal.set_wakeup_fd(wakeup[1])
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    children: dict[int, int] = {}  # pid -> worker number
    try:
        while _step(control, wakeup, children):
            continue
    finally:
        _end_children(control, children)


def _step(control: socket.socket, wakeup: tuple[int, int], children: dict[int, int]) -> bool:
    """Handles what happened (a request, a worker that ended); False once the main process is gone."""
    ready, _, _ = select.select([control.fileno(), wakeup[0]], [], [])
    if wakeup[0] in ready:
        with contextlib.suppress(BlockingIOError, OSError):
            os.read(wakeup[0], 512)
        _reap(control, children)
    if control.fileno() not in ready:
        return True
    try:
        data, fds, _, _ = socket.recv_fds(control, MESSAGE_BYTES, 2)
    except OSError:
        return False
    if not data:
        return False
    message = _decoded(data)
    if message[:1] == ["fork"] and len(message) == 2 and isinstance(message[1], int) and len(fds) == 2:
        pid = _fork_worker(control, wakeup, fds)
        children[pid] = message[1]
        _tell(control, ("forked", message[1], pid))
    else:
        for fd in fds:
            os.close(fd)
    return True


def _fork_worker(control: socket.socket, wakeup: tuple[int, int], fds: list[int]) -> int:
    conn_fd, output = fds
    pid = os.fork()
    if pid == 0:  # the worker: it never returns

        def work() -> None:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            worker_main(Connection(conn_fd), others=[control.fileno(), *wakeup], output=output)

        _child_process(work)
    os.close(conn_fd)
    os.close(output)
    return pid


def _reap(control: socket.socket, children: dict[int, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return
        number = children.pop(pid, None)
        if number is not None:
            _tell(control, ("exited", number, os.waitstatus_to_exitcode(status)))


def _tell(control: socket.socket, message: tuple[Any, ...]) -> None:
    with contextlib.suppress(OSError):
        control.send(_encoded(message))


def _encoded(message: tuple[Any, ...]) -> bytes:
    return json.dumps(message).encode()


def _decoded(data: bytes) -> list[Any]:
    try:
        message = json.loads(data)
    except ValueError:
        return []
    return message if isinstance(message, list) else []


def _end_children(control: socket.socket, children: dict[int, int]) -> None:
    """The main process is gone or done: the workers have been told to stop (or lost their connection); those
    still running after ``STOP_GRACE`` seconds, all told, are killed."""
    deadline = time.monotonic() + STOP_GRACE
    for pid in list(children):
        _wait(pid, timeout=max(deadline - time.monotonic(), 0.0))
        _tell(control, ("exited", children.pop(pid), None))


def _child_process(body: Callable[[], None]) -> NoReturn:
    """A forked child's whole life: ``body``, its output flushed, then ``os._exit`` (never the parent's cleanup),
    with exit code 0 only when ``body`` returned."""
    code = 1
    try:
        body()
        code = 0
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)

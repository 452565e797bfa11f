"""The supervising parent of ``adk-eval-gate run``: no exit that did not come from the gate's verdict is a pass.

Agents run in worker processes, and ``sys.exit``/``KeyboardInterrupt`` from agent or metric code are contained
where that code runs. What is left can still end the process that scores and reports: ``os._exit`` in a custom
metric, a crash in a C extension, the kernel's OOM killer, a tool that kills it. So ``run`` works in a child
process; the parent, which runs no user code, forwards signals to it and waits. The child hands its exit code to
the parent through a pipe when the gate has decided; if the child ends without doing so, the parent reports the
run as an error (results file, summary, JUnit, job summary, comment: ``on_lost``) and exits non-zero, whatever
the child's exit code was.

Only the child can speak on that channel. Every process forked from it (the agent workers) closes the pipe and
wipes the per-run secret the verdict must carry, and the child's ``/proc`` entries are closed to them (not
dumpable), so a worker can neither write the verdict nor forge it. A pass also needs the results.json this run
wrote, with status passed: the parent checks the file itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
SECRET_BYTES = 32
CLOSE_GRACE = 2.0  # seconds the channel may stay open after the child ended (a stray writer): then no verdict
_PR_SET_DUMPABLE = 4
_VERDICT = re.compile(rb" (-?\d{1,4})\n")
_PASSED = re.compile(rb'\A\{\s*"schema_version":\s*1,\s*"status":\s*"passed"[,}]')  # how report/writer writes it

Signature = tuple[int, int, int, int] | None


def available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "setpgid")


def supervised(run: Callable[[], int], *, results: Path, on_lost: Callable[[str], int]) -> int:
    """``run()`` in a child process; its exit code, or ``on_lost(why)`` when it ended without one.

    ``results``: the results.json the run writes; exit code 0 stands only when this run wrote it, passed.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    secret = _new_secret()
    before = signature(results)
    verdict_read, verdict_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(verdict_read)
        return _child(run, channel=_Channel(verdict_write, secret))
    os.close(verdict_write)
    listener = _Listener(verdict_read, bytes(secret))
    _wipe(secret)
    listener.start()
    previous = {signum: signal.signal(signum, _forward_to(pid)) for signum in FORWARDED}
    try:
        status = _wait(pid)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    code = listener.verdict(grace=CLOSE_GRACE)
    if code is None:
        return on_lost(describe_end(status))
    if code == 0 and not passed_since(results, before):
        return on_lost(
            f"the run ended with exit code 0 but did not write {results} with status passed: without this run's "
            "results a pass does not count"
        )
    return code


class _Channel:
    """The child's end of the verdict pipe, and the secret that makes a message on it the child's own."""

    def __init__(self, fd: int, secret: bytearray) -> None:
        self.fd: int | None = fd
        self.secret = secret

    def forget(self) -> None:
        """In every process forked from the child (``os.register_at_fork``): no channel, no secret; and its own
        ``/proc`` entries as usual (agent code may read them)."""
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        _wipe(self.secret)
        _set_dumpable(True)

    def send(self, code: int) -> None:
        fd, self.fd = self.fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):  # the parent is gone: nobody is left to tell
            os.writev(fd, [self.secret, f" {code}\n".encode()])  # one write under PIPE_BUF: never interleaved
        os.close(fd)
        _wipe(self.secret)


def _child(run: Callable[[], int], *, channel: _Channel) -> int:
    # its own process group, so a terminal's Ctrl-C reaches it once, from the parent
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    os.register_at_fork(after_in_child=channel.forget)
    _set_dumpable(False)
    code = run()
    sys.stdout.flush()
    channel.send(code)
    return code


class _Listener(threading.Thread):
    """Reads the verdict pipe while the child runs (nothing can fill it and block the child's verdict)."""

    def __init__(self, fd: int, secret: bytes) -> None:
        super().__init__(name="adk-eval-gate-verdict", daemon=True)
        self.fd = fd
        self.secret = secret
        self.code: int | None = None
        self._tail = b""

    def run(self) -> None:
        while self.code is None:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self._scan(self._tail + chunk)

    def _scan(self, data: bytes) -> None:
        at = data.find(self.secret)
        if at < 0:
            self._tail = data[-(len(self.secret) + 8) :]  # a message split between two reads
            return
        message = _VERDICT.match(data, at + len(self.secret))
        if message is not None:
            self.code = int(message.group(1))
        else:
            self._tail = data[at : at + len(self.secret) + 8]

    def verdict(self, *, grace: float) -> int | None:
        """The child's exit code as it sent it, or None; the pipe is closed when nothing reads it any more."""
        self.join(grace)
        if not self.is_alive():
            os.close(self.fd)
        return self.code


def _new_secret() -> bytearray:
    """Random bytes read straight into a bytearray: no immutable copy lingers in memory a fork could inherit."""
    secret = bytearray(SECRET_BYTES)
    fd = os.open("/dev/urandom", os.O_RDONLY | os.O_CLOEXEC)
    try:
        while os.readv(fd, [secret]) != SECRET_BYTES:
            continue
    finally:
        os.close(fd)
    return secret


def _wipe(secret: bytearray) -> None:
    secret[:] = bytes(len(secret))


def _set_dumpable(dumpable: bool) -> None:
    """Not dumpable, /proc/<pid>/fd and /proc/<pid>/mem of the child are closed to its workers (same user, no
    CAP_SYS_PTRACE): they could otherwise open the verdict pipe anew or read the secret."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, int(dumpable), 0, 0, 0)


def signature(path: Path) -> Signature:
    """What changes when the file is written: inode, size, modification and change times (None: no file)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def passed_since(path: Path, before: Signature) -> bool:
    """Whether ``path`` was written after ``before`` was taken, as a results.json whose status is passed."""
    now = signature(path)
    if now is None or now == before:
        return False
    try:
        with path.open("rb") as stream:
            head = stream.read(256)
    except OSError:
        return False
    return _PASSED.match(head) is not None


def _forward_to(pid: int) -> Callable[[int, object], None]:
    def forward(signum: int, frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    return forward


def _wait(pid: int) -> int:
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            return status
        except ChildProcessError:
            return 0
        except InterruptedError:  # pragma: no cover - PEP 475 retries, kept for handlers that raise
            continue


def describe_end(status: int) -> str:
    if os.WIFSIGNALED(status):
        how = f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
    else:
        how = f"exited with code {os.waitstatus_to_exitcode(status)}"
    return (
        f"the run {how} before the gate decided its verdict: code the run loads (a custom metric, a judge "
        "plug-in, an agent with --workers 0, a tool that kills it) ended the process with os._exit() or crashed "
        "it; no case result survived"
    )

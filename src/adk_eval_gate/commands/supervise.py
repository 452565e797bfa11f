"""The supervising parent of ``adk-eval-gate run``: no exit that did not come from the gate's verdict is a pass.

Agents run in worker processes, and ``sys.exit``/``KeyboardInterrupt`` from agent or metric code are contained
where that code runs. What is left can still end the process that scores and reports: ``os._exit`` in a custom
metric, a crash in a C extension, the kernel's OOM killer. So ``run`` works in a child process; the parent, which
runs no user code, forwards signals to it and waits. The child hands its exit code to the parent through a pipe
when the gate has decided; if the child ends without doing so, the parent reports the run as an error (results
file, summary, JUnit, job summary, comment: ``on_lost``) and exits non-zero, whatever the child's exit code was.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def available() -> bool:
    return hasattr(os, "fork") and hasattr(os, "setpgid")


def supervised(run: Callable[[], int], *, on_lost: Callable[[str], int]) -> int:
    """``run()`` in a child process; its exit code, or ``on_lost(why)`` when it ended without one."""
    sys.stdout.flush()
    sys.stderr.flush()
    verdict_read, verdict_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its own process group, so a terminal's Ctrl-C reaches it once, from the parent
        os.close(verdict_read)
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        code = run()
        sys.stdout.flush()
        os.write(verdict_write, f"{code}\n".encode())
        os.close(verdict_write)
        return code
    os.close(verdict_write)
    previous = {signum: signal.signal(signum, _forward_to(pid)) for signum in FORWARDED}
    try:
        status = _wait(pid)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    verdict = _read_available(verdict_read)
    os.close(verdict_read)
    if verdict.strip().lstrip("-").isdigit():
        return int(verdict)
    return on_lost(describe_end(status))


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


def _read_available(fd: int) -> str:
    """What the child wrote before it ended (its worker processes may still hold the pipe open)."""
    os.set_blocking(fd, False)
    chunks = []
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 64):
            chunks.append(chunk)
    return b"".join(chunks).decode("ascii", "replace")


def describe_end(status: int) -> str:
    if os.WIFSIGNALED(status):
        how = f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
    else:
        how = f"exited with code {os.waitstatus_to_exitcode(status)}"
    return (
        f"the run {how} before the gate decided its verdict: code the run loads (a custom metric, a judge "
        "plug-in, an agent with --workers 0) ended the process with os._exit() or crashed it; no case result "
        "survived"
    )

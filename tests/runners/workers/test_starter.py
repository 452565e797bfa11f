"""The worker starter's end: a run that stops before it asks for any worker (a bad input) does not wait for the
starter to finish importing ADK."""

from __future__ import annotations

import contextlib
import os
import signal

import pytest

from adk_eval_gate.runners.workers import starter as starter_module
from adk_eval_gate.runners.workers.starter import Starter


@pytest.mark.timeout(60)  # without the fix, close() waits STOP_GRACE (patched to an hour) for the warm-up
def test_a_starter_asked_for_no_worker_is_ended_at_once_while_it_is_still_warming_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(starter_module, "STOP_GRACE", 3600.0)
    warming_read, warming_write = os.pipe()
    never_read, never_write = os.pipe()

    def warm() -> None:  # tells the test it is warming up, then blocks as a long import would
        os.write(warming_write, b"w")
        os.read(never_read, 1)

    starter = Starter.start(warm)
    try:
        assert os.read(warming_read, 1) == b"w"
        starter.close()
        with pytest.raises(ChildProcessError):  # ended and reaped
            os.waitpid(starter.pid, os.WNOHANG)
    finally:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):  # still there when the test failed
            os.kill(starter.pid, signal.SIGKILL)
            os.waitpid(starter.pid, 0)
        for fd in (warming_read, warming_write, never_read, never_write, starter.output):
            os.close(fd)

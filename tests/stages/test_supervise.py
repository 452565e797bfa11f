"""supervise: ``run`` in a forked child; its verdict passes through, and a child that dies without one is reported."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest

from adk_eval_gate.commands import supervise

pytestmark = pytest.mark.skipif(not supervise.available(), reason="needs fork")


def _supervised(run: Callable[[], int]) -> tuple[int, list[str]]:
    lost: list[str] = []
    parent = os.getpid()

    def on_lost(reason: str) -> int:
        lost.append(reason)
        return 9

    code = supervise.supervised(run, on_lost=on_lost)
    if os.getpid() != parent:  # the child, after writing its verdict: it must not go on running the tests
        os._exit(0)
    return code, lost


def test_the_child_s_verdict_is_the_exit_code() -> None:
    assert _supervised(lambda: 1) == (1, [])
    assert _supervised(lambda: 0) == (0, [])


def test_a_child_that_ends_without_a_verdict_is_reported_as_lost() -> None:
    code, lost = _supervised(lambda: os._exit(0))
    assert code == 9
    assert lost and lost[0].startswith("the run exited with code 0 before the gate decided its verdict")


def test_how_a_run_ended_is_described() -> None:
    assert "killed by SIGKILL" in supervise.describe_end(signal.SIGKILL)
    assert "exited with code 3" in supervise.describe_end(3 << 8)

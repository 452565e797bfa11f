"""supervise: ``run`` in a forked child; its verdict passes through, and a child that dies without one is reported.

Only the process that decides the verdict holds the verdict channel: a process forked by the run (an agent
worker) closes its end, so a tool cannot write ``0`` to it and kill the gate to pass; the message carries a
per-run secret no forked process keeps, and a pass counts only with the results.json this run wrote.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from adk_eval_gate.model.results import ResultsDocument, Totals
from adk_eval_gate.report.writer import results_json
from adk_eval_gate.runners.workers import supervisor

pytestmark = pytest.mark.skipif(not supervisor.available(), reason="needs fork")


def _document(status: str) -> str:
    return results_json(ResultsDocument(status=status, totals=Totals(), cases=[]))  # type: ignore[arg-type]


def _supervised(run: Callable[[], int], results: Path) -> tuple[int, list[str]]:
    lost: list[str] = []
    parent = os.getpid()

    def on_lost(reason: str) -> int:
        lost.append(reason)
        return 9

    code = supervisor.supervised(run, results=results, on_lost=on_lost)
    if os.getpid() != parent:  # the child, after writing its verdict: it must not go on running the tests
        os._exit(0)
    return code, lost


def _passing(results: Path) -> Callable[[], int]:
    def run() -> int:
        results.write_text(_document("passed"), encoding="utf-8")
        return 0

    return run


def test_the_child_s_verdict_is_the_exit_code(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    assert _supervised(lambda: 1, results) == (1, [])
    assert _supervised(_passing(results), results) == (0, [])


def test_a_child_that_ends_without_a_verdict_is_reported_as_lost(tmp_path: Path) -> None:
    code, lost = _supervised(lambda: os._exit(0), tmp_path / "results.json")
    assert code == 9
    assert lost and lost[0].startswith("the run exited with code 0 before the gate decided its verdict")


@pytest.mark.slow  # three supervised runs
def test_a_pass_counts_only_with_the_results_json_this_run_wrote(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    code, lost = _supervised(lambda: 0, results)  # nothing written
    assert code == 9 and lost and f"did not write {results}" in lost[0]
    results.write_text(_document("passed"), encoding="utf-8")  # an earlier run's results
    code, lost = _supervised(lambda: 0, results)
    assert code == 9 and lost and f"did not write {results}" in lost[0]

    def failed_results() -> int:
        results.write_text(_document("failed"), encoding="utf-8")
        return 0

    code, lost = _supervised(failed_results, results)
    assert code == 9 and lost


def test_a_passed_results_json_as_the_gate_writes_it_is_recognised(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    before = supervisor.signature(results)
    results.write_text(_document("passed"), encoding="utf-8")
    assert supervisor.passed_since(results, before)
    assert not supervisor.passed_since(results, supervisor.signature(results))


def _pipes(pid: int | str, skip: set[int]) -> list[str]:
    """The pipes a process holds, as paths that open them anew, except the test process's own (pytest's)."""
    folder = Path(f"/proc/{pid}/fd")
    found = []
    for entry in folder.iterdir() if folder.is_dir() else []:
        with contextlib.suppress(OSError):
            if int(entry.name) not in skip and stat.S_ISFIFO(entry.stat().st_mode):
                found.append(str(entry))
    return found


def _forger(*, through_proc: bool, skip: set[int]) -> Callable[[], int]:
    """A run whose forked process (an agent worker) writes ``0`` to every pipe it can reach, then kills the run."""

    def run() -> int:
        worker = os.fork()
        if worker == 0:
            try:
                for path in _pipes(os.getppid(), skip) if through_proc else _pipes("self", skip):
                    with contextlib.suppress(OSError):
                        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                        os.write(fd, b"0\n")
                        os.close(fd)
                os.kill(os.getppid(), signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(worker, 0)
        signal.pause()  # killed by the worker
        return 1

    return run


@pytest.mark.parametrize("through_proc", [False, True], ids=["inherited", "reopened-through-proc"])
def test_a_process_forked_by_the_run_cannot_write_its_verdict(tmp_path: Path, through_proc: bool) -> None:
    results = tmp_path / "results.json"
    results.write_text(_document("passed"), encoding="utf-8")
    skip = {int(name) for name in os.listdir("/proc/self/fd")} if Path("/proc/self/fd").is_dir() else set()
    code, lost = _supervised(_forger(through_proc=through_proc, skip=skip), results)
    assert code == 9
    assert lost and "was killed by SIGKILL" in lost[0]


def _dumpable() -> int:
    return int(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_run_s_proc_entries_are_closed_to_its_workers_and_theirs_are_not(tmp_path: Path) -> None:
    def run() -> int:
        worker = os.fork()
        if worker == 0:
            os._exit(_dumpable())
        _, status = os.waitpid(worker, 0)
        return 10 * _dumpable() + os.waitstatus_to_exitcode(status)

    assert _supervised(run, tmp_path / "results.json") == (1, [])  # the run: 0; a process it forks: 1


def test_how_a_run_ended_is_described() -> None:
    assert "killed by SIGKILL" in supervisor.describe_end(signal.SIGKILL)
    assert "exited with code 3" in supervisor.describe_end(3 << 8)

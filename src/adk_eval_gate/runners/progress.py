"""Progress while the agents run.

On a terminal: one live line on stderr (done, failed, running, elapsed, ETA), redrawn in place, with the line of
each finished case run printed above it. In CI (``GITHUB_ACTIONS=true``, or output that is not a terminal): the
line of each finished case run and, every 30 s while runs are still going, a heartbeat line that also names the
longest-running case, all inside a collapsible log group.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TextIO

from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.model.results import CaseStatus, case_label
from adk_eval_gate.runners.execute import FinishedRun
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.words import plural

HEARTBEAT_SECONDS = 30.0
REDRAW_SECONDS = 0.5
_CLEAR = "\r\x1b[K"


def clock_text(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def _score_text(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.3g}"


def _run_finished(console: Console, item: WorkItem, finished: FinishedRun, status: CaseStatus) -> None:
    """``ran FILE::CASE [run 2] metric=0.9 ...``: what the run scored, not yet the case's verdict; the log of a run
    whose ``status`` (the verdict's for this run alone) is not passed."""
    name = f"{item.file.loaded.display}::{case_label(item.file.loaded.display, item.case.eval_id)}"
    run_suffix = f" [run {item.run}]" if item.run > 1 else ""
    if finished.inference.error:
        console.line(f"ran {name}{run_suffix}: error: {finished.inference.error}")
    else:
        graded = [s for s in finished.scored if not s.configured.spec.informational]
        scores = " ".join(f"{s.configured.name}={_score_text(s.outcome.score)}" for s in graded)
        console.line(f"ran {name}{run_suffix} {scores}".rstrip())
    retries = finished.inference.retries
    if retries:
        console.line(
            f"  {name}{run_suffix}: retried {plural(len(retries), 'time')} (each reason is in results.json), "
            f"the last after: {retries[-1]}"
        )
    if finished.inference.log and status != CaseStatus.PASSED:
        _case_log(console, f"{name}{run_suffix}", finished.inference.log)


_LOG_TAIL = 3  # lines of a case run's log shown outside GitHub Actions, where there is no collapsed group


def _case_log(console: Console, case: str, log: list[str]) -> None:
    """The run's captured log: whole in a collapsed group in Actions; its last lines in a terminal."""
    if console.in_actions:
        console.group(f"log of {case} ({len(log)} lines)")
        for line in log:
            console.line(line)
        console.end_group()
        return
    shown = log[-_LOG_TAIL:]
    console.line(f"  log of {case}: {len(log)} lines, the last {len(shown)} (all are in results.json; --verbose):")
    for line in shown:
        console.line(f"    {line}")


@dataclass
class Counts:
    total: int
    done: int = 0
    failed: int = 0
    not_evaluated: int = 0
    errors: int = 0
    retried: int = 0  # runs that were run again after a failure around the agent (``Inference.retries``)
    running: dict[tuple[str, int], float] = field(default_factory=dict)  # (case id, run) -> start time

    def summary(self, *, elapsed: float | None, eta: bool = True) -> str:
        """``48/120 runs done, 2 failed, 1 not evaluated, 1 error, 8 running, ...``: each count of runs named."""
        parts = [f"{self.done}/{self.total} runs done"]
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.not_evaluated:
            parts.append(f"{self.not_evaluated} not evaluated")
        if self.errors:
            parts.append(plural(self.errors, "error"))
        if self.retried:
            parts.append(plural(self.retried, "retried run"))
        parts.append(f"{len(self.running)} running")
        if elapsed is None:
            return ", ".join(parts)
        parts.append(f"{clock_text(elapsed)} elapsed")
        if eta and self.done and self.done < self.total:
            parts.append(f"ETA {clock_text(elapsed / self.done * (self.total - self.done))}")
        return ", ".join(parts)


def use_live_line(stream: TextIO, env: Mapping[str, str]) -> bool:
    if env.get("GITHUB_ACTIONS") == "true" or env.get("CI") == "true":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    def __init__(
        self,
        console: Console,
        *,
        total: int,
        live: bool,
        stream: TextIO | None = None,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.live = live
        self.stream = stream or sys.stderr
        self.heartbeat_seconds = heartbeat_seconds
        self.clock = clock
        self.counts = Counts(total=total)
        self.started_at = clock()
        self._line_shown = False

    @classmethod
    def for_console(cls, console: Console, *, total: int, env: Mapping[str, str]) -> Progress:
        return cls(console, total=total, live=use_live_line(sys.stderr, env) and not console.in_actions)

    def elapsed(self) -> float:
        return self.clock() - self.started_at

    def begin(self, title: str) -> None:
        self.started_at = self.clock()
        self.console.group(title)

    def ready(self) -> None:
        """The agents are loaded and the case runs start now: the clock starts here."""
        self.started_at = self.clock()

    def scheduled(self, count: int) -> None:
        """``count`` more case runs to come, started by ``--sequential``'s waves (no line of their own)."""
        self.counts.total += count

    def extend(self, count: int, title: str) -> None:
        """``count`` more case runs to come (the re-runs of ``--confirm-failures``), announced by ``title``."""
        self.counts.total += count
        self._clear()
        self.console.line(title)
        self._redraw()

    def started(self, item: WorkItem) -> None:
        self.counts.running[(item.case_id, item.run)] = self.clock()
        self._redraw()

    def finished(self, item: WorkItem, finished: FinishedRun, status: CaseStatus) -> None:
        """A run finished; ``status``: the verdict's for this run alone (an error, failed or not evaluated, or
        passed), which the counts show."""
        self.counts.running.pop((item.case_id, item.run), None)
        self.counts.done += 1
        self.counts.failed += status == CaseStatus.FAILED
        self.counts.not_evaluated += status == CaseStatus.NOT_EVALUATED
        self.counts.errors += status == CaseStatus.ERROR
        self.counts.retried += bool(finished.inference.retries)
        self._clear()
        _run_finished(self.console, item, finished, status)
        self._redraw()

    def heartbeat_line(self) -> str:
        line = f"... {self.counts.summary(elapsed=self.elapsed())}"
        if self.counts.running:
            (case, run), since = min(self.counts.running.items(), key=lambda entry: entry[1])
            suffix = f" [run {run}]" if run > 1 else ""
            line += f"; longest running: {case}{suffix} ({clock_text(self.clock() - since)})"
        return line

    async def tick(self) -> None:
        """Runs until cancelled: redraws the live line, or writes a heartbeat line in CI."""
        interval = REDRAW_SECONDS if self.live else self.heartbeat_seconds
        while True:
            await asyncio.sleep(interval)
            if self.live:
                self._redraw()
            elif self.counts.running:
                self.console.line(self.heartbeat_line())

    def end(self, *, interrupted: str | None = None) -> None:
        self._clear()
        verb = f"Stopped by {interrupted} after" if interrupted else "Finished in"
        self.console.line(f"{verb} {self.elapsed():.2f} s: {self.counts.summary(elapsed=None)}")
        self.console.end_group()

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):
            pass

    def _clear(self) -> None:
        if self.live and self._line_shown:
            self._write(_CLEAR)
            self._line_shown = False

    def _redraw(self) -> None:
        if self.live:
            self._write(_CLEAR + self.console.mask(self.counts.summary(elapsed=self.elapsed())))
            self._line_shown = True

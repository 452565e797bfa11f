"""What ADK and the agent log while a case runs, kept with that case run instead of flooding the console.

While the agents run, one handler on the root logger (and Python's warnings, through logging) takes every
record. A record made during a case run (``capture``: the run's task and the tasks it starts share a context
variable) goes to that run's log, bounded, which results.json keeps and the reports show for a case that did
not pass; a record made outside any case run (an agent's import, the runner's own start-up) is printed. With
``--verbose`` every record is also printed as it happens.
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import logging
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from adk_eval_gate.support import sanitize

MAX_LINES = 200  # per case run: the first and the last 100; the rest is counted
MAX_LINE_CHARS = 400
TRACEBACK_FRAMES = 3  # of each exception in a logged traceback

_CURRENT: contextvars.ContextVar[CaseLog | None] = contextvars.ContextVar("adk_eval_gate_case_log", default=None)


class CaseLog:
    """One case run's log lines: the first and the last ``MAX_LINES // 2``, and how many were left out between."""

    def __init__(self) -> None:
        self.head: list[str] = []
        self.tail: collections.deque[str] = collections.deque(maxlen=MAX_LINES // 2)
        self.dropped = 0

    def add(self, text: str) -> None:
        for raw in sanitize.clean_text(text).splitlines():
            line = raw if len(raw) <= MAX_LINE_CHARS else raw[: MAX_LINE_CHARS - 1] + "…"
            if len(self.head) < MAX_LINES // 2:
                self.head.append(line)
                continue
            if len(self.tail) == self.tail.maxlen:
                self.dropped += 1
            self.tail.append(line)

    def result(self) -> list[str]:
        gap = [f"… {self.dropped} lines left out …"] if self.dropped else []
        return [*self.head, *gap, *self.tail]


class _Formatter(logging.Formatter):
    def formatException(self, ei: Any) -> str:  # noqa: N802 - logging's name
        """The innermost frames only: the library's call chain above them says nothing about the case."""
        return "".join(traceback.format_exception(*ei, limit=-TRACEBACK_FRAMES)).rstrip()


class _Handler(logging.Handler):
    def __init__(self, print_line: Callable[[str], None], *, verbose: bool) -> None:
        super().__init__(logging.DEBUG)
        self.print_line = print_line
        self.verbose = verbose
        self.setFormatter(_Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # a library's broken log call must not end a case run
            text = f"{record.levelname} {record.name}: {record.msg!r}"
        case_log = _CURRENT.get()
        if case_log is not None:
            case_log.add(text)
        if case_log is None or self.verbose:
            for line in text.splitlines():
                self.print_line(line)


@contextlib.contextmanager
def installed(print_line: Callable[[str], None], *, verbose: bool = False) -> Iterator[None]:
    """Routes logging and warnings through the case logs while the ``with`` block runs (worker processes forked
    inside it inherit the routing)."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.raiseExceptions)
    root.handlers = [_Handler(print_line, verbose=verbose)]
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    logging.captureWarnings(True)
    try:
        yield
    finally:
        logging.captureWarnings(False)
        root.handlers, level, logging.raiseExceptions = saved
        root.setLevel(level)


@contextlib.contextmanager
def capture() -> Iterator[CaseLog]:
    """The log of the case run made inside the ``with`` block (in this task and the tasks it starts)."""
    case_log = CaseLog()
    token = _CURRENT.set(case_log)
    try:
        yield case_log
    finally:
        _CURRENT.reset(token)

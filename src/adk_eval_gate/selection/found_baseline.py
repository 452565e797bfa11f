"""The baseline a run is compared with, as ``github.baseline`` finds it (``--baseline FILE``, or the base branch's
results artifact): the base branch's results with its run and the history of its earlier runs, or why there is
none. The comparison (``changes``), ``--only-affected`` and ``--confirm-failures`` read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from adk_eval_gate.model.results import BaselineInfo, ResultsDocument


@dataclass(frozen=True)
class BaseRun:
    """One completed run of the base branch, with its results."""

    info: BaselineInfo
    doc: ResultsDocument


@dataclass(frozen=True)
class Baseline:
    doc: ResultsDocument
    info: BaselineInfo
    history: tuple[BaseRun, ...] = ()  # newest first, the baseline's own run included (artifacts only)
    history_note: str | None = None  # the older runs the history left out, and why (one line)


@dataclass(frozen=True)
class NoBaseline:
    note: str  # shown in the reports ("no baseline yet: ...")
    warning: str | None = None  # a problem to warn about; None when it is just absent


FindBaseline = Callable[[], Baseline | NoBaseline]
"""The baseline lookup, I/O handed to the commands (``github.baseline.for_settings`` bound to the settings and
the client): called when the baseline is needed, once."""

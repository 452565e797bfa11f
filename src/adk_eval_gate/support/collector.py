"""The garbage collector of the gate's processes: held while a run starts, settled for its case runs, held again
while the main process makes the reports.

Python sweeps its oldest generation each time the heap has grown by a quarter. Starting a run grows the heap from
nothing to hundreds of thousands of objects that live as long as the process (google-genai, google-adk and what a
first turn of ADK imports, pydantic's schemas, the plan), so the collector sweeps that growing heap again and
again: about a sixth of the CPU the start takes, on the path before the first case run (building our models'
schemas: 0.01 s of work and 0.1 s of sweeps). What starting builds is almost never garbage in a cycle, so a run
holds the collector (``hold``) from its first line until its case runs start (``settle_heap``). The same holds for
the document and the reports made after the runs (at 10,000 cases their sweeps took 2 to 3 s).
"""

from __future__ import annotations

import gc

YOUNG_GENERATION = 10_000  # net allocations between two sweeps of the collector's youngest generation (default 700)

_BEFORE: list[tuple[tuple[int, int, int], bool]] = []  # the thresholds and on/off before the first hold or settle


def _remember() -> None:
    if not _BEFORE:
        _BEFORE.append((gc.get_threshold(), gc.isenabled()))


def hold() -> None:
    """No sweeps while the process builds what lives until its end: while a run starts (``settle_heap`` starts
    them again; a process that ends first, on a bad input, has built little), and once its case runs are over,
    while the document and the reports are made (what they drop is released by its reference count)."""
    _remember()
    gc.disable()


def settle_heap() -> None:
    """Everything this process holds now (modules, agents, the plan) lives as long as it does: out of the garbage
    collector's sweeps (``gc.freeze``), and the collector on. The youngest generation swept every
    ``YOUNG_GENERATION`` allocations: a turn of an agent makes thousands of short-lived objects (ADK's events,
    contexts and models), so the default 700 sweeps it dozens of times a turn, for about 3% of a worker's CPU; this
    halves that, at the cost of holding a few MB of garbage in cycles a little longer. ``unsettle_heap`` undoes it."""
    _remember()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION, middle, oldest)
    gc.enable()


def unsettle_heap() -> None:
    """The collector as it was before ``hold`` or ``settle_heap``, in a process that goes on after a run (the
    pytest plugin's): everything swept again, at the thresholds it had, on or off as it was."""
    gc.unfreeze()
    if _BEFORE:
        thresholds, enabled = _BEFORE.pop()
        gc.set_threshold(*thresholds)
        if enabled:
            gc.enable()
        else:
            gc.disable()

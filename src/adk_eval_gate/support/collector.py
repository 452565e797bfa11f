"""The garbage collector of the gate's processes, settled where their case runs start.

Starting a run builds hundreds of thousands of objects that live as long as the process (google-genai, google-adk
and what a first turn of ADK imports, pydantic's schemas, the agents, the plan), and each turn of an agent makes
thousands of short-lived ones. Settled, the former are out of the collector's sweeps (frozen) and the youngest
generation is swept less often: on the speed suite and on a 2,000-case recorded suite, freezing saves 10 to 20% of
a run's time and the sweeps' threshold 10% of the recorded suite's (``bench/devices.py``; docs/performance.md
gives the figures, and those of the devices measured and removed).
"""

from __future__ import annotations

import gc

YOUNG_GENERATION = 10_000  # net allocations between two sweeps of the collector's youngest generation (default 700)


def settle_heap() -> None:
    """Everything this process holds now (modules, agents, models, the plan) lives as long as it does: out of the
    garbage collector's sweeps (``gc.freeze``); and the youngest generation is swept every ``YOUNG_GENERATION``
    allocations, so that the short-lived objects of many concurrent turns (and of the records and reports made
    after them) start fewer sweeps of the older generations. Called where a process's case runs are about to
    start: in the worker starter after its warm-up (the workers inherit it), in each worker once it imported the
    agents, and in the main process of ``run`` before its case runs."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION, middle, oldest)

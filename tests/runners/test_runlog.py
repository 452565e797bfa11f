"""runlog: what is logged during a case run stays with that run; the rest is printed; bounded."""

from __future__ import annotations

import asyncio
import logging
import warnings

from adk_eval_gate.runners import runlog

LOGGER = logging.getLogger("google_adk.test")


def test_each_case_run_keeps_its_own_records_and_the_rest_is_printed() -> None:
    printed: list[str] = []
    handlers_before = logging.getLogger().handlers[:]

    async def case_run(name: str, started: dict[str, asyncio.Event]) -> list[str]:
        with runlog.capture() as case_log:
            LOGGER.warning("%s starts", name)
            started[name].set()
            for event in started.values():  # the case runs interleave: each logs while the other one's capture is on
                await event.wait()
            await asyncio.create_task(asyncio.to_thread(lambda: None))  # a task it starts logs into the same run
            LOGGER.error("%s failed", name)
        return case_log.result()

    async def both() -> list[list[str]]:
        started = {"a": asyncio.Event(), "b": asyncio.Event()}
        return list(await asyncio.gather(case_run("a", started), case_run("b", started)))

    with runlog.installed(printed.append):
        LOGGER.warning("outside any case")
        logs = asyncio.run(both())
        LOGGER.info("below the level: dropped")
    assert logs == [
        ["WARNING google_adk.test: a starts", "ERROR google_adk.test: a failed"],
        ["WARNING google_adk.test: b starts", "ERROR google_adk.test: b failed"],
    ]
    assert printed == ["WARNING google_adk.test: outside any case"]
    assert logging.getLogger().handlers == handlers_before  # the routing ends with the block


def test_verbose_prints_records_live_too_and_warnings_are_logged() -> None:
    printed: list[str] = []
    with runlog.installed(printed.append, verbose=True), runlog.capture() as case_log, warnings.catch_warnings():
        warnings.simplefilter("always")
        LOGGER.info("an info line")
        warnings.warn("a risky call", RuntimeWarning, stacklevel=1)
    assert printed[0] == "INFO google_adk.test: an info line"
    assert any("RuntimeWarning: a risky call" in line for line in case_log.result())


def test_a_long_log_keeps_its_head_and_tail_and_a_traceback_its_innermost_frames() -> None:
    with runlog.installed(lambda line: None), runlog.capture() as case_log:
        for number in range(500):
            LOGGER.warning("line %d", number)
        try:
            raise ValueError("the cause")
        except ValueError:
            LOGGER.exception("it failed")
    lines = case_log.result()
    assert len(lines) == runlog.MAX_LINES + 1
    assert lines[0] == "WARNING google_adk.test: line 0" and lines[99] == "WARNING google_adk.test: line 99"
    assert lines[100].startswith("… ") and "lines left out" in lines[100]
    assert lines[-1] == "ValueError: the cause"

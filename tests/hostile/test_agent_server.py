"""The http runner reads an agent server's answers within limits.

An answer, an SSE line and a whole SSE stream each have a limit (``http_reading.ReadLimits``; here set small, as
the runner's own seam), so a server that sends gigabytes cannot grow the gate without bound; a case run past one
is an error that names it, and a ``/list-apps`` answer of 100,000 apps is summarised in the error, not printed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs.plan import plan
from adk_eval_gate.inputs.prepare import prepare
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.runners import http_reading
from adk_eval_gate.runners.execute import Execution, MetricBuilder, RunLimits, execute
from adk_eval_gate.runners.http import HttpRunner
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.retry import Backoff
from tests.runners.fault_server import FaultServer, fault_server
from tests.runners.scripted import turn, write_config, write_evalset

SMALL = http_reading.ReadLimits(answer=256 * 1024, sse_line=128 * 1024, sse_stream=512 * 1024)


def _errors(server: FaultServer, cases: dict[str, str], *, limits: http_reading.ReadLimits = SMALL) -> dict[str, str]:
    write_config(Path.cwd(), {"response_match_score": 0.5})
    write_evalset(Path.cwd() / "limits.evalset.json", {name: [turn(text)] for name, text in cases.items()})
    values = {"paths": ["limits.evalset.json"], "runner": "http", "agent_url": server.url, "timeout": 60}
    settings = build_settings("run", values, env={})
    prepared = prepare(settings, Console(in_actions=False))
    runner = HttpRunner(settings)
    runner.limits = limits

    async def go() -> Execution:
        try:
            items = plan(prepared.planned, num_runs=1, shard=None)
            fast = Backoff(attempts=1, initial=0.01, maximum=0.01)
            return await execute(
                items,
                runner=runner,
                metrics=MetricBuilder(MetricServices()),
                limits=RunLimits(parallelism=2, timeout=60, retry=fast),
            )
        finally:
            await runner.aclose()

    execution = asyncio.run(go())
    return {key.split("::")[1]: runs[0].inference.error or "" for key, runs in execution.finished.items()}


@pytest.mark.slow  # a gate run against a server streaming megabytes
@pytest.mark.timeout(120)
def test_an_answer_larger_than_the_limit_is_an_error_naming_it(tmp_repo: Path) -> None:
    with fault_server() as server:
        server.huge_size = 2 * SMALL.answer
        errors = _errors(server, {"huge": "huge", "fine": "hello"})
    assert errors["fine"] == ""
    assert errors["huge"].startswith("POST /run sent an answer larger than 262,144 bytes, the http runner's limit")


@pytest.mark.slow  # a gate run against a server streaming megabytes
@pytest.mark.timeout(120)
def test_an_sse_line_or_stream_larger_than_its_limit_is_an_error_naming_it(tmp_repo: Path) -> None:
    with fault_server(has_run=False) as server:
        server.huge_size = 4 * SMALL.sse_stream
        errors = _errors(server, {"line": "huge", "stream": "many", "fine": "hello"})
    assert errors["fine"] == ""
    assert errors["line"].startswith("POST /run_sse sent a line larger than 131,072 bytes, the http runner's limit")
    assert errors["stream"].startswith("POST /run_sse sent a stream larger than 524,288 bytes, the http runner's")


class Endless:
    """An answer body of 1 MiB chunks (the same bytes each time) that ends after 100 MiB, past every default limit."""

    async def aiter_bytes(self):  # type: ignore[no-untyped-def]
        chunk = bytes(http_reading.MIB)
        for _ in range(100):
            yield chunk


@pytest.mark.slow  # reads 64 MiB, then 100 MiB, to reach the default limits
def test_the_default_limits_are_named_in_mib() -> None:
    limits = http_reading.ReadLimits()

    async def answer() -> None:
        await http_reading.read_capped(Endless(), what="POST /run", limit=limits.answer)  # type: ignore[arg-type]

    async def stream() -> None:
        async for _ in http_reading.sse_lines(Endless(), what="POST /run_sse", limits=limits):  # type: ignore[arg-type]
            pass

    with pytest.raises(http_reading.AgentServerError) as too_large:
        asyncio.run(answer())
    assert too_large.value.one_line().startswith("POST /run sent an answer larger than 64 MiB, the http runner's limit")
    with pytest.raises(http_reading.AgentServerError) as too_long:
        asyncio.run(stream())  # no line break in 100 MiB: the line's limit comes first
    assert too_long.value.one_line().startswith("POST /run_sse sent a line larger than 16 MiB, the http runner's limit")


@pytest.mark.slow  # a gate run against a server streaming megabytes
@pytest.mark.timeout(120)
def test_a_list_of_100000_apps_is_summarised_not_printed(tmp_repo: Path) -> None:
    with fault_server() as server:
        server.apps = [f"app_{number:06d}" for number in range(100_000)]
        errors = _errors(server, {"which": "hello"}, limits=http_reading.ReadLimits())
    assert "serves several apps (app_000000, app_000001," in errors["which"]
    assert "app_000009 and 99,990 more)" in errors["which"]
    assert len(errors["which"]) < 600


def test_sse_lines_end_at_any_line_break_across_chunks() -> None:
    class Chunks:
        async def aiter_bytes(self):  # type: ignore[no-untyped-def]
            for chunk in (b"data: a\r", b"\ndata: b\rdata: c\n", b"da", b"ta: d"):
                yield chunk

    async def lines() -> list[str]:
        limits = http_reading.ReadLimits()
        return [line async for line in http_reading.sse_lines(Chunks(), what="x", limits=limits)]  # type: ignore[arg-type]

    assert [line for line in asyncio.run(lines()) if line] == ["data: a", "data: b", "data: c", "data: d"]

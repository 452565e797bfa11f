"""The fake GitHub server, started per test and checked against GitHub's OpenAPI description at teardown."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from tests.fakes.github_server import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    try:
        yield fake
    finally:
        fake.stop()
    fake.assert_clean()


@pytest.fixture(scope="session")
def example_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """results.json of the example agent, run once for real with the ADK runner (no GitHub involved), shared by
    pytest-xdist's workers (the first to ask makes it, under a lock: the run is seconds of CPU each worker paid
    again). Callers read it, never change it. The agent runs in this process (``--workers 0``): a worker starter
    would import ADK again, two seconds of CPU."""
    from tests.github.flows import run_step

    base = tmp_path_factory.getbasetemp()
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    work = session / "example-results"
    with FileLock(str(session / "example-results.lock")):
        if not (work / "results.json").is_file():
            with pytest.MonkeyPatch.context() as patch:
                step = run_step(
                    patch,
                    ["run", "examples/weather_agent/weather.evalset.json", "--workers", "0", "--output-dir", str(work)],
                    {},
                    work,
                )
            assert step.code == 1, step.stdout  # one case fails on purpose
    return work / "results.json"

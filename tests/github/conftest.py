"""The fake GitHub server, started per test and checked against GitHub's OpenAPI description at teardown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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
    """results.json of the example agent, run once for real with the ADK runner (no GitHub involved)."""
    from tests.github.flows import run_step

    work = tmp_path_factory.mktemp("example")
    with pytest.MonkeyPatch.context() as patch:
        step = run_step(
            patch, ["run", "examples/weather_agent/weather.evalset.json", "--output-dir", str(work)], {}, work
        )
    assert step.code == 1, step.stdout  # one case fails on purpose
    return work / "results.json"

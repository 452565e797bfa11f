"""The fake GitHub server, started per test and checked against GitHub's OpenAPI description at teardown."""

from __future__ import annotations

from collections.abc import Iterator

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

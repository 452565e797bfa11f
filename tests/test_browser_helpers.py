"""The browser and Mermaid helpers of the tests decide well when they cannot run: a one-line reason that says how
to install what is missing, a skip on a developer's machine, a failure when CI requires the browser."""

from __future__ import annotations

import pytest

from tests import browser, mermaid


def test_a_missing_chromium_is_named_with_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(browser.CHROMIUM_VARIABLE, "/nonexistent/chromium")
    problem = browser.browser_problem()
    assert problem is not None and "\n" not in problem
    assert "/nonexistent/chromium" in problem and "apt-get install -y chromium" in problem
    assert "bash .ci/test" in problem


def test_without_the_requirement_a_missing_browser_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(browser.REQUIRE_VARIABLE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="Chromium is not installed"):
        browser.unavailable("Chromium is not installed at /x")


def test_when_ci_requires_the_browser_a_missing_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(browser.REQUIRE_VARIABLE, "1")
    with pytest.raises(pytest.fail.Exception, match="ADK_EVAL_GATE_REQUIRE_BROWSER=1"):
        browser.unavailable("Chromium is not installed at /x")


def test_a_missing_chromium_stops_the_shared_browser_before_playwright_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser._Session, "browser", None)  # as before any browser test (they run last)
    monkeypatch.setattr(browser._Session, "playwright", None)
    monkeypatch.setenv(browser.CHROMIUM_VARIABLE, "/nonexistent/chromium")
    monkeypatch.setenv(browser.REQUIRE_VARIABLE, "1")
    with pytest.raises(pytest.fail.Exception, match="/nonexistent/chromium"):
        browser.shared_browser()
    assert browser._Session.playwright is None


def test_missing_mermaid_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mermaid, "MERMAID_JS", mermaid.JS_FOLDER / "no-such-folder" / "mermaid.min.js")
    assert mermaid.mermaid_problem() == (
        "Mermaid is not installed in tests/js/node_modules: run `bash .ci/test` (npm ci in tests/js)"
    )


def test_mermaid_blocks_are_the_fenced_mermaid_code_only() -> None:
    text = "# t\n```mermaid\nxychart-beta\n    bar [1]\n```\n\n```text\nnot this\n```\n```mermaid\npie\n```\n"
    assert mermaid.mermaid_blocks(text) == ["xychart-beta\n    bar [1]\n", "pie\n"]

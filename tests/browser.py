"""Headless Chromium for the tests: Debian's browser (``apt-get install chromium``) driven by Playwright for Python.

Playwright's own browser download (``playwright install``) is never used: it needs hosts these machines cannot
reach. One browser serves the whole test session (``shared_browser``); ``shutdown`` closes it at the end.

When Chromium or Playwright is missing, the tests that need them are skipped with one line that says how to
install them, unless ``ADK_EVAL_GATE_REQUIRE_BROWSER=1`` (``.ci/test`` sets it once it has installed them):
then they fail, so CI never skips them silently.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

REQUIRE_VARIABLE = "ADK_EVAL_GATE_REQUIRE_BROWSER"
CHROMIUM_VARIABLE = "ADK_EVAL_GATE_CHROMIUM"  # another Chromium or Chrome binary (e.g. on GitHub's runners)
DEFAULT_CHROMIUM = "/usr/bin/chromium"
# No network of its own: no component updates, sync, QUIC or background requests while a test runs.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
INSTALL_HINT = "run `bash .ci/test`, which installs it"


def chromium_path() -> Path:
    return Path(os.environ.get(CHROMIUM_VARIABLE) or DEFAULT_CHROMIUM)


def browser_problem() -> str | None:
    """Why the browser tests cannot run here (one line with what to do), or None."""
    if importlib.util.find_spec("playwright") is None:
        return 'Playwright for Python is not installed: pip install -e ".[test]" (or ' + INSTALL_HINT + ")"
    path = chromium_path()
    if not (path.is_file() and os.access(path, os.X_OK)) and shutil.which(str(path)) is None:
        return (
            f"Chromium is not installed at {path}: apt-get install -y chromium as root "
            f"(or {INSTALL_HINT}; {CHROMIUM_VARIABLE} names another binary)"
        )
    return None


def browsers_required() -> bool:
    return os.environ.get(REQUIRE_VARIABLE) == "1"


def unavailable(reason: str) -> NoReturn:
    """Skips the test, or fails it when CI said the browser must be there."""
    if browsers_required():
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE}=1: browser tests must run)", pytrace=False)
    pytest.skip(reason)


class _Session:
    playwright: Playwright | None = None
    browser: Browser | None = None


def shared_browser() -> Browser:
    """The session's one Chromium, started on first use (skipped or failed when it cannot be)."""
    if _Session.browser is not None and _Session.browser.is_connected():
        return _Session.browser
    problem = browser_problem()
    if problem:
        unavailable(problem)
    from playwright.sync_api import sync_playwright

    _Session.playwright = sync_playwright().start()
    try:
        _Session.browser = _Session.playwright.chromium.launch(
            executable_path=str(chromium_path()), args=list(CHROMIUM_FLAGS)
        )
    except Exception:
        shutdown()
        raise
    return _Session.browser


def shutdown() -> None:
    """Closes the shared browser and Playwright's driver (at the end of the test session)."""
    browser, playwright = _Session.browser, _Session.playwright
    _Session.browser = _Session.playwright = None
    if browser is not None:
        browser.close()
    if playwright is not None:
        playwright.stop()

"""How fast report.html is written and opened, for suites of growing size.

Run: python bench/html_report.py   (needs Debian's Chromium and the test extra: bash .ci/test installs both)

For 100 to 5,000 failing cases (two metrics each, one turn with 2,600-character answers and tool calls, all
regressed against a passing baseline: tests/report/scenarios.huge_failing) it prints the time to render the page,
its size, and in headless Chromium the time from opening the file to the page being ready (its script has run),
the time to open one case (its details filled and its answers word-diffed) and to apply a filter; the median of
3 tries each. Exits 1 when the 2,000-case page takes 2 s or more to open (the target).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser import shared_browser, shutdown  # noqa: E402
from tests.report.scenarios import huge_failing  # noqa: E402

from adk_eval_gate.report.html import page as html_page  # noqa: E402

SIZES = (100, 500, 2_000, 5_000)
TRIES = 3
TARGET_CASES, TARGET_SECONDS = 2_000, 2.0


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def one_try(path: Path, cases: int) -> tuple[float, float, float]:
    """Seconds to open the page, to open its last case, and to filter it, in a fresh page."""
    context = shared_browser().new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        opened = _timed(
            lambda: (page.goto(path.as_uri()), page.wait_for_selector("html[data-ready='1']", state="attached"))
        )
        last = f"#case-{cases - 1}"
        one_case = _timed(
            lambda: (
                page.locator(last).evaluate("(d) => { d.open = true; }"),
                page.wait_for_selector(f"{last} .answers[data-diff='done']", state="attached"),
            )
        )
        filtered = _timed(lambda: page.locator("input[name=status][value=failed]").click())
        return opened, one_case, filtered
    finally:
        context.close()


def measure(path: Path, cases: int) -> tuple[float, float, float]:
    """The median of ``one_try`` over TRIES fresh pages, figure by figure."""
    tries = [one_try(path, cases) for _ in range(TRIES)]
    opened, one_case, filtered = (statistics.median(figures) for figures in zip(*tries, strict=True))
    return opened, one_case, filtered


def main() -> int:
    print(f"{'cases':>6} {'render s':>9} {'MB':>6} {'open s':>7} {'one case s':>11} {'filter s':>9}")
    slow = False
    with tempfile.TemporaryDirectory() as folder:
        try:
            for cases in SIZES:
                doc = huge_failing(cases)
                started = time.perf_counter()
                text = html_page.render(doc)
                render = time.perf_counter() - started
                path = Path(folder) / f"report-{cases}.html"
                path.write_text(text, encoding="utf-8")
                opened, one_case, filtered = measure(path, cases)
                slow |= cases == TARGET_CASES and opened >= TARGET_SECONDS
                size = len(text.encode("utf-8")) / 1e6
                print(f"{cases:>6} {render:>9.2f} {size:>6.1f} {opened:>7.2f} {one_case:>11.3f} {filtered:>9.3f}")
        finally:
            shutdown()
    print(f"target: {TARGET_CASES:,} cases open in under {TARGET_SECONDS} s ({'not met' if slow else 'met'})")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())

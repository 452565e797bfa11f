"""How fast report.html is written and opened, for suites of growing size.

Run: python bench/html_report.py [--sizes 100,1000,10000]   (needs Debian's Chromium and the test extra: bash
.ci/test installs both)

For 100 to 10,000 failing cases (two metrics each, one turn with 2,600-character answers and tool calls, all
regressed against a passing baseline: tests/report/scenarios.huge_failing) it prints the time to render the page,
its size, and in headless Chromium: the time from opening the file to the page being ready (its script has run
and shows the first rows) with the main thread's busy time until then (Chromium's TaskDuration: less sensitive to
the machine's load than the wall clock), the time until every row is listed (the script adds them in slices
after the page is ready), the time to open the last case (its details filled and its answers word-diffed) and
to apply a filter; the median of 3 tries each. Exits 1 when the 10,000-case page takes 2 s or more to be ready
(the target of issue 23).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import astuple, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from adk_eval_gate.report.html import page as html_page  # noqa: E402
from tests.browser import shared_browser, shutdown  # noqa: E402
from tests.report.scenarios import huge_failing  # noqa: E402

SIZES = (100, 1_000, 2_000, 10_000)
TRIES = 3
TARGET_CASES, TARGET_SECONDS = 10_000, 2.0


@dataclass
class Try:
    ready: float  # seconds from opening the file to html[data-ready]
    busy: float  # seconds the page's main thread worked until then
    listed: float  # seconds from opening the file to every row in the list
    one_case: float
    filtered: float


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def one_try(path: Path, cases: int) -> Try:
    """Opens the page in a fresh tab, then its last case, then applies a filter."""
    context = shared_browser().new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        session = context.new_cdp_session(page)
        session.send("Performance.enable")
        started = time.perf_counter()
        page.goto(path.as_uri(), wait_until="commit")
        page.wait_for_selector("html[data-ready='1']", state="attached", timeout=120_000)
        ready = time.perf_counter() - started
        metrics = {m["name"]: m["value"] for m in session.send("Performance.getMetrics")["metrics"]}
        page.wait_for_selector("#case-list[aria-busy='false']", state="attached", timeout=120_000)
        listed = time.perf_counter() - started
        last = f"#case-{cases - 1}"
        one_case = _timed(
            lambda: (
                page.locator(last).evaluate("(d) => { d.open = true; }"),
                page.wait_for_selector(f"{last} .answers[data-diff='done']", state="attached"),
            )
        )
        filtered = _timed(lambda: page.locator("input[name=status][value=failed]").click())
        return Try(ready, float(metrics["TaskDuration"]), listed, one_case, filtered)
    finally:
        context.close()


def measure(path: Path, cases: int) -> Try:
    """The median of ``one_try`` over TRIES fresh pages, figure by figure."""
    tries = [astuple(one_try(path, cases)) for _ in range(TRIES)]
    return Try(*(statistics.median(figures) for figures in zip(*tries, strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="case counts, comma-separated")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    print(
        f"{'cases':>6} {'render s':>9} {'MB':>6} {'ready s':>8} {'busy s':>7} {'listed s':>9} {'one case s':>11} "
        f"{'filter s':>9}"
    )
    slow = False
    with tempfile.TemporaryDirectory() as folder:
        try:
            for cases in sizes:
                doc = huge_failing(cases)
                started = time.perf_counter()
                text = html_page.render(doc)
                render = time.perf_counter() - started
                path = Path(folder) / f"report-{cases}.html"
                path.write_text(text, encoding="utf-8")
                m = measure(path, cases)
                slow |= cases == TARGET_CASES and m.ready >= TARGET_SECONDS
                size = len(text.encode("utf-8")) / 1e6
                print(
                    f"{cases:>6} {render:>9.2f} {size:>6.1f} {m.ready:>8.2f} {m.busy:>7.2f} {m.listed:>9.2f} "
                    f"{m.one_case:>11.3f} {m.filtered:>9.3f}"
                )
        finally:
            shutdown()
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if TARGET_CASES in sizes:
        print(f"target: {TARGET_CASES:,} cases ready in under {TARGET_SECONDS} s ({'not met' if slow else 'met'})")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())

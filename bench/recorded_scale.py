"""Time and peak memory of runs over large recorded suites: they must grow linearly with the cases (issue 23).

Records the speed suite of ``agent_speed.py`` once (the offline weather agent, ``--record`` cases of 3 turns, each
turn a tool call and an answer; a real ``adk-eval-gate run``), then builds suites of each ``--sizes`` by repeating
its recorded runs under new case ids (an eval set and a results.json recording), runs ``adk-eval-gate run --runner
recorded`` on each and prints:

- the time of the whole command and the peak memory of its process tree (the resident memory of every process,
  summed, sampled every 20 ms);
- results.json's bytes a case, report.html's and junit.xml's megabytes, and the time headless Chromium takes to
  open report.html until its script has run (the page is ready), the median of 3 tries;
- the ratios of the largest suite to the smallest, and the targets: time and peak memory at most 11x for 10x the
  cases, peak memory under 1 GB, results.json under 5 KB a case, report.html under 25 MB and ready in under 2 s.

    python bench/recorded_scale.py [--sizes 1000,10000] [--record 20] [--skip-browser]

Needs Debian's Chromium and the test extra for the browser figure (``bash .ci/test`` installs both).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from agent_memory import tree_rss  # noqa: E402
from agent_speed import build_suite  # noqa: E402

MB = 1_000_000
TARGETS = {"growth": 11.0, "peak_bytes": 1 << 30, "case_bytes": 5_000, "page_bytes": 25 * MB, "ready_seconds": 2.0}


@dataclass
class Figures:
    cases: int
    seconds: float
    peak_bytes: int
    results_bytes: int
    page_bytes: int
    junit_bytes: int
    ready_seconds: float | None = None


def _env() -> dict[str, str]:
    env = {**os.environ, "SCRIPTED_MODEL_LATENCY": "0", "PYTHONUNBUFFERED": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return env


def _gate(args: list[str], *, cwd: Path) -> tuple[float, int, subprocess.CompletedProcess[str]]:
    """Runs the gate; (seconds, peak memory of its process tree, the finished process)."""
    command = [sys.executable, "-m", "adk_eval_gate", "run", *args]
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as log:  # a pipe would fill: nothing reads it meanwhile
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=_env(), stdout=log, stderr=subprocess.STDOUT)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss(process.pid)[0])
            time.sleep(0.02)
        seconds = time.perf_counter() - started
        log.seek(0)
        output = log.read()
    if process.returncode not in (0, 1):
        raise RuntimeError(f"adk-eval-gate exited with {process.returncode}:\n{output[-3000:]}")
    return seconds, peak, subprocess.CompletedProcess(command, process.returncode, output, "")


def record(folder: Path, cases: int) -> dict[str, Any]:
    """A results.json of the speed suite, run for real (the template every larger suite repeats)."""
    _, evalset = build_suite(folder / "recorded", cases=cases, turns=3)
    _gate([str(evalset.relative_to(folder)), "--parallelism", "32", "--output-dir", "recorded-out"], cwd=folder)
    loaded: dict[str, Any] = json.loads((folder / "recorded-out" / "results.json").read_text(encoding="utf-8"))
    return loaded


def suite(folder: Path, template: dict[str, Any], cases: int) -> tuple[Path, Path]:
    """An eval set of ``cases`` cases and a recording of them: case ``i`` replays the template's case ``i % n``
    (the speed suite repeats its cities every five cases, so the recorded answers fit)."""
    _, evalset = build_suite(folder / f"suite-{cases}", cases=cases, turns=3)
    display = evalset.relative_to(folder).as_posix()
    recorded = template["cases"]
    replayed = []
    for index in range(cases):
        case = dict(recorded[index % len(recorded)])
        eval_id = f"case_{index:04d}"
        case.update(id=f"{display}::{eval_id}", file=display, eval_id=eval_id, index=index)
        replayed.append(case)
    recording = folder / f"recording-{cases}.json"
    recording.write_text(json.dumps({**template, "cases": replayed}), encoding="utf-8")
    return evalset, recording


def ready_seconds(page: Path, tries: int = 3) -> float:
    """Median seconds for headless Chromium to open the page until its script has run."""
    from tests.browser import shared_browser

    times = []
    for _ in range(tries):
        context = shared_browser().new_context(viewport={"width": 1280, "height": 900})
        try:
            tab = context.new_page()
            started = time.perf_counter()
            tab.goto(page.as_uri())
            tab.wait_for_selector("html[data-ready='1']", state="attached", timeout=120_000)
            times.append(time.perf_counter() - started)
        finally:
            context.close()
    return statistics.median(times)


def measure(folder: Path, template: dict[str, Any], cases: int, *, browser: bool) -> Figures:
    evalset, recording = suite(folder, template, cases)
    out = folder / f"out-{cases}"
    args = [str(evalset.relative_to(folder)), "--runner", "recorded", "--recorded", str(recording)]
    seconds, peak, done = _gate([*args, "--output-dir", str(out)], cwd=folder)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    if results["totals"]["cases"] != cases:
        raise RuntimeError(f"{results['totals']} for {cases} cases:\n{done.stdout[-3000:]}")
    figures = Figures(
        cases=cases,
        seconds=seconds,
        peak_bytes=peak,
        results_bytes=(out / "results.json").stat().st_size,
        page_bytes=(out / "report.html").stat().st_size,
        junit_bytes=(out / "junit.xml").stat().st_size,
    )
    if browser:
        figures.ready_seconds = ready_seconds(out / "report.html")
    return figures


def _row(f: Figures) -> str:
    ready = f"{f.ready_seconds:.2f}" if f.ready_seconds is not None else "-"
    return (
        f"{f.cases:>7,} {f.seconds:>8.1f} {f.peak_bytes / MB:>8.0f} {f.results_bytes / f.cases:>9,.0f} "
        f"{f.page_bytes / MB:>8.1f} {ready:>8} {f.junit_bytes / MB:>8.1f}"
    )


def verdict(rows: list[Figures]) -> list[str]:
    """Prints the ratios and the targets; returns those missed."""
    small, large = rows[0], rows[-1]
    growth = large.cases / small.cases
    time_ratio, memory_ratio = large.seconds / small.seconds, large.peak_bytes / small.peak_bytes
    limit = TARGETS["growth"] * growth / 10
    print(f"{large.cases:,} / {small.cases:,} cases ({growth:.0f}x): time {time_ratio:.1f}x, peak memory "
          f"{memory_ratio:.1f}x (target <= {limit:.0f}x)")  # fmt: skip
    checks = [
        ("time growth", time_ratio <= limit),
        ("memory growth", memory_ratio <= limit),
        ("peak memory under 1 GB", large.peak_bytes < TARGETS["peak_bytes"]),
        ("results.json under 5 KB a case", large.results_bytes / large.cases < TARGETS["case_bytes"]),
        ("report.html under 25 MB", large.page_bytes < TARGETS["page_bytes"]),
    ]
    if large.ready_seconds is not None:
        checks.append(("report.html ready in under 2 s", large.ready_seconds < TARGETS["ready_seconds"]))
    for name, met in checks:
        print(f"{name}: {'met' if met else 'MISSED'}")
    return [name for name, met in checks if not met]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000", help="suite sizes, comma-separated, smallest first")
    parser.add_argument("--record", type=int, default=20, help="cases recorded for real (a multiple of 5)")
    parser.add_argument("--skip-browser", action="store_true", help="do not open report.html in Chromium")
    args = parser.parse_args()
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min)")
    rows: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-scale-") as temp:
        folder = Path(temp)
        (folder / ".git").mkdir()
        template = record(folder, args.record)
        print(
            f"{'cases':>7} {'time s':>8} {'peak MB':>8} {'B a case':>9} {'page MB':>8} {'ready s':>8} {'junit MB':>8}"
        )
        try:
            for size in (int(value) for value in args.sizes.split(",")):
                rows.append(measure(folder, template, size, browser=not args.skip_browser))
                print(_row(rows[-1]))
        finally:
            if not args.skip_browser:
                from tests.browser import shutdown

                shutdown()
    missed = verdict(rows) if len(rows) > 1 else []
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

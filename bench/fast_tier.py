"""The fast test tier: how long ``pytest -m "not slow"`` takes, and whether it imports every module of the package.

    python bench/fast_tier.py [--repeats 3] [--xdist N]

Runs the fast tier ``--repeats`` times, serially in one process as the target is stated (under 30 s on 2 cores),
and prints each run's wall time, the CPU time it used and the load average around it, then the median.
The load average matters: the target is for a machine that is otherwise idle, and the wall time of a loaded one
says little (the CPU time says more). ``--xdist N`` also times ``-n N`` runs, for information.

Then the modules under src/ that no fast test imports. Exit code 1 if there are any, if a run failed, or if the
serial median is 30 s or more.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 30.0


def package_modules() -> set[str]:
    src = REPO / "src"
    modules = set()
    for path in src.rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts[-1] != "__main__":
            modules.add(".".join(parts))
    return modules


def _cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run_once(listing: Path | None, *, extra: list[str]) -> tuple[float, int]:
    env = {**os.environ, "ADK_EVAL_GATE_IMPORTED": str(listing)} if listing else dict(os.environ)
    load_before, cpu_before, started = os.getloadavg()[0], _cpu_seconds(), time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *extra],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed, cpu = time.monotonic() - started, _cpu_seconds() - cpu_before
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
    print(f"  {elapsed:5.1f} s wall, {cpu:5.1f} s CPU, load {load_before:.2f} -> {os.getloadavg()[0]:.2f}: {last}")
    return elapsed, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--xdist", type=int, default=0, help="also time -n N runs (pytest-xdist)")
    args = parser.parse_args()
    print(f"pytest -m 'not slow' on {os.cpu_count()} cores, {args.repeats} runs, serially:")
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "imported.txt"
        results = [run_once(listing, extra=[]) for _ in range(args.repeats)]
        imported = set(listing.read_text(encoding="utf-8").split())
    median = statistics.median(elapsed for elapsed, _ in results)
    print(f"median {median:.1f} s (target under {TARGET_SECONDS:.0f} s)")
    if args.xdist:
        print(f"with -n {args.xdist}:")
        spread = [run_once(None, extra=["-n", str(args.xdist)]) for _ in range(args.repeats)]
        print(f"median {statistics.median(elapsed for elapsed, _ in spread):.1f} s")
        results += spread
    missing = sorted(package_modules() - imported)
    print("modules no fast test imports: " + (", ".join(missing) if missing else "none"))
    failed = any(code != 0 for _, code in results)
    return 1 if missing or failed or median >= TARGET_SECONDS else 0


if __name__ == "__main__":
    raise SystemExit(main())

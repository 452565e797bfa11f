"""The fast test tier: how long ``pytest -m "not slow"`` takes, and whether it imports every module of the package.

    python bench/fast_tier.py [--repeats 3]

Prints the wall time of each run and the median, and the modules under src/ that no fast test imports (exit code
1 if there are any, or if the median is 30 s or more).
"""

from __future__ import annotations

import argparse
import os
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


def run_once(listing: Path) -> tuple[float, int]:
    env = {**os.environ, "ADK_EVAL_GATE_IMPORTED": str(listing)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.monotonic() - started
    print(f"  {elapsed:.1f} s: {done.stdout.strip().splitlines()[-1]}")
    return elapsed, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"pytest -m 'not slow' on {os.cpu_count()} cores, {args.repeats} runs:")
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "imported.txt"
        results = [run_once(listing) for _ in range(args.repeats)]
        imported = set(listing.read_text(encoding="utf-8").split())
    median = statistics.median(elapsed for elapsed, _ in results)
    missing = sorted(package_modules() - imported)
    print(f"median {median:.1f} s (target under {TARGET_SECONDS:.0f} s)")
    print("modules no fast test imports: " + (", ".join(missing) if missing else "none"))
    failed = any(code != 0 for _, code in results)
    return 1 if missing or failed or median >= TARGET_SECONDS else 0


if __name__ == "__main__":
    raise SystemExit(main())

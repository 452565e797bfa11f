"""Start-up time of the command line: `adk-eval-gate --help` must return in under 0.3 s.

Run: python bench/cli_startup.py. Prints the median and worst of 10 runs of a fresh interpreter.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def main() -> None:
    times = []
    for _ in range(10):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "adk_eval_gate", "--help"], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    print(
        f"adk-eval-gate --help: median {statistics.median(times) * 1000:.0f} ms, "
        f"worst {max(times) * 1000:.0f} ms over 10 runs (target: under 300 ms)"
    )


if __name__ == "__main__":
    main()

"""Start-up time of the command line: `adk-eval-gate --help` must return in under 0.15 s.

Run: python bench/cli_startup.py. Prints the median and worst of 15 runs of a fresh interpreter, and the bare
interpreter's own start-up for reference (what --help costs on top of it).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

RUNS = 15
TARGET = 0.150


def _times(command: list[str]) -> list[float]:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    bare = _times([sys.executable, "-c", "pass"])
    helped = _times([sys.executable, "-m", "adk_eval_gate", "--help"])
    median = statistics.median(helped)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"python -c pass:       median {statistics.median(bare) * 1000:.0f} ms over {RUNS} runs")
    print(
        f"adk-eval-gate --help: median {median * 1000:.0f} ms, worst {max(helped) * 1000:.0f} ms over {RUNS} runs "
        f"(target: under {TARGET * 1000:.0f} ms): {'met' if median < TARGET else 'NOT MET'}"
    )


if __name__ == "__main__":
    main()

"""Peak memory of the adk runner on a large suite (target: under 1 GiB for 2,000 cases).

Builds the speed bench's suite (a copy of the offline weather agent, cases of 3 turns) with 2,000 cases, runs
``adk-eval-gate run`` on it and samples the resident memory (RSS) of its whole process tree (the main process and
its agent worker processes) every 50 ms; prints the peak of the sum and of the main process.

    python bench/agent_memory.py [--cases 2000] [--turns 3] [--parallelism 32] [--latency 0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_speed import build_suite

TARGET_BYTES = 1 << 30


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as children:
                found.extend(int(child) for child in children.read().split())
    except OSError:
        pass
    return found


def tree_rss(pid: int) -> tuple[int, int]:
    """(RSS of the process and all its descendants, RSS of the process alone)."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += _rss(current)
        stack.extend(_children(current))
    return total, _rss(pid)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--parallelism", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the scripted model sleeps per call")
    args = parser.parse_args()
    if not Path("/proc/self/status").exists():
        print("this bench reads /proc: run it on Linux")
        return 1
    env = {**os.environ, "SCRIPTED_MODEL_LATENCY": str(args.latency)}
    env.pop("GITHUB_ACTIONS", None)
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-memory-") as temp:
        folder = Path(temp)
        (folder / ".git").mkdir()
        _, evalset = build_suite(folder, cases=args.cases, turns=args.turns)
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "adk_eval_gate", "run", str(evalset), "--parallelism", str(args.parallelism),
             "--output-dir", str(folder / "out")],
            cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        peak_total = peak_main = 0
        while process.poll() is None:
            total, main_rss = tree_rss(process.pid)
            peak_total, peak_main = max(peak_total, total), max(peak_main, main_rss)
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        _, stderr = process.communicate()
        results = folder / "out" / "results.json"
        if process.returncode not in (0, 1) or not results.is_file():
            print(stderr[-3000:])
            print(f"adk-eval-gate failed with exit code {process.returncode}")
            return 1
        doc = json.loads(results.read_text(encoding="utf-8"))
        size = results.stat().st_size
    mib = 1024 * 1024
    passed = f"{doc['totals']['passed']}/{doc['totals']['cases']} passed"
    print(
        f"suite: {args.cases} cases x {args.turns} turns, --parallelism {args.parallelism}; "
        f"{passed} in {elapsed:.1f} s; results.json {size / mib:.1f} MiB"
    )
    print(
        f"peak RSS, all processes: {peak_total / mib:.0f} MiB (target < {TARGET_BYTES / mib:.0f} MiB: "
        f"{'met' if peak_total < TARGET_BYTES else 'MISSED'}); main process alone: {peak_main / mib:.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What running the agents in a worker process costs against running them in the main process.

Since issue 9 the adk runner runs agents in worker processes by default (at least one, even at the default
parallelism of 8), so a tool that calls ``os._exit`` or blocks the event loop cannot take the gate with it. This
runs the speed suite of ``agent_speed.py`` (the offline weather agent, 100 ms per model call) with the default
(one worker at parallelism 8) and with ``--workers 0`` (in this process), several times each, and prints the
median whole-command time, the case-run time and the difference.

    python bench/worker_cost.py [--cases 200] [--turns 3] [--latency 0.1] [--parallelism 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_speed import build_suite, run_timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--parallelism", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    env = {**os.environ, "SCRIPTED_MODEL_LATENCY": str(args.latency), "PYTHONUNBUFFERED": "1"}
    env.pop("GITHUB_ACTIONS", None)
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-workers-") as temp:
        folder = Path(temp)
        (folder / ".git").mkdir()
        _, evalset = build_suite(folder, cases=args.cases, turns=args.turns)
        print(f"suite: {args.cases} cases x {args.turns} turns, {args.latency * 1000:.0f} ms per model call")
        timings: dict[str, tuple[list[float], list[float]]] = {}
        for label, extra in (("worker process (default)", []), ("in process (--workers 0)", ["--workers", "0"])):
            totals, runs = [], []
            for _ in range(args.repeats):
                command = [
                    sys.executable,
                    "-m",
                    "adk_eval_gate",
                    "run",
                    str(evalset),
                    "--output-dir",
                    str(folder / "out"),
                ]
                total, done = run_timed([*command, "--parallelism", str(args.parallelism), *extra], cwd=folder, env=env)
                finished = re.search(r"Finished in ([0-9.]+) s", done.stdout)
                if done.returncode not in (0, 1) or not finished:
                    print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
                    return 1
                totals.append(total)
                runs.append(float(finished.group(1)))
            timings[label] = (totals, runs)
            print(
                f"{label}: {statistics.median(totals):.2f} s in all, case runs {statistics.median(runs):.2f} s "
                f"(median of {args.repeats}; all: {', '.join(f'{t:.2f}' for t in totals)})"
            )
        (worker_total, worker_runs), (inline_total, inline_runs) = (
            (statistics.median(t), statistics.median(r)) for t, r in timings.values()
        )
        print(
            f"cost of the worker process: {worker_total - inline_total:+.2f} s in all "
            f"({(worker_total / inline_total - 1) * 100:+.1f}%), {worker_runs - inline_runs:+.2f} s in the case runs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Time and model calls of a one-agent change with and without ``--only-affected``, on the examples (issue 24).

Copies the offline example agents (``examples/weather_agent`` and ``examples/helpdesk_agent``, with their eval
files) into a temporary git repository, runs the gate on the first commit (the baseline, which records each case's
inputs), then for each agent commits a change to its ``agent.py`` alone and runs the gate against that baseline
twice: every case (as without this option), and ``--only-affected``. The weather agent's scripted model sleeps
``--latency`` seconds per call, as a hosted model would take; the helpdesk agent's answers at once.

Prints, per change, the median wall time of the command and of the case runs (results.json's duration), the
model calls the agents made (the runs' usage of the cases that ran) and the ratios.

    python bench/only_affected.py [--latency 0.2] [--parallelism 8] [--repeat 3]

Measured (issue 24; 2 shared cores under a load of about 5, median of 5): the examples have 8 cases; a change to
one agent runs its 4 cases and carries the other 4. Model calls: 12 instead of 27 for a change to the weather
agent (0.44), 15 instead of 27 for the helpdesk agent (0.56). Time of the case runs: 1.10 and 0.64 of a full run
at parallelism 8, 0.91 and 0.72 at parallelism 1; the command's wall time (4.4 to 8.6 s) is mostly Python, ADK
and the worker start-up, the same in both modes. On a suite this small time follows the slowest case that runs:
the savings are the model calls (dollars and rate limits), and minutes once the carried cases are what takes time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
AGENTS = ("weather_agent", "helpdesk_agent")


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=60,
    )


def build(folder: Path) -> Path:
    repo = folder / "repo"
    for agent in AGENTS:
        shutil.copytree(REPO / "examples" / agent, repo / agent, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "requirements.txt").write_text("google-adk\n", encoding="utf-8")
    (repo / ".gitignore").write_text("adk-eval-results/\n__pycache__/\n", encoding="utf-8")
    git(folder, "init", "--quiet", "--initial-branch=main", str(repo))
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "--message", "the examples")
    return repo


def gate(repo: Path, *args: str, latency: float, parallelism: int) -> tuple[float, dict[str, Any]]:
    """One run of the CLI: its wall time and its results.json."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env["SCRIPTED_MODEL_LATENCY"] = str(latency)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "adk_eval_gate", "run", "--parallelism", str(parallelism), *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"the gate exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")
    data: dict[str, Any] = json.loads((repo / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
    return elapsed, data


def model_calls(data: dict[str, Any]) -> int:
    """The agents' model calls in this run: the runs of the cases that ran (a carried case's are the base's)."""
    return sum(
        (run.get("usage") or {}).get("model_calls") or 0
        for case in data["cases"]
        if not case.get("carried")
        for run in case["runs"]
    )


def measure(
    repo: Path, baseline: Path, *, only_affected: bool, latency: float, parallelism: int, repeat: int
) -> dict[str, float]:
    args = ["--baseline", str(baseline), *(["--only-affected"] if only_affected else [])]
    walls, durations, calls, ran = [], [], [], []
    for _ in range(repeat):
        wall, data = gate(repo, *args, latency=latency, parallelism=parallelism)
        walls.append(wall)
        durations.append(data["run"]["duration_seconds"])
        calls.append(model_calls(data))
        ran.append(data["totals"]["cases"] - data["totals"].get("carried", 0))
    return {
        "wall": statistics.median(walls),
        "runs": statistics.median(durations),
        "calls": statistics.median(calls),
        "ran": statistics.median(ran),
        "cases": data["totals"]["cases"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per weather model call")
    parser.add_argument("--parallelism", type=int, default=8, help="case runs at once (the gate's default: 8)")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="only-affected-") as tmp:
        folder = Path(tmp)
        repo = build(folder)
        _, base = gate(repo, latency=options.latency, parallelism=options.parallelism)
        baseline = folder / "base.json"
        baseline.write_text(json.dumps(base), encoding="utf-8")
        print(
            f"examples: {base['totals']['cases']} cases, weather model latency {options.latency:g} s per call, "
            f"parallelism {options.parallelism}, median of {options.repeat}"
        )
        print(f"{'change':<16} {'mode':<14} {'cases run':>9} {'model calls':>11} {'case runs s':>11} {'wall s':>7}")
        for agent in AGENTS:
            source = repo / agent / "agent.py"
            source.write_text(source.read_text(encoding="utf-8") + "\n# a one-agent change\n", encoding="utf-8")
            git(repo, "commit", "--quiet", "--all", "--message", f"change {agent}")
            settings = {"latency": options.latency, "parallelism": options.parallelism, "repeat": options.repeat}
            full = measure(repo, baseline, only_affected=False, **settings)
            only = measure(repo, baseline, only_affected=True, **settings)
            for mode, figures in (("every case", full), ("only-affected", only)):
                print(
                    f"{agent:<16} {mode:<14} {figures['ran']:>5.0f}/{figures['cases']:<3.0f} {figures['calls']:>11.0f}"
                    f" {figures['runs']:>11.2f} {figures['wall']:>7.2f}"
                )
            print(
                f"{'':<16} {'ratio':<14} {only['ran'] / full['ran']:>9.2f} {only['calls'] / full['calls']:>11.2f}"
                f" {only['runs'] / full['runs']:>11.2f} {only['wall'] / full['wall']:>7.2f}"
            )
            git(repo, "reset", "--quiet", "--hard", "HEAD~1")  # the next change starts from the baseline's commit


if __name__ == "__main__":
    main()

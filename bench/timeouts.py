"""The times the tests no longer assert (issue 22: no test asserts a wall-clock time), printed.

    python bench/timeouts.py [--repeats 3]

1. ``run --timeout 5`` on the hostile agent whose tool blocks for an hour (``block``: it sleeps, holding the
   event loop; ``spin``: it spins on the CPU): how long the whole command takes, and how much of it is past the
   5 s (tests/hostile/test_user_code.py only requires that the run ends, and says why).
2. SIGTERM while that tool blocks: from the signal to the gate's exit, reports written.
3. The cost-and-latency agent (tests/compare/test_cost_latency.py, 20 ms per model call): each turn's time against ADK's
   own run of the turn (from its plugin's before-run to its after-run callback), the gate's overhead per turn.

Each figure is the median of ``--repeats`` runs; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.compare.test_cost_latency import AGENT, CITIES  # noqa: E402
from tests.hostile.agents import HOSTILE_AGENT  # noqa: E402
from tests.runners.scripted import turn, write_agent, write_config, write_evalset  # noqa: E402

TIMEOUT = 5
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}


def _hostile_repo(folder: Path, message: str) -> Path:
    (folder / ".git").mkdir(parents=True)
    write_agent(folder / "bot", HOSTILE_AGENT)
    write_config(folder / "bot", {"response_match_score": 0.5})
    cases = {"fine": [turn("hello", answer="echo: hello")], "hostile": [turn(message, answer="done")]}
    write_evalset(folder / "bot" / "hostile.evalset.json", cases)
    return folder


def _gate(*args: str) -> list[str]:
    return [sys.executable, "-m", "adk_eval_gate", "run", "bot", "--output-dir", "out", *args]


def timeout_seconds(message: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        repo = _hostile_repo(Path(folder), message)
        started = time.monotonic()
        command = _gate("--timeout", str(TIMEOUT))
        subprocess.run(command, cwd=repo, env=ENV, capture_output=True, timeout=600, check=False)  # exits 1
        return time.monotonic() - started


def sigterm_seconds() -> float:
    with tempfile.TemporaryDirectory() as folder:
        repo = _hostile_repo(Path(folder), "block")
        process = subprocess.Popen(
            _gate("--parallelism", "1"), cwd=repo, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        assert process.stdout is not None
        while b"ran bot/hostile.evalset.json::fine" not in process.stdout.readline():
            pass
        time.sleep(1.0)  # the blocking case run holds its worker's event loop now
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=600)
        return time.monotonic() - signalled


def turn_overheads() -> list[float]:
    """Per turn: the gate's turn time minus ADK's own run of the turn."""
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder)
        (repo / ".git").mkdir()
        agent = write_agent(repo / "priced", AGENT.format(model="gemini-2.5-flash", extra=False, tokens=1))
        cases = {eval_id: [turn(city, answer=f"It is sunny in {city}.")] for eval_id, city in CITIES.items()}
        write_evalset(agent / "priced.evalset.json", cases)
        write_config(agent, {"response_match_score": 0.5})
        subprocess.run(_gate_priced(), cwd=repo, env=ENV, capture_output=True, check=True, timeout=600)
        runs: dict[tuple[str, str], float] = {}
        for line in (agent / "events.jsonl").read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry["kind"] in ("run_start", "run_end"):
                runs[(entry["invocation"], entry["kind"])] = entry["at"]
        results = json.loads((repo / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
        overheads = []
        for case in results["cases"]:
            record = case["runs"][0]
            for invocation, usage in zip(record["invocations"], record["usage"]["turns"], strict=True):
                ran = invocation["actual"]["invocation_id"]
                overheads.append(usage["seconds"] - (runs[(ran, "run_end")] - runs[(ran, "run_start")]))
        return overheads


def _gate_priced() -> list[str]:
    return [sys.executable, "-m", "adk_eval_gate", "run", "priced", "--workers", "0"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, median of {args.repeats} runs")
    for message in ("block", "spin"):
        took = statistics.median(timeout_seconds(message) for _ in range(args.repeats))
        print(f"run --timeout {TIMEOUT}, a tool that {message}s: {took:.1f} s in all, {took - TIMEOUT:.1f} s past it")
    stopped = statistics.median(sigterm_seconds() for _ in range(args.repeats))
    print(f"SIGTERM while a tool blocks: the gate exits {stopped:.2f} s after the signal, reports written")
    overheads = [value for _ in range(args.repeats) for value in turn_overheads()]
    print(
        f"turn time minus ADK's run of the turn: median {statistics.median(overheads) * 1000:.1f} ms, "
        f"worst {max(overheads) * 1000:.1f} ms over {len(overheads)} turns"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What a verdict you can trust costs in wall time: ``--history`` against the fake GitHub, and
``--confirm-failures`` on the speed suite.

1. History: 10 successful base-branch runs on the local fake GitHub server (tests/fakes), each with a
   results.json artifact of the speed suite's size (200 cases); ``adk-eval-gate run`` of recorded results in a
   pull request with ``--history 0`` (the newest run only), ``--history 10`` with a cold ``--cache-dir`` and again
   with the warm cache. Prints each wall time and the extra time of history.
2. Confirm-failures: the speed suite of bench/agent_speed.py (200 cases x 3 turns, 100 ms per model call,
   parallelism 32) with ``--failing`` cases whose expected answer is wrong, run without and with
   ``--confirm-failures 3``. Prints both times and the extra time.

    python bench/trusted_verdict.py [--cases 200] [--failing 20] [--skip-history] [--skip-confirm]
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

REPO = Path(__file__).resolve().parents[1]
REPEATS = 3
sys.path.insert(0, str(REPO))

from bench.agent_speed import build_suite  # noqa: E402
from tests.fakes.github_server import FakeGitHub  # noqa: E402
from tests.github.flows import artifact_zip, pull_request_env  # noqa: E402


def _gate(args: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "adk_eval_gate", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        raise SystemExit(f"adk-eval-gate failed with exit code {done.returncode}")
    return elapsed, done


def _failing(evalset: Path, count: int) -> None:
    data = json.loads(evalset.read_text(encoding="utf-8"))
    for case in data["eval_cases"][:count]:
        case["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["city"] = "Atlantis"
    evalset.write_text(json.dumps(data), encoding="utf-8")


def history(folder: Path, *, cases: int) -> None:
    _, evalset = build_suite(folder, cases=cases, turns=3)
    env = {**os.environ, "SCRIPTED_MODEL_LATENCY": "0", "PYTHONUNBUFFERED": "1"}
    _gate(["run", str(evalset), "--output-dir", str(folder / "recorded")], cwd=folder, env=env)
    results = folder / "recorded" / "results.json"
    from adk_eval_gate.inputs.saved_results import load_results

    doc = load_results(results)
    fake = FakeGitHub().start()
    try:
        for _ in range(10):
            fake.add_workflow_run(artifacts=[("adk-eval-results", artifact_zip(doc))])
        print(f"history: 10 base runs on the fake GitHub, artifacts of {len(artifact_zip(doc)):,} bytes")
        env = {**env, **pull_request_env(folder, fake, run_id=1)}
        env["GITHUB_WORKSPACE"] = str(folder)
        base = [str(evalset), "--runner", "recorded", "--recorded", str(results), "--comment-mode", "off"]
        timings = {}
        for label, extra in (
            ("--history 0", ["--history", "0"]),
            ("--history 10, cold cache", ["--history", "10", "--cache-dir", str(folder / "cache")]),
            ("--history 10, warm cache", ["--history", "10", "--cache-dir", str(folder / "cache")]),
        ):
            times, requests = [], []
            for _ in range(REPEATS):
                if "cold" in label:
                    shutil.rmtree(folder / "cache", ignore_errors=True)
                before = len(fake.requests)
                elapsed, _ = _gate(["run", *base, *extra, "--output-dir", str(folder / "out")], cwd=folder, env=env)
                times.append(elapsed)
                requests.append(len(fake.requests) - before)
            timings[label] = statistics.median(times)
            print(f"  {label}: {timings[label]:.2f} s median of {REPEATS}, {requests[-1]} API requests")
        print(
            f"  extra time of history: {timings['--history 10, cold cache'] - timings['--history 0']:.2f} s cold, "
            f"{timings['--history 10, warm cache'] - timings['--history 0']:.2f} s warm"
        )
    finally:
        fake.stop()


def confirm(folder: Path, *, cases: int, failing: int) -> None:
    _, evalset = build_suite(folder, cases=cases, turns=3)
    _failing(evalset, failing)
    env = {**os.environ, "SCRIPTED_MODEL_LATENCY": "0.1", "PYTHONUNBUFFERED": "1"}
    env.pop("GITHUB_ACTIONS", None)
    base = ["run", str(evalset), "--parallelism", "32", "--output-dir", str(folder / "out")]
    plain, _ = _gate(base, cwd=folder, env=env)
    confirmed, _ = _gate([*base, "--confirm-failures", "3"], cwd=folder, env=env)
    totals = json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))["totals"]
    print(f"confirm-failures: {cases} cases x 3 turns, 100 ms per model call, {failing} failing, parallelism 32")
    print(f"  without: {plain:.2f} s; with --confirm-failures 3: {confirmed:.2f} s ({3 * failing} more case runs)")
    print(f"  extra time: {confirmed - plain:.2f} s; confirmed failures: {totals['confirmed_failures']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--failing", type=int, default=20)
    parser.add_argument("--skip-history", action="store_true")
    parser.add_argument("--skip-confirm", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-trust-") as temp:
        if not args.skip_history:
            folder = Path(temp) / "history"
            (folder / ".git").mkdir(parents=True)
            history(folder, cases=args.cases)
        if not args.skip_confirm:
            folder = Path(temp) / "confirm"
            (folder / ".git").mkdir(parents=True)
            confirm(folder, cases=args.cases, failing=args.failing)
    return 0


if __name__ == "__main__":
    sys.exit(main())

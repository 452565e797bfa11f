"""Speed of the adk runner on a latency-bound suite, against ``adk eval`` on the same agent and files.

Builds, in a temporary folder, a copy of the offline weather agent whose scripted model sleeps 100 ms per call,
and an eval set of 200 cases of 3 turns (each turn: a tool call and an answer, so 2 model calls). Runs
``adk eval`` (ADK's fixed parallelism of 4) and ``adk-eval-gate run --parallelism 32`` one after the other and
prints both times, the ratio, the ideal time (total model latency / parallelism) and our time / ideal.

Targets (issue 3): at least 6x faster than adk eval; within 1.5x of the ideal time.

    python bench/agent_speed.py [--cases 200] [--turns 3] [--latency 0.1] [--parallelism 32] [--skip-adk]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CITIES = ["Paris", "London", "Tokyo", "New York", "Sydney"]
FORECASTS = {
    "Paris": ("sunny", 22),
    "London": ("rainy", 14),
    "Tokyo": ("cloudy", 18),
    "New York": ("windy", 9),
    "Sydney": ("sunny", 27),
}


def build_suite(folder: Path, *, cases: int, turns: int) -> tuple[Path, Path]:
    """An agent folder (a copy of examples/weather_agent's agent) and its eval set; returns (agent, evalset)."""
    agent = folder / "bench_agent"
    agent.mkdir(parents=True)
    shutil.copy(REPO / "examples" / "weather_agent" / "agent.py", agent / "agent.py")
    (agent / "__init__.py").write_text("from . import agent as agent\n", encoding="utf-8")
    (agent / "test_config.json").write_text(
        json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}}), encoding="utf-8"
    )
    eval_cases = []
    for index in range(cases):
        conversation = []
        for turn in range(turns):
            city = CITIES[(index + turn) % len(CITIES)]
            condition, temperature = FORECASTS[city]
            conversation.append(
                {
                    "invocation_id": f"c{index}-t{turn}",
                    "user_content": {"role": "user", "parts": [{"text": f"What is the weather in {city}?"}]},
                    "final_response": {
                        "role": "model",
                        "parts": [{"text": f"The weather in {city} is {condition} and {temperature} C."}],
                    },
                    "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city}}]},
                }
            )
        eval_cases.append({"eval_id": f"case_{index:04d}", "conversation": conversation})
    evalset = agent / "bench.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "bench", "eval_cases": eval_cases}), encoding="utf-8")
    return agent, evalset


def model_calls_per_case(turns: int) -> int:
    return 2 * turns  # each turn: the tool call, then the answer


def _adk_command() -> list[str]:
    beside = Path(sys.executable).parent / "adk"
    return [str(beside)] if beside.exists() else ["adk"]


def run_timed(command: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the scripted model sleeps per call")
    parser.add_argument("--parallelism", type=int, default=32)
    parser.add_argument("--skip-adk", action="store_true", help="do not run adk eval (no ratio)")
    args = parser.parse_args()

    env = {**os.environ, "SCRIPTED_MODEL_LATENCY": str(args.latency), "PYTHONUNBUFFERED": "1"}
    env.pop("GITHUB_ACTIONS", None)
    total_latency = args.cases * model_calls_per_case(args.turns) * args.latency
    ideal = total_latency / args.parallelism
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-bench-") as temp:
        folder = Path(temp)
        (folder / ".git").mkdir()  # the repository root for config lookup and display paths
        agent, evalset = build_suite(folder, cases=args.cases, turns=args.turns)
        print(
            f"suite: {args.cases} cases x {args.turns} turns, {model_calls_per_case(args.turns)} model calls "
            f"per case, {args.latency * 1000:.0f} ms per call; total model latency {total_latency:.1f} s"
        )

        ours_total, ours = run_timed(
            [
                sys.executable,
                "-m",
                "adk_eval_gate",
                "run",
                str(evalset),
                "--parallelism",
                str(args.parallelism),
                "--output-dir",
                str(folder / "out"),
            ],
            cwd=folder,
            env=env,
        )
        finished = re.search(r"Finished in ([0-9.]+) s: (\d+)/(\d+) runs done", ours.stdout)
        if ours.returncode not in (0, 1) or not finished:
            print(ours.stdout[-3000:], ours.stderr[-3000:], sep="\n")
            print(f"adk-eval-gate failed with exit code {ours.returncode}")
            return 1
        results = json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))
        ours_runs = float(finished.group(1))
        print(
            f"adk-eval-gate --parallelism {args.parallelism}: {ours_total:.2f} s in all "
            f"(case runs {ours_runs:.2f} s; the rest: start-up, loading agent and files, reports, exit); "
            f"{results['totals']['passed']}/{results['totals']['cases']} passed"
        )
        print(f"ideal (total model latency / parallelism): {ideal:.2f} s")
        print(
            f"ours / ideal: {ours_runs / ideal:.2f}x for the case runs, {ours_total / ideal:.2f}x in all "
            f"(target <= 1.5x)"
        )

        if args.skip_adk:
            return 0
        adk_total, adk = run_timed([*_adk_command(), "eval", str(agent), str(evalset)], cwd=folder, env=env)
        passed = re.search(r"Tests passed: (\d+)", adk.stdout)
        if not passed:
            print(adk.stdout[-3000:], adk.stderr[-3000:], sep="\n")
            print(f"adk eval failed with exit code {adk.returncode}")
            return 1
        print(f"adk eval (parallelism 4): {adk_total:.2f} s; {passed.group(1)} passed")
        print(f"speed-up: {adk_total / ours_total:.1f}x (whole commands; target >= 6x)")
        # The fixed cost of each command (start-up, imports, reports, exit), from a one-case suite, to compare the
        # time spent running the cases alone.
        small = folder / "one"
        small.mkdir()
        one_agent, one_evalset = build_suite(small, cases=1, turns=1)
        adk_fixed, _ = run_timed([*_adk_command(), "eval", str(one_agent), str(one_evalset)], cwd=small, env=env)
        print(
            f"adk eval on a one-case suite: {adk_fixed:.2f} s, so about {adk_total - adk_fixed:.1f} s of case runs; "
            f"speed-up on the case runs: {(adk_total - adk_fixed) / ours_runs:.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

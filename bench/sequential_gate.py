"""The real gate with and without ``--sequential`` (issue 46) on a seeded scripted agent: runs spent and wall time.

A suite of ``--cases`` cases (75% always right, 10% always wrong, 15% right with probabilities 0.2-0.9 in turn) runs
through ``adk-eval-gate run`` (the adk runner, its worker processes) twice, ``--num-runs 10 --pass-rule majority
--parallelism 8``, once fixed and once with ``--sequential``. Each model call answers after ``--latency`` seconds; a
case's k-th call is right by a draw seeded with its prompt and k, so both runs read the same stream of outcomes.
Prints each way's runs, wall time and verdicts, the ratios, and whether the wall time holds its target (issue 46:
wall_seq / wall_fixed <= the run ratio + 0.15; majority <= 50% of the runs). The model waits with asyncio.sleep, so
eight runs in flight fit on two cores. Both wall times include the command's start-up and reports, which are the
same both ways and so weigh against the sequential run's ratio.

    python bench/sequential_gate.py [--cases 40] [--latency 0.3]

Measured (40 cases, latency 0.3 s, 29 November 2026, on 2 cores shared with other jobs at a load average of 6-8):
fixed-10 400 runs in 43.9 s, sequential 185 runs (46.2%) in 24.6 s (56.0%): 0.560 <= 0.612, the target holds; 31
passed both ways, 0 stable cases decided otherwise. The schedule leaves no slot idle while another case has a run
to start (every case's waves queue for the same slots); the slots go idle only at the tail, when the few open
cases each wait for their next run's outcome, which the start-up cost outweighs here.
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
from typing import Any

AGENT = """
from __future__ import annotations

import asyncio
import fcntl
import os
import random

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

LOG = os.path.join(os.path.dirname(__file__), "calls.log")
LATENCY = float(os.environ.get("BENCH_LATENCY", "0.3"))


def call_number(prompt: str) -> int:
    with open(LOG, "a+", encoding="utf-8") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.seek(0)
        number = log.read().splitlines().count(prompt) + 1
        log.write(prompt + "\\n")
        return number


class Coin(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        prompt = " ".join(p.text for p in llm_request.contents[-1].parts or [] if p.text)
        await asyncio.sleep(LATENCY)
        rate = int(prompt.split()[0][1:]) / 100
        right = random.Random(f"{prompt}:{call_number(prompt)}").random() < rate
        text = "It is sunny in Paris." if right else "I do not know."
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


root_agent = LlmAgent(name="coin", model=Coin(model="coin"), instruction="Answer.")
"""
FLAKY_RATES = (20, 35, 45, 55, 65, 80, 90)


def suite(count: int) -> dict[str, int]:
    """Case id -> its chance in percent of a right answer."""
    rates = {}
    for number in range(count):
        share = number / count
        rates[f"case_{number:03d}"] = 100 if share < 0.75 else 0 if share < 0.85 else FLAKY_RATES[number % 7]
    return rates


def project(root: Path, rates: dict[str, int]) -> Path:
    agent = root / "coin"
    agent.mkdir(parents=True)
    (agent / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    (agent / "agent.py").write_text(AGENT, encoding="utf-8")
    cases = [
        {
            "eval_id": eval_id,
            "conversation": [
                {
                    "user_content": {"role": "user", "parts": [{"text": f"p{rate} {eval_id}"}]},
                    "final_response": {"role": "model", "parts": [{"text": "It is sunny in Paris."}]},
                }
            ],
        }
        for eval_id, rate in rates.items()
    ]
    (agent / "coin.evalset.json").write_text(json.dumps({"eval_set_id": "coin", "eval_cases": cases}), "utf-8")
    (agent / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}), "utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return agent


def gate(root: Path, latency: float, *extra: str) -> tuple[float, dict[str, Any]]:
    command = [sys.executable, "-m", "adk_eval_gate", "run", "coin", "--num-runs", "10", "--pass-rule", "majority"]
    command += ["--parallelism", "8", "--comment-mode", "off", *extra]
    environment = {**os.environ, "BENCH_LATENCY": str(latency), "GITHUB_ACTIONS": ""}
    started = time.monotonic()
    subprocess.run(command, cwd=root, env=environment, capture_output=True, check=False)
    elapsed = time.monotonic() - started
    return elapsed, json.loads((root / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.3)
    args = parser.parse_args()
    rates = suite(args.cases)
    figures = {}
    for name, extra in (("fixed-10", ()), ("sequential", ("--sequential",))):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            project(root, rates)
            elapsed, results = gate(root, args.latency, *extra)
        runs = sum(len(case["runs"]) for case in results["cases"])
        verdicts = {case["eval_id"]: case["status"] for case in results["cases"]}
        figures[name] = (elapsed, runs, verdicts)
        print(f"{name:11} {runs:5d} runs  {elapsed:6.1f} s  {sum(v == 'passed' for v in verdicts.values())} passed")
    (fixed_time, fixed_runs, fixed_verdicts), (time_, runs, verdicts) = figures["fixed-10"], figures["sequential"]
    stable = [eval_id for eval_id, rate in rates.items() if rate in (0, 100)]
    differ = [eval_id for eval_id in stable if fixed_verdicts.get(eval_id) != verdicts.get(eval_id)]
    run_ratio, wall_ratio = runs / fixed_runs, time_ / fixed_time
    print(f"runs: {run_ratio:.1%} of fixed-10's; wall time: {wall_ratio:.1%} of fixed-10's")
    verdict = "holds" if wall_ratio <= run_ratio + 0.15 else "does not hold"
    print(f"wall_seq / wall_fixed <= run ratio + 0.15: {wall_ratio:.3f} <= {run_ratio + 0.15:.3f} {verdict}")
    print(f"stable cases decided otherwise: {len(differ)}")


if __name__ == "__main__":
    main()

"""What running an ADK custom metric in a process of its own costs per call.

Scores the same one-turn run ``--calls`` times with a trivial custom metric (``code_config``): in the gate's process
(how it ran before) and in a forked process per call (``runners/workers/metric_process.py``, how it runs now), and
prints the median time per call of each and the difference.

    python bench/custom_metric_cost.py [--calls 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from google.genai import types as genai_types

from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricServices
from adk_eval_gate.metrics.registry import configured_metrics
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.model.evalset import EvalCase, Invocation
from adk_eval_gate.runners.workers.metric_process import MetricProcesses

METRIC_MODULE = """
from google.adk.evaluation.evaluator import EvalStatus, EvaluationResult, PerInvocationResult


def always_one(eval_metric, actual, expected, scenario):
    passed = EvalStatus.PASSED
    each = [PerInvocationResult(actual_invocation=i, score=1.0, eval_status=passed) for i in actual]
    return EvaluationResult(overall_score=1.0, overall_eval_status=passed, per_invocation_results=each)
"""


def _run() -> CaseRun:
    content = genai_types.Content(role="user", parts=[genai_types.Part(text="hello")])
    invocation = Invocation(user_content=content, final_response=content)
    case = EvalCase(eval_id="bench", conversation=[invocation])
    return CaseRun(eval_case=case, actual=[invocation], expected=[invocation], scenario=None)


def _timed(metric: Metric, run: CaseRun, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        outcome = asyncio.run(metric.evaluate(run))  # type: ignore[arg-type]
        times.append(time.perf_counter() - started)
        assert outcome.score == 1.0, outcome
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-bench-") as folder:
        os.chdir(folder)
        Path("bench_metrics.py").write_text(METRIC_MODULE, encoding="utf-8")
        sys.path.insert(0, folder)
        config = EvalConfig.model_validate(
            {"criteria": {"one": 0.5}, "custom_metrics": {"one": {"code_config": {"name": "bench_metrics.always_one"}}}}
        )
        configured = next(c for c in configured_metrics(config) if c.custom_function_path is not None)
        here = configured.build(MetricServices())
        isolated = MetricProcesses().wrap(configured.custom_function_path, here)
        run = _run()
        _timed(here, run, 2)  # the module imported, ADK's types built
        in_process = statistics.median(_timed(here, run, args.calls))
        forked = statistics.median(_timed(isolated, run, args.calls))
    print(f"{args.calls} calls; median per call: in the gate's process {in_process * 1000:.1f} ms, ", end="")
    print(f"in a forked process {forked * 1000:.1f} ms (+{(forked - in_process) * 1000:.1f} ms per call)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

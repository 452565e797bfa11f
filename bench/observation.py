"""What observing a case's inputs costs (``runners/workers/observe_events.py``): existence checks raise no audit event,
so ``os.stat``, ``os.lstat`` and ``os.access`` are wrapped while a recording is open, and every call in the process then
goes through Python.

Runs the offline examples (``examples/weather_agent`` and ``examples/helpdesk_agent``) once in this process
(``--workers 0``, so their recordings are this process's), counts the wrapped calls made while a recording was
open, then times ``os.stat`` unwrapped and wrapped (a path outside the repository, and one inside it, which is
recorded).

    python bench/observation.py [--calls 200000]

Measured (2 shared cores under a load of about 10, three runs): 125 wrapped calls for the 8 case runs (16 per
run); a call cost 2.1 to 3.1 us unwrapped, 4.3 to 5.3 us wrapped for a path outside the repository, 8.3 to 11.5 us
for one inside it (recorded): 0.09 to 0.14 ms per case run, against tens of milliseconds for the run itself.
bench/only_affected.py showed no difference beyond its noise (the case runs of a full run: 2.06 and 2.66 s before
these wrappers, 2.10 and 2.49 s after; 4 of 8 cases run for a one-agent change, as before).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adk_eval_gate.runners.workers import observe_events

REPO = Path(__file__).resolve().parents[1]


def count_wrapped_calls() -> list[int]:
    """Makes every wrapper count its calls made while a recording is open (into the returned list's one item)."""
    counted = [0]
    wrap = observe_events._checking

    def counting(original: Callable[..., Any]) -> Callable[..., Any]:
        wrapped = wrap(original)

        @functools.wraps(original)
        def checked(path: Any, *args: Any, **kwargs: Any) -> Any:
            if observe_events._recordings:
                counted[0] += 1
            return wrapped(path, *args, **kwargs)

        return checked

    observe_events._checking = counting
    return counted


def per_call(function: Callable[[str], Any], path: str, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        function(path)
    return (time.perf_counter() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    options = parser.parse_args()
    counted = count_wrapped_calls()
    with tempfile.TemporaryDirectory(prefix="observation-") as tmp:
        repo = Path(tmp) / "repo"
        for agent in ("weather_agent", "helpdesk_agent"):
            shutil.copytree(REPO / "examples" / agent, repo / agent, ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run(["git", "init", "--quiet", str(repo)], check=True)
        os.environ["SCRIPTED_MODEL_LATENCY"] = "0"
        os.chdir(repo)
        from adk_eval_gate import cli

        with contextlib.redirect_stdout(io.StringIO()):
            cli.main(["run", "--workers", "0"])
        data = json.loads((repo / "adk-eval-results" / "results.json").read_text(encoding="utf-8"))
        runs = sum(len(case["runs"]) for case in data["cases"])
        per_run = counted[0] / runs
        print(f"{counted[0]} wrapped calls while recording for {runs} case runs ({per_run:.1f} per run)")
        inside = str(repo / "weather_agent" / "agent.py")
        outside = str(REPO)
        unwrapped = per_call(os.stat, outside, options.calls)
        unwrapped_inside = per_call(os.stat, inside, options.calls)
        observe_events.install(str(repo))
        with observe_events.recording():
            wrapped = per_call(os.stat, outside, options.calls)
            wrapped_inside = per_call(os.stat, inside, options.calls)
    print(f"os.stat per call: {unwrapped:.2f} us unwrapped, {wrapped:.2f} us wrapped (outside the repository)")
    print(f"                  {unwrapped_inside:.2f} us unwrapped, {wrapped_inside:.2f} us wrapped (inside, recorded)")
    print(f"wrapping costs about {(wrapped_inside - unwrapped_inside) * per_run / 1000:.3f} ms per case run")


if __name__ == "__main__":
    main()

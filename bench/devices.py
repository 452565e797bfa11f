"""What each of the gate's small speed devices buys on a realistic run: the whole command with it and without it.

The devices: the heap settled where case runs start (``support/collector.py``: frozen, and the youngest
generation swept less often) and ADK's failed per-turn import remembered (``runners/adk_case.py``,
``MissingImports``); docs/performance.md gives their figures, and those of the devices this bench measured and
the gate no longer has. Each variant is the same ``adk-eval-gate run`` started through a small launcher
(``LAUNCHER``) that turns one device off from the outside before the command starts (the gate's code has no
switch for them), or the code of another commit (``--against REF``: its ``src/`` from ``git archive``, first on
``PYTHONPATH``; the launcher runs it as it is). The workloads:

- ``speed-0`` and ``speed-100``: the speed suite of ``agent_speed.py`` (200 cases of 3 turns, each turn a tool
  call and an answer of a scripted model) with 0 ms model calls (CPU-bound, where the devices weigh the most) and
  100 ms ones, ``--parallelism 32``, the default workers;
- ``recorded-2000``: 2,000 cases replayed by the recorded runner from a recording of 20 cases of that suite (as
  ``recorded_scale.py`` builds it): no agent runs, the reports of a large suite do.

Every round runs each variant once, in a new random order, so that the drift of a shared machine's speed hits
each alike. Printed per workload and variant: the median wall time and CPU time of the whole process tree, their
spread (lowest and highest), and the median of each round's ratio to the gate as it is (``paired``).

    python bench/devices.py [--workloads speed-0,speed-100,recorded-2000] [--rounds 7] [--cases 200]
                            [--variants NAME,...] [--against REF]
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from agent_speed import build_suite  # noqa: E402
from gate_cost import compile_bytecode, load, timed  # noqa: E402
from recorded_scale import _env, record, suite  # noqa: E402

AS_IS = "as is"

# The launcher: ``python -c LAUNCHER VARIANT run ARGS``. It turns the variant's device off, then runs the console
# script's ``entry`` as ``python -m adk_eval_gate`` would. Every variant goes through it, so its own cost (an import
# hook that looks at each module name) is the same for all.
LAUNCHER = """
import gc, importlib.abc, sys

variant = sys.argv.pop(1)


class AfterImport(importlib.abc.MetaPathFinder):
    \"\"\"Calls ``patch(module)`` once ``name`` is imported, wherever that happens (in a forked process too).\"\"\"

    def __init__(self, name, patch):
        self.name, self.patch = name, patch

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            self.patch(module)

        spec.loader.exec_module = exec_module
        return spec


import importlib.util

from adk_eval_gate import cli
from adk_eval_gate.support import collector


def nothing(*args):
    return None


def only(part):
    def settle():
        if part == "freeze":
            gc.freeze()
        else:
            gc.set_threshold(collector.YOUNG_GENERATION, *gc.get_threshold()[1:])
    return settle


if variant == "without settling the heap":
    collector.settle_heap = nothing
elif variant == "without freezing the heap":
    collector.settle_heap = only("young generation")
elif variant == "without the longer young generation":
    collector.settle_heap = only("freeze")
elif variant == "without the remembered imports":
    def forget(module):
        module.MissingImports.learn = nothing
    sys.meta_path.insert(0, AfterImport("adk_eval_gate.runners.adk_case", forget))
elif variant != "as is" and not variant.startswith("commit "):
    raise SystemExit(f"unknown variant {variant!r}")
cli.entry()
"""

VARIANTS = (
    AS_IS,
    "without settling the heap",
    "without freezing the heap",
    "without the longer young generation",
    "without the remembered imports",
)
WORKLOADS = ("speed-0", "speed-100", "recorded-2000")


@dataclass
class Tries:
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


def checkout(ref: str, into: Path) -> Path:
    """``ref``'s ``src/`` (``git archive``), compiled to bytecode as an install would be; returns that folder."""
    archive = subprocess.run(["git", "archive", ref, "src"], cwd=BENCH.parent, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    import compileall

    compileall.compile_dir(into / "src", quiet=1, workers=0)
    return into / "src"


def workload_args(name: str, folder: Path, template: dict[str, object] | None) -> list[str]:
    """The arguments of ``run`` for the workload, its files made in ``folder``."""
    if name.startswith("speed-"):
        evalset = folder / "speed" / "bench_agent" / "bench.evalset.json"
        return [str(evalset), "--parallelism", "32", "--output-dir", str(folder / "out")]
    cases = int(name.removeprefix("recorded-"))
    assert template is not None
    evalset, recording = suite(folder, template, cases)
    return [str(evalset), "--runner", "recorded", "--recorded", str(recording), "--output-dir", str(folder / "out")]


def measure(
    args: list[str], *, folder: Path, variants: list[str], rounds: int, latency: float, sources: dict[str, Path]
) -> dict[str, Tries]:
    env = {**_env(), "SCRIPTED_MODEL_LATENCY": str(latency)}
    tries = {variant: Tries() for variant in variants}
    shuffled = random.Random(20261127)
    for number in range(rounds):
        order = list(variants)
        shuffled.shuffle(order)
        for variant in order:
            variant_env = dict(env)
            if variant in sources:
                variant_env["PYTHONPATH"] = str(sources[variant])
            command = [sys.executable, "-c", LAUNCHER, variant, "run", *args]
            wall, cpu, output, _ = timed(command, cwd=folder, env=variant_env)
            if "Finished in" not in output:
                raise RuntimeError(f"{variant}: the run did not finish:\n{output[-3000:]}")
            tries[variant].walls.append(wall)
            tries[variant].cpus.append(cpu)
        print(f"  round {number + 1}/{rounds} done; {load()}", flush=True)
    return tries


def paired(these: list[float], those: list[float]) -> float:
    return statistics.median(this / that for this, that in zip(these, those, strict=True))


def report(tries: dict[str, Tries]) -> None:
    base = tries[AS_IS]
    print(
        f"  {'variant':<48} {'wall s (lowest-highest)':>24} {'paired':>7} {'CPU s (lowest-highest)':>24} {'paired':>7}"
    )
    for variant, figures in tries.items():
        wall = f"{statistics.median(figures.walls):.2f} ({min(figures.walls):.2f}-{max(figures.walls):.2f})"
        cpu = f"{statistics.median(figures.cpus):.2f} ({min(figures.cpus):.2f}-{max(figures.cpus):.2f})"
        wall_ratio = paired(figures.walls, base.walls)
        cpu_ratio = paired(figures.cpus, base.cpus)
        print(f"  {variant:<48} {wall:>24} {wall_ratio:>6.3f}x {cpu:>24} {cpu_ratio:>6.3f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cases", type=int, default=200, help="cases of the speed suite")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated; 'as is' is always run")
    parser.add_argument("--against", action="append", default=[], help="a commit whose src/ runs as a variant too")
    args = parser.parse_args()
    variants = [AS_IS, *(v for v in args.variants.split(",") if v and v != AS_IS)]
    print(load(), flush=True)
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-devices-") as temp:
        folder = Path(temp)
        (folder / ".git").mkdir()
        sources = {f"commit {ref}": checkout(ref, folder / f"commit-{ref}") for ref in args.against}
        variants += list(sources)
        agent, _ = build_suite(folder / "speed", cases=args.cases, turns=3)
        compile_bytecode(agent)
        workloads = args.workloads.split(",")
        template = record(folder, 20) if any(w.startswith("recorded-") for w in workloads) else None
        for workload in workloads:
            run_args = workload_args(workload, folder, template)
            latency = int(workload.removeprefix("speed-")) / 1000 if workload.startswith("speed-") else 0.0
            print(f"\n{workload}: {args.rounds} rounds of {len(variants)} variants", flush=True)
            tries = measure(
                run_args, folder=folder, variants=variants, rounds=args.rounds, latency=latency, sources=sources
            )
            report(tries)
    print(f"\n{load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

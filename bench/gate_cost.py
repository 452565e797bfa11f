"""What the gate costs against ADK itself: the bare ``Runner`` loop, ``adk-eval-gate run`` and ``adk eval`` on the
same suite, in one invocation.

The suite is the speed suite of ``agent_speed.py`` (a copy of the offline weather agent, 200 cases of 3 turns,
each turn a tool call and an answer). For each model latency (0 ms: CPU-bound; 100 ms: latency-bound) it runs,
``--repeats`` times each, interleaved so that a change of the machine's load hits every command alike:

- ``bare``: ``bare_adk_loop.py``, ADK's ``Runner`` in one process, ``--parallelism`` cases at once, no scoring,
  no reports: the floor;
- ``gate``: ``adk-eval-gate run --parallelism N`` with its default workers (one per core here);
- ``gate --workers 1`` and ``gate --workers 0`` (the agents in the gate's own process);
- ``adk eval`` (100 ms only: at 0 ms it measures nothing the others do not);

and prints, per command, the median wall time and the median total CPU time (user + system) of its whole process
tree (every process is waited for by its parent, so the kernel adds up the tree: ``os.wait4``), for the gate the
median CPU time of each kind of its processes (the supervising parent, the main process, the worker starter and
the workers, sampled from ``/proc`` every 20 ms: each can miss its last 20 ms), then the ratios the targets of
issue 23 are about, both as the ratio of the medians and as the median of each try's ratio (``paired``: the
speed of a shared machine drifts between tries by a fifth here; a target is met when both meet it):

- 0 ms: the gate's CPU / the bare loop's CPU (target <= 1.15) and, with the default workers, the gate's wall
  time / the bare loop's (target <= 0.65 on 2 cores); one worker / two workers, of the whole command and of its
  run phase (the time the gate prints as "Finished in": from its workers' start to its last case run's end, the
  case runs' throughput; target: close to 2), against what the machine itself gives: two bare loops at once
  (``two bare loops at once``: twice the work) against one, by the loops' own clocks;
- 100 ms: ``adk eval`` / the gate (target >= 6).

    python bench/gate_cost.py [--cases 200] [--turns 3] [--parallelism 32] [--repeats 3] [--latencies 0,0.1]
                              [--skip-adk]

Benchmarks on a shared machine are noisy: the load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import importlib.util
import os
import re
import shlex
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_speed import _adk_command, build_suite

BENCH = Path(__file__).resolve().parent
CPU_TARGET, WALL_TARGET, ADK_TARGET = 1.15, 0.65, 6.0


RUN_PHASE = re.compile(r"Finished in ([0-9.]+) s")  # the gate's clock of its case runs, from the workers' start
LOOP = re.compile(r"loop ([0-9.]+) s")  # the bare loop's own clock (imports excluded)
TWO_LOOPS = "two bare loops at once"
ROLES = ("supervisor", "main", "starter", "workers")  # the gate's processes by depth in its tree (deeper: workers)
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass
class Figures:
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    roles: list[dict[str, float]] = field(default_factory=list)  # CPU seconds of each kind of process, per try
    runs: list[float] = field(default_factory=list)  # the gate's run phase, per try ("Finished in ... s")
    loops: list[float] = field(default_factory=list)  # a bare loop's own time, per try (the slower of two at once)

    def role(self, name: str) -> float:
        return statistics.median(try_.get(name, 0.0) for try_ in self.roles) if self.roles else 0.0

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    @property
    def run(self) -> float:
        return statistics.median(self.runs) if self.runs else float("nan")


class TreeWatch(threading.Thread):
    """The CPU time of each process of a tree, by its depth (Linux's ``/proc``; nothing elsewhere), sampled every
    20 ms until the root ends: a process's last sample can miss what it spent in its last 20 ms."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.last: dict[int, tuple[int, float]] = {}  # pid: (depth, CPU seconds)
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.sample()

    def sample(self) -> None:
        parents: dict[int, tuple[int, float]] = {}
        with contextlib.suppress(OSError):
            for entry in os.scandir("/proc"):
                if entry.name.isdigit():
                    with contextlib.suppress(OSError, ValueError, IndexError):
                        with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as stat:
                            fields = stat.read().rpartition(")")[2].split()
                        parents[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS)
        depth = {self.root: 0}
        for _ in range(len(ROLES)):
            depth |= {pid: depth[ppid] + 1 for pid, (ppid, _) in parents.items() if ppid in depth and pid not in depth}
        for pid, level in depth.items():
            if pid in parents:
                self.last[pid] = (level, parents[pid][1])

    def roles(self) -> dict[str, float]:
        found: dict[str, float] = {}
        for level, cpu in self.last.values():
            role = ROLES[min(level, len(ROLES) - 1)]
            found[role] = found.get(role, 0.0) + cpu
        return found


def timed(command: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[float, float, str, dict[str, float]]:
    """(wall seconds, CPU seconds of the whole process tree, its output, CPU seconds by kind of process); raises
    when the command failed."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    watch = TreeWatch(process.pid)
    watch.start()
    assert process.stdout is not None
    output = process.stdout.read()
    watch.sample()  # the root is still there (not reaped): its children's last figures
    _, status, usage = os.wait4(process.pid, 0)
    watch.done.set()
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    text = output.decode("utf-8", "replace")
    if process.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command[:4])}... exited with {process.returncode}:\n{text[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime, text, watch.roles()


def compile_bytecode(agent: Path) -> None:
    """Bytecode for every module the commands can import (the same ``sys.path``: the gate's, its dependencies',
    the suite's agent), as a pip install leaves it (pip compiles on install; ``.ci/venv.sh`` installs with
    ``--no-compile``): with ``PYTHONDONTWRITEBYTECODE`` set and no cache, every command would compile again what
    it imports (about a second of the gate's main process for its own modules; typing_extensions, anyio and
    pygments, about 0.1 s, for every command). Modules already compiled are skipped."""
    spec = importlib.util.find_spec("adk_eval_gate")
    installed = {sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")}
    for folder in [*(spec.submodule_search_locations or [] if spec else []), str(agent), *sorted(installed)]:
        compileall.compile_dir(folder, quiet=1, workers=0)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def commands(folder: Path, *, agent: Path, evalset: Path, parallelism: int, latency: float) -> dict[str, list[str]]:
    gate = [sys.executable, "-m", "adk_eval_gate", "run", str(evalset), "--parallelism", str(parallelism)]
    gate += ["--output-dir", str(folder / "out")]
    bare = [sys.executable, str(BENCH / "bare_adk_loop.py"), str(agent), str(evalset)]
    bare += ["--parallelism", str(parallelism)]
    found = {
        "bare ADK loop": bare,
        "bare, collector frozen": [*bare, "--freeze-gc"],
        TWO_LOOPS: ["sh", "-c", f"{shlex.join(bare)} & {shlex.join(bare)} & wait"],
        "gate (default workers)": gate,
        "gate --workers 1": [*gate, "--workers", "1"],
        "gate --workers 0": [*gate, "--workers", "0"],
    }
    if latency > 0:
        found["adk eval"] = [*_adk_command(), "eval", str(agent), str(evalset)]
        del found[TWO_LOOPS]  # what the machine's 2 cores give two processes: a CPU-bound figure
    return found


def measure(
    folder: Path, *, agent: Path, evalset: Path, args: argparse.Namespace, latency: float, skip_adk: bool
) -> dict[str, Figures]:
    env = {**os.environ, "SCRIPTED_MODEL_LATENCY": str(latency), "PYTHONUNBUFFERED": "1"}
    env.pop("GITHUB_ACTIONS", None)
    chosen = commands(folder, agent=agent, evalset=evalset, parallelism=args.parallelism, latency=latency)
    if skip_adk:
        chosen.pop("adk eval", None)
    figures = {label: Figures() for label in chosen}
    for _ in range(args.repeats):
        for label, command in chosen.items():
            wall, cpu, output, roles = timed(command, cwd=folder, env=env)
            if label == "adk eval" and not re.search(r"Tests passed: \d+", output):
                raise RuntimeError(f"adk eval did not run the suite:\n{output[-3000:]}")
            figures[label].walls.append(wall)
            figures[label].cpus.append(cpu)
            figures[label].roles.append(roles)
            if found := RUN_PHASE.search(output):
                figures[label].runs.append(float(found.group(1)))
            if loops := LOOP.findall(output):
                figures[label].loops.append(max(float(loop) for loop in loops))
    return figures


def paired(these: list[float], those: list[float]) -> float:
    """The median of the ratios of each try's two figures: the commands of a try run one after the other, so a
    change of the machine's speed between tries (a shared machine's) cancels out. A target is met only when both
    this and the ratio of the medians meet it."""
    return statistics.median(this / that for this, that in zip(these, those, strict=True))


def report(figures: dict[str, Figures], *, latency: float) -> list[str]:
    """Prints the table and the ratios; returns the targets missed."""
    print(f"{'command':<24} {'wall s':>8} {'CPU s':>8}   (medians; wall and CPU of each try)")
    for label, figure in figures.items():
        tries = ", ".join(f"{w:.1f}/{c:.1f}" for w, c in zip(figure.walls, figure.cpus, strict=True))
        print(f"{label:<24} {figure.wall:>8.2f} {figure.cpu:>8.2f}   {tries}")
        if label.startswith("gate"):
            print(f"{'':<24} CPU s by process (medians): " + ", ".join(f"{r} {figure.role(r):.2f}" for r in ROLES))
            print(f"{'':<24} run phase s (median): {figure.run:.2f}")
        if figure.loops:
            loop = statistics.median(figure.loops)
            print(f"{'':<24} the loop's own s (median; of two at once, the slower): {loop:.2f}")
    bare, gate = figures["bare ADK loop"], figures["gate (default workers)"]
    one, none = figures["gate --workers 1"], figures["gate --workers 0"]
    missed = []
    if latency == 0:
        cpu_ratio, wall_ratio = gate.cpu / bare.cpu, gate.wall / bare.wall
        paired_cpu, paired_wall = paired(gate.cpus, bare.cpus), paired(gate.walls, bare.walls)
        print(f"gate CPU / bare loop CPU: {cpu_ratio:.2f}x, paired {paired_cpu:.2f}x (target <= {CPU_TARGET})")
        print(f"gate wall / bare loop wall: {wall_ratio:.2f}x, paired {paired_wall:.2f}x (target <= {WALL_TARGET})")
        cpu_ratio, wall_ratio = max(cpu_ratio, paired_cpu), max(wall_ratio, paired_wall)
        print(f"one worker / default workers, wall: {one.wall / gate.wall:.2f}x")
        print(
            f"one worker / default workers, run phase (the case runs' throughput): {one.run / gate.run:.2f}x, paired "
            f"{paired(one.runs, gate.runs):.2f}x (close to 2 on 2 cores)"
        )
        if TWO_LOOPS in figures:  # two loops at once do twice the work: their throughput against one loop's
            two = figures[TWO_LOOPS]
            machine = 2 * statistics.median(bare.loops) / statistics.median(two.loops)
            print(
                f"two bare loops at once / one, throughput: {machine:.2f}x, paired "
                f"{2 / paired(two.loops, bare.loops):.2f}x (what this machine's cores give two ADK processes)"
            )
        print(f"--workers 0 / --workers 1, wall: {none.wall / one.wall:.2f}x (target <= 1)")
        missed += [f"0 ms CPU ratio {cpu_ratio:.2f}"] if cpu_ratio > CPU_TARGET else []
        missed += [f"0 ms wall ratio {wall_ratio:.2f}"] if wall_ratio > WALL_TARGET else []
    else:
        print(f"--workers 0 / --workers 1, wall: {none.wall / one.wall:.2f}x (target <= 1)")
        if "adk eval" in figures:
            speedup = figures["adk eval"].wall / gate.wall
            paired_speedup = 1 / paired(gate.walls, figures["adk eval"].walls)
            print(f"adk eval / gate, wall: {speedup:.1f}x, paired {paired_speedup:.1f}x (target >= {ADK_TARGET})")
            speedup = min(speedup, paired_speedup)
            missed += [f"100 ms speed-up {speedup:.1f}"] if speedup < ADK_TARGET else []
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--parallelism", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--latencies", default="0,0.1", help="seconds per model call, comma-separated")
    parser.add_argument("--skip-adk", action="store_true", help="do not run adk eval")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cores} cores; {load()}")
    missed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="adk-eval-gate-cost-") as temp:
        folder = Path(temp)
        (folder / ".git").mkdir()
        agent, evalset = build_suite(folder, cases=args.cases, turns=args.turns)
        compile_bytecode(agent)
        for latency in (float(value) for value in args.latencies.split(",")):
            print(
                f"\nsuite: {args.cases} cases x {args.turns} turns, {latency * 1000:.0f} ms per model call, "
                f"--parallelism {args.parallelism}, {args.repeats} tries each"
            )
            figures = measure(folder, agent=agent, evalset=evalset, args=args, latency=latency, skip_adk=args.skip_adk)
            missed += report(figures, latency=latency)
    print(f"\n{load()}")
    print("every target met" if not missed else f"targets missed: {'; '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Start-up of the action's container: from `run` to the first log line must take under 3 s on a warm image.

Run: python bench/container_startup.py [--image TAG] [--runs N]   (build the image first: bash .ci/container-test.sh
or `../shared/tools/oci build . TAG`). Runs the image on a copy of the offline example as a step would, and prints,
as the median and worst of N warm runs (after one warm-up run):

- first line, in the container: from the container's first process starting to the CLI's first log line. This
  is the figure the target is about: the entrypoint, Python's start-up and every import before the first line.
- first line, with podman: from `oci run` to the first log line, so including the container engine's own
  start-up. On these machines podman runs with the vfs storage driver, which copies the whole image for every
  container; GitHub's runners use Docker with overlayfs, which does not.
- engine alone: `podman run` of the same image with /bin/true as its entrypoint, the part of the previous
  figure that is not ours.

Exits 1 when the in-container figure misses the target.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 3.0
ENTRYPOINT = "/usr/local/bin/adk-eval-gate-entrypoint"
STEP_ENV = {"GITHUB_ACTIONS": "true", "INPUT_PATHS": "weather_agent", "INPUT_RUNNER": "adk"}


def oci_tool() -> str:
    return os.environ.get("OCI_TOOL") or str(REPO.parent / "shared" / "tools" / "oci")


def first_line_after(command: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[float, str, float | None]:
    """Seconds from starting ``command`` to its first stdout line, that line, and when the process wrote
    ``T0 <epoch>`` first, the seconds from that moment to the following line."""
    started = time.time()
    with subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as process:
        assert process.stdout is not None
        first = process.stdout.readline()
        first_at = time.time()
        inside: float | None = None
        if first.startswith("T0 "):
            process_start = float(first.split()[1])
            first = process.stdout.readline()
            inside = time.time() - process_start
        process.stdout.read()
        process.wait()
    return first_at - started, first.rstrip("\n"), inside


def engine_alone(image: str, *, cwd: Path, env: dict[str, str]) -> float:
    started = time.time()
    subprocess.run(
        [oci_tool(), "podman", "run", "--rm", "--network", "host", "--entrypoint", "/bin/true", image],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.time() - started


def in_container(image: str, *, workspace: Path, env: dict[str, str]) -> tuple[float, str]:
    """The step's container with a shell in front of the real entrypoint that prints the moment it started."""
    command = [oci_tool(), "podman", "run", "--rm", "--network", "host", "--workdir", "/github/workspace"]
    command += ["-v", f"{workspace}:/github/workspace", "-e", "GITHUB_WORKSPACE=/github/workspace"]
    for name in STEP_ENV:
        command += ["-e", name]
    command += ["--entrypoint", "/bin/bash", image, "-c", f'echo "T0 $(date +%s.%N)"; exec {ENTRYPOINT}']
    _, line, inside = first_line_after(command, cwd=workspace, env=env)
    if inside is None:
        raise SystemExit(f"the container printed no start time: {line!r}")
    return inside, line


def describe(name: str, values: list[float]) -> str:
    return f"{name}: median {statistics.median(values):.2f} s, worst {max(values):.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default=os.environ.get("IMAGE_TAG", "localhost/adk-eval-gate:ci"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))} | STEP_ENV
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        workspace = Path(tmp)
        shutil.copytree(
            REPO / "examples" / "weather_agent",
            workspace / "weather_agent",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        in_container(args.image, workspace=workspace, env=env)  # warm-up: page cache, podman's own state
        inside: list[float] = []
        with_engine: list[float] = []
        engine: list[float] = []
        first_line = ""
        for _ in range(args.runs):
            seconds, first_line = in_container(args.image, workspace=workspace, env=env)
            inside.append(seconds)
            total, _, _ = first_line_after([oci_tool(), "run", args.image], cwd=workspace, env=env)
            with_engine.append(total)
            engine.append(engine_alone(args.image, cwd=workspace, env=env))
    print(f"image {args.image}, {args.runs} warm runs on the offline example; first line: {first_line!r}")
    print(describe("first line, in the container", inside) + f" (target: under {TARGET_SECONDS:.0f} s)")
    print(describe("first line, with podman", with_engine))
    print(describe("engine alone (podman run /bin/true)", engine))
    met = statistics.median(inside) < TARGET_SECONDS and max(inside) < TARGET_SECONDS
    print("target met" if met else "TARGET MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

"""Writes every YAML block of the README as a workflow file, so the static checks validate them like the
examples: a whole workflow as it is, a list of steps inside a one-job workflow, a permissions block on top of
one. Usage: python .ci/readme_workflows.py OUTDIR"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
JOB = "jobs:\n  snippet:\n    runs-on: ubuntu-latest\n    steps:\n"


def as_workflow(block: str) -> str:
    if re.search(r"^jobs:", block, re.M):
        return block
    if block.lstrip().startswith("- "):
        return "on: push\n" + JOB + textwrap.indent(block, "      ")
    if block.startswith("permissions:"):
        return "on: push\n" + block + JOB + "      - run: echo ok\n"
    raise SystemExit(f"a README YAML block is neither a workflow, steps nor permissions:\n{block}")


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    blocks = re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    for number, block in enumerate(blocks, start=1):
        (out / f"readme-{number}.yml").write_text(as_workflow(block), encoding="utf-8")
    print(f"{len(blocks)} YAML blocks of the README written to {out}")


if __name__ == "__main__":
    main()

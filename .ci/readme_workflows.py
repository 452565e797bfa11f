"""Writes every YAML block of the README and of the documentation pages (docs/*.md) as a workflow file, so the
static checks validate them like the examples: a whole workflow as it is, a list of steps inside a one-job
workflow, a permissions block on top of one. tests/action/test_workflows.py reads the same workflows through
`snippets()`. Usage: python .ci/readme_workflows.py OUTDIR"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JOB = "jobs:\n  snippet:\n    runs-on: ubuntu-latest\n    steps:\n"


def documents() -> list[Path]:
    """The README, then the pages of the documentation site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def as_workflow(block: str, *, source: str = "README.md") -> str:
    if re.search(r"^jobs:", block, re.M):
        return block
    if block.lstrip().startswith("- "):
        return "on: push\n" + JOB + textwrap.indent(block, "      ")
    if block.startswith("permissions:"):
        return "on: push\n" + block + JOB + "      - run: echo ok\n"
    raise SystemExit(f"a YAML block of {source} is neither a workflow, steps nor permissions:\n{block}")


def snippets() -> list[tuple[str, str]]:
    """(file name, workflow) for each YAML block: readme-1.yml, ..., docs-action-1.yml, docs-cost-1.yml, ..."""
    found = []
    for path in documents():
        prefix = "readme" if path.name == "README.md" else f"docs-{path.stem}"
        source = path.relative_to(ROOT).as_posix()
        blocks = re.findall(r"```yaml\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
        for number, block in enumerate(blocks, start=1):
            found.append((f"{prefix}-{number}.yml", as_workflow(block, source=source)))
    return found


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    written = snippets()
    for name, workflow in written:
        (out / name).write_text(workflow, encoding="utf-8")
    print(f"{len(written)} YAML blocks of the README and docs/ written to {out}")


if __name__ == "__main__":
    main()

"""What each output makes of a golden input, and the files that hold it: ``tests/golden/expected/NAME/`` has the
PR comment, the job summary, the JUnit XML, the annotations written in GitHub Actions and the data report.html
embeds (its title, header, verdict and case details: the page itself carries the hashes of its script and style).

``UPDATE_GOLDEN=1`` rewrites the expected files instead of comparing them (read the diff).
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import comment, junit, summary
from adk_eval_gate.report.html import page
from adk_eval_gate.support.console import Console
from tests.report.scenarios import EXPECTED

HUGE = "huge_failing"
SUMMARY_LIMITS = {HUGE: 120_000}  # the huge suite's summary is kept cut at this size; the real limit is checked too
NOT_KEPT = {  # rendered and checked, but not kept as files
    (HUGE, "junit.xml"): "2.4 MB of the same case 400 times",
    (HUGE, "report-data.json"): "the details of 400 cases of long answers",
}
_REPORT_PARTS = {
    "title": r"<title>(.*?)</title>",
    "header": r"(<header>.*?</header>)",
    "verdict": r'(<section class="verdict">.*?</section>)',
}


def annotations(doc: ResultsDocument) -> str:
    """The annotations github/annotations.py writes for the document inside GitHub Actions: its workflow commands
    (past the 50 GitHub shows, the rest are plain log lines, not annotations)."""
    stream = io.StringIO()
    annotate(Console(in_actions=True, stream=stream), doc)
    return "".join(line for line in stream.getvalue().splitlines(keepends=True) if line.startswith("::"))


def report_data(html: str) -> str:
    """The parts of report.html that come from the document, as JSON: its title, header and verdict, and the
    details of each case (the HTML the page embeds as compressed data, unpacked)."""
    parts: dict[str, object] = {}
    for part, pattern in _REPORT_PARTS.items():
        found = re.search(pattern, html, flags=re.S)
        assert found, f"report.html has no {part}"
        parts[part] = found.group(1)
    details = re.search(r'<script type="application/json" id="case-details">(.*?)</script>', html, flags=re.S)
    assert details, "report.html has no case details"
    parts["case_details"] = page.unpacked_details(json.loads(details.group(1)))
    return json.dumps(parts, indent=1, ensure_ascii=False) + "\n"


Output = Callable[[str, ResultsDocument], str]
OUTPUTS: dict[str, Output] = {
    "comment.md": lambda name, doc: comment.render(doc, gate_id="default"),
    "summary.md": lambda name, doc: summary.render(doc, limit=SUMMARY_LIMITS.get(name, summary.SUMMARY_LIMIT)),
    "junit.xml": lambda name, doc: junit.render(doc),
    "annotations.txt": lambda name, doc: annotations(doc),
    "report-data.json": lambda name, doc: report_data(page.render(doc)),
}


def expected_path(name: str, output: str) -> Path:
    return EXPECTED / name / output


def check_golden(path: Path, text: str) -> None:
    """``text`` against the expected file (``UPDATE_GOLDEN=1`` writes it instead)."""
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run UPDATE_GOLDEN=1 python -m pytest tests/report/test_golden.py"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{path.parent.name}/{path.name} differs: check the change, then UPDATE_GOLDEN=1"

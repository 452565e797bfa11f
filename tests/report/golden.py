"""What each output makes of a golden input, and the files that hold it: ``tests/golden/expected/NAME/`` has the
PR comment, the job summary, the JUnit XML, the annotations written in GitHub Actions and the data report.html
embeds (its title, header, verdict, labelling view and its data, the rows of its case list and the case details:
the page itself carries the hashes of its script and style).

``UPDATE_GOLDEN=1`` rewrites the expected files instead of comparing them (read the diff).
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import comment, junit, summary
from adk_eval_gate.report.html import page
from adk_eval_gate.report.html.case_list import ROW_FIELDS
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


def unpacked_details(packed: dict[str, Any]) -> list[str]:
    """Every case's details HTML from the page's packed details (``page.packed_details``), as the page's script
    unpacks one chunk: base64, then zlib, then a JSON list."""
    return [
        detail
        for chunk in packed["chunks"]
        for detail in json.loads(zlib.decompress(base64.b64decode(chunk)).decode("utf-8"))
    ]


def script_data(html: str, name: str) -> Any:
    """The JSON data of report.html's ``<script type="application/json" id=NAME>``."""
    found = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', html, flags=re.S)
    assert found, f"report.html has no {name}"
    return json.loads(found.group(1))


def rows_of(html: str) -> list[dict[str, Any]]:
    """The rows of report.html's case list, as its script builds them: the fields the filters read (``ROW_FIELDS``)
    and the cells, each a list of pieces ``[text, class, title]`` (class and title empty for bare text)."""
    data = script_data(html, "case-rows")
    rows = []
    for fields in data["rows"]:
        row = dict(zip(ROW_FIELDS, fields, strict=True))
        row["cells"] = [
            [[piece, "", ""] if isinstance(piece, str) else [piece[0], *data["styles"][piece[1]]] for piece in cell]
            for cell in row["cells"]
        ]
        rows.append(row)
    return rows


def row_text(row: dict[str, Any]) -> str:
    """What a row shows: the text of its pieces, one space between."""
    return " ".join(piece[0] for cell in row["cells"] for piece in cell)


def report_data(html: str) -> str:
    """The parts of report.html that come from the document, as JSON: its title, header and verdict, the rows of its
    case list and the details of each case (the HTML the page embeds as compressed data, unpacked)."""
    parts: dict[str, object] = {}
    for part, pattern in _REPORT_PARTS.items():
        found = re.search(pattern, html, flags=re.S)
        assert found, f"report.html has no {part}"
        parts[part] = found.group(1)
    parts["labelling"], parts["label_data"] = _labelling(html)
    parts["case_rows"] = _ROWS_PLACE
    parts["case_details"] = unpacked_details(script_data(html, "case-details"))
    rows = ",\n  ".join(json.dumps(row, ensure_ascii=False) for row in rows_of(html))  # a row a line
    text = json.dumps(parts, indent=1, ensure_ascii=False)
    return text.replace(json.dumps(_ROWS_PLACE), f"[\n  {rows}\n ]" if rows else "[]") + "\n"


_ROWS_PLACE = "(the rows, one a line)"
_LABEL_DATA = re.compile(r'<script type="application/json" id="label-data">.*?</script>', flags=re.S)


def _labelling(html: str) -> tuple[str, Any]:
    """The labelling view's HTML without its data, and its data (None when no turn was judged)."""
    found = re.search(r'<section class="labelling">.*?</section>', html, flags=re.S)
    assert found, "report.html has no labelling view"
    data = script_data(html, "label-data") if _LABEL_DATA.search(found.group(0)) else None
    return _LABEL_DATA.sub("", found.group(0)), data


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

"""Step outputs (GITHUB_OUTPUT's multi-line syntax) and the job summary's size limit."""

from __future__ import annotations

import re
from pathlib import Path

from adk_eval_gate import verdict
from adk_eval_gate.github import outputs
from tests.report.builders import case, document, metric


def parse_output_file(text: str) -> dict[str, str]:
    """Reads GITHUB_OUTPUT the way the runner does (``name<<DELIMITER`` blocks)."""
    values: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if not line:
            continue
        name, delimiter = line.split("<<", 1)
        collected = []
        for inner in lines:
            if inner == delimiter:
                break
            collected.append(inner)
        values[name] = "\n".join(collected)
    return values


def test_every_output_is_written_and_reads_back(tmp_path: Path) -> None:
    doc = document([case("a", [metric("m", 0.9)]), case("b", [metric("m", 0.1)]), case("c", [], error="boom")])
    values = outputs.output_values(
        doc,
        results=tmp_path / "results.json",
        junit=tmp_path / "junit.xml",
        summary=tmp_path / "summary.md",
        html=tmp_path / "report.html",
        comment_url="https://github.com/octo/repo/pull/7#issuecomment-1",
    )
    assert tuple(values) == outputs.OUTPUT_NAMES
    target = tmp_path / "github_output"
    target.write_text("earlier=1\n")
    outputs.write_outputs(target, values)
    written = target.read_text()
    parsed = parse_output_file(written.removeprefix("earlier=1\n"))
    assert parsed == values
    assert parsed["status"] == "error" and parsed["passed"] == "1" and parsed["failed"] == "1"
    assert parsed["errors"] == "1" and parsed["regressions"] == "0" and parsed["not-evaluated"] == "0"


def test_a_value_cannot_end_its_block_early() -> None:
    hostile = "line one\nghadelimiter_x\nstatus<<EOF\npassed"
    text = outputs.format_outputs({"comment-url": hostile})
    delimiter = re.match(r"comment-url<<(\S+)\n", text)
    assert delimiter is not None and delimiter.group(1) not in hostile
    assert parse_output_file(text) == {"comment-url": hostile}


def test_the_step_summary_is_appended_within_the_limit(tmp_path: Path) -> None:
    target = tmp_path / "step_summary.md"
    assert outputs.append_step_summary(target, "# first\n")
    assert outputs.append_step_summary(target, "# second\n")
    assert target.read_text() == "# first\n# second\n"
    target.write_text("x" * (outputs.STEP_SUMMARY_LIMIT - 10))
    assert not outputs.append_step_summary(target, "y" * 11)
    assert target.stat().st_size == outputs.STEP_SUMMARY_LIMIT - 10


def test_flaky_and_quarantined_counts_are_outputs() -> None:
    from adk_eval_gate.github.outputs import output_values
    from tests.report.builders import case, document, metric

    cases = verdict.quarantine(
        [
            case("a", [metric("response_match_score", [0.9, 0.7, 0.9])]),  # flaky, passing on its mean
            case("b", [metric("response_match_score", [0.1, 0.9, 0.1])]),  # flaky too, but quarantined
        ],
        ["agents/weather/weather.evalset.json:b"],
    )
    doc = document(cases)
    values = output_values(doc, results=Path("r"), junit=Path("j"), summary=Path("s"), html=Path("h"), comment_url=None)
    assert (values["flaky"], values["quarantined"], values["failed"], values["status"]) == ("1", "1", "0", "passed")

"""Golden files for the PR comment and the job summary (``UPDATE_GOLDEN=1`` rewrites them), each also
rendered with GitHub's Markdown renderer to prove untrusted text stays inert."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import xmlschema

from adk_eval_gate.report import comment, junit, summary
from tests.report.builders import RUN_URL, baseline_info
from tests.report.safety import problems, render_html
from tests.report.scenarios import SCENARIOS

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
LINKS = {RUN_URL, f"{RUN_URL}#artifacts", baseline_info().run_url or ""}
JUNIT_SCHEMA = xmlschema.XMLSchema(str(Path(__file__).resolve().parents[1] / "fixtures" / "junit.xsd"))
HUGE_SUMMARY_LIMIT = 120_000  # the huge suite's summary golden is cut at this size; the real limit is checked too


def check_golden(path: Path, text: str) -> None:
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs: check the change, then UPDATE_GOLDEN=1"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_comment_golden(name: str) -> None:
    text = comment.render(SCENARIOS[name](), gate_id="default")
    check_golden(GOLDEN / "comment" / f"{name}.md", text)
    assert len(text) <= comment.COMMENT_LIMIT
    assert problems(text, allowed_links=LINKS) == []


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_summary_golden(name: str) -> None:
    limit = HUGE_SUMMARY_LIMIT if name == "huge_failing" else summary.SUMMARY_LIMIT
    text = summary.render(SCENARIOS[name](), limit=limit)
    check_golden(GOLDEN / "summary" / f"{name}.md", text)
    assert len(text.encode("utf-8")) <= limit
    assert problems(text, allowed_links=LINKS, comments=0) == []


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_junit_golden(name: str) -> None:
    text = junit.render(SCENARIOS[name]())
    JUNIT_SCHEMA.validate(text)
    if name != "huge_failing":  # 2.4 MB of the same case 400 times; it is validated, not kept
        check_golden(GOLDEN / "junit" / f"{name}.xml", text)


def test_huge_suite_fits_both_limits_and_says_what_was_cut() -> None:
    doc = SCENARIOS["huge_failing"]()
    body = comment.render(doc)
    assert len(body) <= comment.COMMENT_LIMIT
    assert "Shortened to fit GitHub's comment limit" in body
    shown = body.count("<details><summary>❌")  # one collapsed section per failing case shown
    assert shown == 20
    assert "… and 380 more: see the job summary" in body
    assert "… and 770 more regressions: see the job summary" in body
    assert body.startswith("<!-- adk-eval-gate id=default digest=")
    assert "### ❌ ADK eval gate failed\n\n**400 cases:** 0 passed · 400 failed" in body
    full = summary.render(doc)
    assert len(full.encode("utf-8")) <= summary.SUMMARY_LIMIT
    assert "Shortened to fit GitHub's 1 MiB job-summary limit" in full
    assert full.count("<details>") > shown  # the summary keeps more detail than the comment


def test_hostile_text_is_inert() -> None:
    body = comment.render(SCENARIOS["hostile"]())
    assert comment.parse_marker(body) == ("default", comment.digest(SCENARIOS["hostile"]()))
    html = render_html(body)
    assert html.count("<!--") == 1  # the quoted marker in the answer is text inside a code block
    assert "<script>" not in html and "<img" not in html and "<h1>" not in html
    assert "# Pwned heading" in html  # still shown, as text of the code block

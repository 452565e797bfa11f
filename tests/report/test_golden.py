"""Golden files driven by input files: each results.json under ``tests/golden/inputs/`` (current, and as older
versions of the gate wrote it) against its expected comment, summary, JUnit, annotations and report.html data in
``tests/golden/expected/NAME/``. ``UPDATE_GOLDEN=1 python -m pytest tests/report/test_golden.py`` rewrites them.

The comments and summaries are also rendered with GitHub's Markdown renderer to prove untrusted text stays inert.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.model.results import parse_document
from adk_eval_gate.report import comment, summary
from adk_eval_gate.verdict import redecide
from tests.conftest import junit_schema, validate_results
from tests.report.builders import RUN_URL, baseline_info
from tests.report.golden import HUGE, NOT_KEPT, OUTPUTS, SUMMARY_LIMITS, check_golden, expected_path
from tests.report.safety import problems, render_html
from tests.report.scenarios import EXPECTED, SCENARIOS, input_data, input_names, load_input, source_of

REPO = Path(__file__).resolve().parents[2]
LINKS = {RUN_URL, f"{RUN_URL}#artifacts", baseline_info().run_url or ""}
NAMES = input_names()
OLDER = [name for name in NAMES if source_of(name)]
ADDED_SINCE = {  # keys of results.json that the older versions did not write, where they are now
    "findings": lambda data: [data, *data["cases"]],
    "failing_on_base": lambda data: data["cases"],
    "flaky": lambda data: [data["totals"]],
    "confirmed": lambda data: [case["confirmation"] for case in data["cases"] if case.get("confirmation")],
    "started_at": lambda data: [run for case in data["cases"] for run in case["runs"]],
}


CHECKED = [  # an output that is not kept is still rendered when it has a check of its own (the JUnit schema)
    # the huge suite's outputs other than the comment take a quarter to half a second each (its cuts are checked
    # in the fast tier by its comment and test_huge_suite_fits_both_limits_and_says_what_was_cut)
    pytest.param(name, output, marks=pytest.mark.slow) if name == HUGE and output != "comment.md" else (name, output)
    for name in NAMES
    for output in sorted(OUTPUTS)
    if (name, output) not in NOT_KEPT or output == "junit.xml"
]


@pytest.mark.parametrize(("name", "output"), CHECKED)
def test_golden(name: str, output: str) -> None:
    text = OUTPUTS[output](name, load_input(name))
    if (name, output) not in NOT_KEPT:
        check_golden(expected_path(name, output), text)
    if output == "comment.md":
        assert len(text) <= comment.COMMENT_LIMIT
        assert problems(text, allowed_links=LINKS) == []
    elif output == "summary.md":
        assert len(text.encode("utf-8")) <= SUMMARY_LIMITS.get(name, summary.SUMMARY_LIMIT)
        assert problems(text, allowed_links=LINKS, comments=0) == []
    elif output == "junit.xml":
        junit_schema().validate(text)


def test_every_expected_folder_has_its_input_and_every_output() -> None:
    assert sorted(path.name for path in EXPECTED.iterdir()) == NAMES
    for name in NAMES:
        kept = {output for output in OUTPUTS if (name, output) not in NOT_KEPT}
        assert {path.name for path in (EXPECTED / name).iterdir()} == kept, name


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name == HUGE else name for name in NAMES]
)  # the huge suite's 400 cases take jsonschema a second
def test_every_input_is_a_valid_results_json(name: str) -> None:
    validate_results(input_data(name))


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name == HUGE else name for name in sorted(SCENARIOS)]
)
def test_a_current_input_is_decided_again_as_it_was_saved(name: str) -> None:
    saved = parse_document(input_data(name), shown=name)
    assert redecide(saved) == (saved, [])


@pytest.mark.parametrize("name", OLDER)
def test_an_older_input_lacks_the_newer_keys_and_gives_the_verdict_of_its_source(name: str) -> None:
    older, source = input_data(name), input_data(source_of(name) or "")
    for key, holders in ADDED_SINCE.items():
        assert all(key not in holder for holder in holders(older)), key
    assert any(key in holder for key, holders in ADDED_SINCE.items() for holder in holders(source))
    decided, now = load_input(name), load_input(source_of(name) or "")
    assert (decided.status, [case.status for case in decided.cases]) == (now.status, [c.status for c in now.cases])
    gated = ("cases", "passed", "failed", "error", "not_evaluated", "quarantined", "infrastructure_errors")
    assert [getattr(decided.totals, count) for count in gated] == [getattr(now.totals, count) for count in gated]
    assert decided.findings == now.findings


@pytest.mark.slow  # the comment and the summary of 400 failing cases cut (the fast tier keeps their golden comment)
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

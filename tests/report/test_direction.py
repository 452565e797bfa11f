"""A custom metric where lower is better (its function passes a turn scored at or below the threshold), in every
output: the verdict decided it by its function's statuses, so each output says the comparison that decided it
(``0.6667 > 0.5 (lower is better)``) and never ``0.3333 < 0.5`` for a case that passed; the run scores of a case
with several runs are in every output too."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import comment, junit, summary
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.report.html import case_list as html_cases
from adk_eval_gate.report.html import page
from adk_eval_gate.support.console import Console
from tests.report.builders import FILE, document, lower_is_better_case
from tests.report.golden import rows_of

METRIC = "bad_turns"


def _doc() -> ResultsDocument:
    return document(
        [lower_is_better_case("mostly_fine", [0.0, 0.0, 1.0]), lower_is_better_case("mostly_bad", [1.0, 1.0, 0.0])]
    )


def _pooled() -> ResultsDocument:
    return document([lower_is_better_case("uneven", [1.0, 1.0], [0.0])], num_runs=2)


FAILED_REASON = f"{METRIC}: 0.6667 > 0.5 (lower is better)"


def test_the_verdict_passes_at_or_below_the_threshold_by_the_functions_statuses() -> None:
    fine, bad = _doc().cases
    assert (fine.status, fine.metrics[0].status, fine.metrics[0].lower_is_better) == ("passed", "passed", True)
    assert (bad.status, [f.reason for f in bad.findings]) == ("failed", [FAILED_REASON])
    uneven = _pooled().cases[0]  # turns 1, 1 and 0 pooled over two runs: 2/3, above 0.5
    assert [f.reason for f in uneven.findings] == [f"{FAILED_REASON} (runs: 1, 0)"]


def test_the_comment_and_the_summary_say_the_direction_and_the_run_scores() -> None:
    for text in (comment.render(_doc()), summary.render(_doc())):
        assert "bad\\_turns: 0.6667 &gt; 0.5 \\(lower is better\\)" in text
        assert "&lt; 0.5" not in text
        assert "0.5 (lower is better)" in text  # the metric table's threshold
    for text in (comment.render(_pooled()), summary.render(_pooled())):
        assert "\\(runs: 1, 0\\)" in text


def test_junit_and_the_log_and_the_annotations_say_it() -> None:
    root = ET.fromstring(junit.render(_doc()))
    failure = next(tc.find("failure") for tc in root.iter("testcase") if tc.get("name") == "mostly_bad")
    assert failure is not None and failure.get("message") == FAILED_REASON
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), _doc())
    assert f"  FAIL {FILE}::mostly_bad: {FAILED_REASON}" in out.getvalue().splitlines()
    actions = io.StringIO()
    annotate(Console(in_actions=True, stream=actions), _doc())
    assert actions.getvalue() == f"::error file={FILE},line=5::mostly_bad: {FAILED_REASON}\n"


def test_report_html_says_it_in_the_case_list_and_the_opened_case() -> None:
    html = page.render(_doc())
    chips = [piece for row in rows_of(html) for piece in row["cells"][2]]
    assert [METRIC + " 0.333 / 0.5 (lower is better)", "chip s-passed", "passed"] in chips
    opened = html_cases.case_details(_doc().cases[1], html_cases.Context.of(_doc()))
    assert FAILED_REASON.replace(">", "&gt;") in opened  # why it failed
    assert "<td>0.5 (lower is better)</td>" in opened  # its metric table's threshold
    assert "&lt; 0.5" not in opened

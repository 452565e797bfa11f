"""Carried cases (``--only-affected``) in every output, rendered from the data: the comment and the summary say how
many cases ran and why the rest did not (or why every case ran) and list the carried ones; JUnit has a property,
the log marks them, report.html shows them in the status and in the case. Untrusted text stays text."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from adk_eval_gate.model.results import AffectedRun, Carried, ResultsDocument
from adk_eval_gate.report import comment, junit, summary
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.report.html import case_list as html_cases
from adk_eval_gate.report.html import page
from adk_eval_gate.support.console import Console
from tests.report.builders import case, document, metric
from tests.report.golden import rows_of
from tests.report.test_html import OUR_ATTRIBUTES, OUR_TAGS, parsed

A = "a_agent/a.evalset.json"
B = "b_agent/b.evalset.json"
BASE_URL = "https://github.com/octo/repo/actions/runs/41"
ORIGIN = Carried(sha="ba5e" + "1" * 36, run_url=BASE_URL, description="main (run 41)")


def _doc(*, pull_request: int | None = 7) -> ResultsDocument:
    cases = [
        case("a_sunny", [metric("response_match_score", 0.9)], file=A).model_copy(update={"carried": ORIGIN}),
        case("a_wrong", [metric("response_match_score", 0.3)], file=A).model_copy(update={"carried": ORIGIN}),
        case("b_lookup", [metric("response_match_score", 0.95)], file=B),
        case("b_refund", [metric("response_match_score", 0.85)], file=B),
    ]
    doc = document(cases)
    affected = AffectedRun(base_sha=ORIGIN.sha, changed_files=1, ran=2, carried=2)
    run = doc.run.model_copy(update={"affected": affected, "pull_request": pull_request})
    return doc.model_copy(update={"run": run})


def test_the_comment_says_how_many_cases_ran_and_lists_the_carried_ones_with_all_cases_counted() -> None:
    doc = _doc()
    assert doc.totals.cases == 4 and doc.totals.carried == 2 and doc.totals.failed == 1
    text = comment.render(doc)
    assert "**4 cases:** 3 passed · 1 failed" in text
    assert (
        "**2 of 4 cases ran:** the rest depend on nothing this pull request changed; their results are those of "
        f"[main \\(run 41\\) @ `ba5e111`]({BASE_URL})." in text
    )
    carried = text.split("<strong>Carried from the base run</strong>: 2 cases</summary>", 1)[1]
    assert "a\\_<wbr>sunny" in carried and "a\\_<wbr>wrong" in carried and "b\\_" not in carried.split("</details>")[0]
    assert "❌ a_wrong · carried from the base run <sub>" in text  # a carried failure is still a failure


def test_the_summary_says_the_same_and_a_run_outside_a_pull_request_says_since_the_base_run() -> None:
    text = summary.render(_doc(pull_request=None))
    assert "**2 of 4 cases ran:** the rest depend on nothing that changed since the base run;" in text
    assert "<strong>Carried from the base run</strong>: 2 cases" in text


def test_why_every_case_ran_is_one_line_and_nothing_is_said_without_only_affected() -> None:
    doc = document([case("b_lookup", [metric("response_match_score", 0.95)], file=B)])
    everything = AffectedRun(ran=1, everything="requirements.txt changed: it is an input of every case <b>")
    said = doc.model_copy(update={"run": doc.run.model_copy(update={"affected": everything})})
    text = comment.render(said)
    assert (
        "**Every case ran:** only-affected could not tell which cases the changes touch: requirements.txt changed: "
        "it is an input of every case &lt;b&gt;." in text
    )
    assert "Carried from the base run" not in text
    assert "cases ran" not in comment.render(doc) and "Every case ran" not in summary.render(doc)


def test_junit_gives_each_carried_case_a_property_with_the_run_it_came_from() -> None:
    root = ET.fromstring(junit.render(_doc()))
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties["a_sunny.carried"] == f"main (run 41) {ORIGIN.sha} {BASE_URL}"
    assert properties["a_wrong.carried"] == properties["a_sunny.carried"]
    assert "b_lookup.carried" not in properties
    failures = [tc.get("name") for tc in root.iter("testcase") if tc.find("failure") is not None]
    assert failures == ["a_wrong"]


def test_the_log_marks_carried_cases_and_says_how_many_ran() -> None:
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), _doc())
    lines = out.getvalue().splitlines()
    assert any(line.startswith("PASS (carried) a_agent/a.evalset.json::a_sunny ") for line in lines)
    assert any(line.startswith("  FAIL (carried) a_agent/a.evalset.json::a_wrong:") for line in lines)
    assert any(line.startswith("PASS b_agent/b.evalset.json::b_lookup ") for line in lines)
    assert (
        "2 of 4 cases ran: the rest depend on nothing this pull request changed; their results are those of "
        "main (run 41) @ ba5e111." in lines
    )


def test_report_html_marks_carried_cases_in_their_status_and_says_where_they_came_from() -> None:
    doc = _doc()
    hostile = ORIGIN.model_copy(update={"description": "<script>alert(1)</script>"})
    doc.cases[0] = doc.cases[0].model_copy(update={"carried": hostile})
    html = page.render(doc)
    markup = parsed(html)
    assert {tag for tag, _ in markup.tags} <= OUR_TAGS
    assert {name for _, attributes in markup.tags for name in attributes} <= OUR_ATTRIBUTES
    statuses = [row["cells"][0] for row in rows_of(html)]
    assert sum(["carried", "muted", ""] in status for status in statuses) == 2  # in the status of the two carried rows
    assert any(text.startswith("2 of 4 cases ran: the rest depend on nothing") for text in markup.texts)
    context = html_cases.Context.of(doc)
    opened = parsed(html_cases.case_details(doc.cases[1], context))
    assert opened.texts[:2] == [
        "Carried from the base run",
        "Not run again: nothing it depends on changed. The result is that of main (run 41) @ ba5e11111111.",
    ]
    details = html_cases.case_details(doc.cases[0], context)
    assert "<script>" not in details and "&lt;script&gt;alert(1)&lt;/script&gt;" in details
    assert "Carried from the base run" not in html_cases.case_details(doc.cases[2], context)

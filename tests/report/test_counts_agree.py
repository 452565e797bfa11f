"""Every output of a run states the same counts: the log's last line, results.json, JUnit, the summary, the comment
and report.html, for a run that passes, one that fails, a flaky one, one with a quarantined case and one that
misses a budget. The verdict decides the counts once (``verdict.decide``); each output only renders them."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html.parser import HTMLParser

import pytest

from adk_eval_gate.model.results import Confirmation, ResultsDocument
from adk_eval_gate.report import comment, junit, summary
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.report.html import page
from adk_eval_gate.support.console import Console
from tests.report.builders import case, document, metric
from tests.report.golden import rows_of
from tests.report.scenarios import SCENARIOS as GOLDEN_INPUTS

RESPONSE = "response_match_score"
RERUNS = Confirmation(reason="failed", first_status="failed", extra_runs=2)


def _passing() -> ResultsDocument:
    return document([case("paris", [metric(RESPONSE, 0.9)]), case("tokyo", [metric(RESPONSE, 0.95)])])


def _failing() -> ResultsDocument:
    return document(
        [
            case("paris", [metric(RESPONSE, 0.9)]),
            case("sydney", [metric(RESPONSE, 0.2)]),
            case("oslo", [], error="the agent raised ValueError"),
            case("lima", [metric("judged", None, reason="no API key")]),
        ]
    )


def _flaky() -> ResultsDocument:
    return document(
        [
            case("steady", [metric(RESPONSE, [0.9, 0.9, 0.9])]),
            case("coin", [metric(RESPONSE, [1.0, 0.5, 1.0])]),
            case("confirmed", [metric(RESPONSE, [0.2, 0.3, 0.1])], confirmation=RERUNS),
            case("recovered", [metric(RESPONSE, [0.2, 0.9, 0.1])], confirmation=RERUNS),
        ],
        num_runs=3,
    )


def _quarantine() -> ResultsDocument:
    parked = case("parked", [metric(RESPONSE, [0.9, 0.2, 0.2])]).model_copy(update={"quarantined": True})
    return document([case("paris", [metric(RESPONSE, 0.9)]), parked, case("sydney", [metric(RESPONSE, 0.1)])])


SCENARIOS: dict[str, Callable[[], ResultsDocument]] = {
    "pass": _passing,
    "fail": _failing,
    "flaky": _flaky,
    "quarantine": _quarantine,
    "budget": GOLDEN_INPUTS["cost_rises"],
}


def _log_counts(doc: ResultsDocument) -> list[str]:
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), doc)
    last = out.getvalue().strip().splitlines()[-1]
    words = re.sub(r"^ADK eval gate: .*? - \d+ cases?: ", "", last).split(", ")
    return [word for word in words if not word.endswith("against the baseline")]


def _markdown_counts(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if re.match(r"\*\*\d+ cases?:\*\* ", line))
    return line.split(":** ", 1)[1].split(" · ")


class _Header(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.depth, self.paragraphs = 0, []  # type: ignore[var-annotated]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.depth += tag == "header"

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag == "header"

    def handle_data(self, data: str) -> None:
        if self.depth and re.match(r"\d+ cases? in ", data):
            self.paragraphs.append(data)


def _html_counts(html: str) -> list[str]:
    header = _Header()
    header.feed(html)
    return header.paragraphs[0].split(": ", 1)[1].split(" · ")


def _junit_counts(xml: str) -> dict[str, int]:
    root = ET.fromstring(xml)
    outcomes = {"passed": 0, "failure": 0, "error": 0, "skipped": 0}
    for testcase in root.iter("testcase"):
        kind = next((child.tag for child in testcase if child.tag in ("failure", "error", "skipped")), "passed")
        outcomes[kind] += 1
    return outcomes


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_output_states_the_same_counts(name: str) -> None:
    doc = SCENARIOS[name]()
    totals = doc.totals
    words = _markdown_counts(comment.render(doc))
    assert words[0] == f"{totals.passed} passed"
    assert _markdown_counts(summary.render(doc)) == words
    assert _log_counts(doc) == words
    assert _html_counts(page.render(doc)) == words
    quarantined_passing = sum(1 for c in doc.cases if c.quarantined and c.status == "passed")
    unevaluated = 0 if doc.run.allow_not_evaluated else totals.not_evaluated
    assert _junit_counts(junit.render(doc)) == {
        "passed": totals.passed + quarantined_passing,
        "failure": totals.failed + unevaluated,
        "error": totals.error + totals.file_errors,
        "skipped": totals.quarantined - quarantined_passing + (totals.not_evaluated - unevaluated),
    }


def test_the_scenarios_count_what_they_should() -> None:
    flaky = _flaky().totals
    assert (flaky.passed, flaky.failed, flaky.flaky, flaky.confirmed_failures) == (2, 2, 2, 1)
    quarantine = _quarantine()
    assert (quarantine.totals.failed, quarantine.totals.quarantined, quarantine.status) == (1, 1, "failed")
    assert GOLDEN_INPUTS["cost_rises"]().totals.budgets_missed == 1
    assert _failing().totals.model_dump(include={"passed", "failed", "error", "not_evaluated"}) == {
        "passed": 1,
        "failed": 1,
        "error": 1,
        "not_evaluated": 1,
    }


def test_a_legacy_case_has_one_name_in_junit_the_log_the_comment_and_report_html() -> None:
    legacy = "agents/weather/old_format.test.json"
    doc = document([case(legacy, [metric(RESPONSE, 0.2)], file=legacy), case("paris", [metric(RESPONSE, 0.9)])])
    [failing] = [c for c in doc.cases if c.status == "failed"]
    assert failing.label == "old_format"
    names = {testcase.get("name") for testcase in ET.fromstring(junit.render(doc)).iter("testcase")}
    assert names == {"old_format", "paris"}
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), doc)
    assert f"FAIL {legacy}::old_format: " in out.getvalue()
    assert "<summary>❌ old_format <sub>" in comment.render(doc)
    assert rows_of(page.render(doc))[0]["cells"][1][0] == ["old_format", "eval-id", ""]  # the failing case first

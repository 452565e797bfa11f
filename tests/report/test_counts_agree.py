"""Every output of a run states the same counts: the log's last line, results.json, JUnit, the summary, the comment
and report.html, for a run that passes, one that fails, a flaky one, one with a quarantined case, one that misses a
budget, a run under ``--sequential --undecided neutral`` whose cases fail on a proof of their own or on one across
the suite (e-BH), and runs with LLM judges calibrated against human labels: a judge that does not gate
(informational, the reason on every case it touches), one that gates, one required to be calibrated (an error), and
a judge whose agreement dropped against the baseline (a note, or a failure with --fail-on-regression). The verdict
decides the counts and statuses once (``verdict.decide``); each output only renders them."""

from __future__ import annotations

import html
import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html.parser import HTMLParser

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.model.results import Confirmation, ResultsDocument, SequentialRun, dump_json, parse_document
from adk_eval_gate.report import comment, junit, summary
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.report.html import page
from adk_eval_gate.report.judge_lines import judge_line
from adk_eval_gate.report.markdown import inline
from adk_eval_gate.report.sequential_sections import decision_words
from adk_eval_gate.support.console import Console
from adk_eval_gate.verdict import Policy, earned_gate, ungated_reasons
from tests.compare.test_judge_changes import decided
from tests.report.builders import case, document, metric
from tests.report.golden import rows_of, script_data, unpacked_details
from tests.report.scenarios import SCENARIOS as GOLDEN_INPUTS
from tests.verdict.test_judge_gate import calibration, with_calibrations

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


def _suite_proof() -> ResultsDocument:
    """Under neutral in a suite of 200: eleven cases scoring 0.5 of 0.8, each undecided alone, that e-BH proves
    failing together; one scoring 0 that is proven failing on its own; one that passes."""
    settings = SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=10, undecided="neutral", fail_split=200)
    cases = [case(f"half-{n}", [metric(RESPONSE, [0.5] * 10)]) for n in range(11)]
    cases += [case("broken", [metric(RESPONSE, [0.0] * 10)]), case("steady", [metric(RESPONSE, [1.0] * 10)])]
    policy = Policy(sequential=settings)
    built = document([verdict.decide_case(c, pass_rule="mean", sequential=settings) for c in cases], num_runs=10)
    return verdict.decide(built.model_copy(update={"run": policy.record(built.run)}), None, policy)


JUDGE = "final_response_match_v2"


def _judged(policy: Policy, *, labels: int) -> ResultsDocument:
    """A judge metric on three cases (failing on one, passing on another, with a failing deterministic metric on
    the third) and a case it does not touch, calibrated on ``labels`` labels, as ``run`` marks and decides it."""
    made = earned_gate(calibration(labels=labels), policy)
    reasons = ungated_reasons([made])
    cases = [
        case("wrong", [metric(JUDGE, 0.0, kind="judge"), metric(RESPONSE, 0.9)]),
        case("right", [metric(JUDGE, 1.0, kind="judge"), metric(RESPONSE, 0.9)]),
        case("both", [metric(JUDGE, 0.0, kind="judge"), metric(RESPONSE, 0.2)]),
        case("untouched", [metric(RESPONSE, 0.95)]),
    ]
    marked = [verdict.decide_case(with_calibrations(c, reasons, policy), pass_rule="mean") for c in cases]
    built = document(marked).model_copy(update={"calibrations": [made]})
    return verdict.decide(built, None, policy)


def _judge_informational() -> ResultsDocument:
    return _judged(Policy(), labels=3)


def _judge_gates() -> ResultsDocument:
    return _judged(Policy(min_judge_kappa=0.5), labels=64)


def _judge_required() -> ResultsDocument:
    return _judged(Policy(require_calibrated_judges=True), labels=3)


JUDGE_SCENARIOS: dict[str, Callable[[], ResultsDocument]] = {
    "judge_informational": _judge_informational,
    "judge_gates": _judge_gates,
    "judge_required": _judge_required,
    "judge_dropped": lambda: decided(fail_on_regression=False),
    "judge_dropped_failing": lambda: decided(fail_on_regression=True),
}
SCENARIOS: dict[str, Callable[[], ResultsDocument]] = {
    "pass": _passing,
    "fail": _failing,
    "flaky": _flaky,
    "quarantine": _quarantine,
    "budget": GOLDEN_INPUTS["cost_rises"],
    "suite_proof": _suite_proof,
    **JUDGE_SCENARIOS,
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


_JUNIT_OUTCOME = {"passed": "passed", "failed": "failure", "error": "error", "not_evaluated": "failure"}
_LOG_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}


def _junit_outcomes(xml: str) -> dict[str, str]:
    return {
        testcase.get("name") or "": next(
            (child.tag for child in testcase if child.tag in ("failure", "error", "skipped")), "passed"
        )
        for testcase in ET.fromstring(xml).iter("testcase")
    }


def html_text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


@pytest.mark.parametrize("name", list(JUDGE_SCENARIOS))
def test_every_output_states_each_cases_status_and_why_its_judge_does_not_gate(name: str) -> None:
    doc = JUDGE_SCENARIOS[name]()
    saved = parse_document(json.loads(dump_json(doc)), shown="results.json")
    junit_outcomes = _junit_outcomes(junit.render(doc))
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), doc)
    log = out.getvalue()
    markup = page.render(doc)
    rows = {row["name"]: row["status"] for row in rows_of(markup)}
    details = unpacked_details(script_data(markup, "case-details"))
    comment_text, summary_text = comment.render(doc), summary.render(doc)
    for number, (ours, kept) in enumerate(zip(doc.cases, saved.cases, strict=True)):
        assert kept.status == ours.status and kept.findings == ours.findings
        assert junit_outcomes[ours.label] == _JUNIT_OUTCOME[ours.status]
        assert f"{_LOG_MARK[ours.status]} {ours.file}::{ours.label}" in log
        assert rows[ours.id] == ours.status
        for judged in (m for m in ours.metrics if m.uncalibrated is not None):
            why = next(f for f in ours.findings if f.rule == "judge_calibration" and f.metric == judged.name)
            assert why.reason == f"{judged.name} does not gate: {judged.uncalibrated}"
            assert why.reason in html_text(details[number])
            assert judged.status == "informational"
    for made in doc.calibrations:  # "; before: ..." follows against a baseline
        [line] = [line for line in comment_text.splitlines() if line.startswith(f"- {inline(judge_line(made))}")]
        assert line in summary_text.splitlines()
    assert saved.calibrations == doc.calibrations and saved.status == doc.status


def test_the_judge_scenarios_decide_what_they_should() -> None:
    informational = _judge_informational()
    assert [c.status for c in informational.cases] == ["passed", "passed", "failed", "passed"]
    assert all(f.effect == "none" for c in informational.cases for f in c.findings if f.rule == "judge_calibration")
    assert [c.status for c in _judge_gates().cases] == ["failed", "passed", "failed", "passed"]
    required = _judge_required()
    assert [c.status for c in required.cases] == ["error", "error", "error", "passed"]
    assert required.status == "error"
    noted, failing = decided(fail_on_regression=False), decided(fail_on_regression=True)
    dropped = [noted, failing]
    assert [[f.effect for f in doc.findings if f.metric == "hallucinations_v1"] for doc in dropped] == [
        ["none"],
        ["failed"],
    ]


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


def test_a_case_proven_failing_across_the_suite_shows_in_every_output_as_a_proven_failure() -> None:
    doc = _suite_proof()
    junit_text = junit.render(doc)
    outcomes = _junit_outcomes(junit_text)
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), doc)
    markup = page.render(doc)
    rows = {row["name"]: row["status"] for row in rows_of(markup)}
    details = unpacked_details(script_data(markup, "case-details"))
    saved = parse_document(json.loads(dump_json(doc)), shown="results.json")
    assert [c.status for c in doc.cases].count("failed") == 12 and doc.status == "failed"
    for number, ours in enumerate(doc.cases):
        assert ours.sequential is not None and saved.cases[number] == ours
        assert (outcomes[ours.label], rows[ours.id]) == (_JUNIT_OUTCOME[ours.status], ours.status)
        assert f"{_LOG_MARK[ours.status]} {ours.file}::{ours.label}" in out.getvalue()
        assert f'value="{ours.sequential.decision}"' in junit_text
        [why] = [f.reason for f in ours.findings if f.rule == "sequential"]
        assert why in html_text(details[number])
        if ours.eval_id.startswith("half-"):
            assert decision_words(ours) == "proven fail after 10 runs" and why.startswith("proven failing across")

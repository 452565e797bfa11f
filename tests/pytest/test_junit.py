"""The gate's additions to pytest's ``--junitxml``: an eval test's file, line, scores and Maven Surefire re-run
elements, carried in its user properties and put in place once pytest has written the file."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from adk_eval_gate.model.results import CaseResult, Confirmation
from adk_eval_gate.pytest import junitxml
from tests.conftest import junit_schema
from tests.report.builders import case, metric
from tests.report.test_junit_readers import _annotations_like_mikepenz, _read_like_dorny, _read_with_junitparser

RESPONSE = "response_match_score"
RERUNS = Confirmation(reason="failed", first_status="failed", extra_runs=2)


def _as_pytest_writes_it(cases: dict[str, tuple[CaseResult, str | None]]) -> str:
    """pytest's xunit2 testcases: classname from the node id, the user properties, the outcome element."""
    suite = ET.Element("testsuite", {"name": "pytest", "tests": str(len(cases))})
    for name, (result, outcome) in cases.items():
        testcase = ET.SubElement(suite, "testcase", {"classname": "evals.weather.evalset.json", "name": name})
        holder = ET.SubElement(testcase, "properties")
        for key, value in junitxml.properties(file="evals/weather.evalset.json", line=7, case=result):
            ET.SubElement(holder, "property", {"name": key, "value": value})
        if outcome:
            ET.SubElement(testcase, outcome, {"message": "did not pass"}).text = "did not pass"
        ET.SubElement(testcase, "system-out").text = "output"
    return "<testsuites>" + ET.tostring(suite, encoding="unicode") + "</testsuites>"


def test_flaky_and_re_run_tests_get_surefire_elements_and_the_readers_agree(tmp_path: Path) -> None:
    flaky = case("coin", [metric(RESPONSE, [1.0, 0.5, 1.0])])
    confirmed = case("sydney", [metric(RESPONSE, [0.2, 0.3, 0.1])], confirmation=RERUNS)
    steady = case("paris", [metric(RESPONSE, 0.9)])
    path = tmp_path / "junitxml.xml"
    path.write_text(
        _as_pytest_writes_it({"coin": (flaky, None), "sydney": (confirmed, "failure"), "paris": (steady, None)})
    )
    junitxml.enrich(path)
    junit_schema().validate(str(path))
    xml = path.read_text()
    testcases = {t.get("name"): t for t in ET.fromstring(xml).iter("testcase")}
    assert [e.get("message") for e in testcases["coin"].iter("flakyFailure")] == [
        "run 2: response_match_score: 0.5 < 0.8"
    ]
    assert [child.tag for child in testcases["sydney"]] == [
        "properties", "failure", "rerunFailure", "rerunFailure", "system-out",
    ]  # fmt: skip
    assert [child.tag for child in testcases["paris"]] == ["properties", "system-out"]
    assert all((t.get("file"), t.get("line")) == ("evals/weather.evalset.json", "7") for t in testcases.values())
    assert "adk-eval-gate:" not in xml
    expected = {"coin": "passed", "sydney": "failed", "paris": "passed"}
    assert _read_with_junitparser(xml) == expected and _read_like_dorny(xml) == expected
    assert [(name, file, line) for name, file, line, _ in _annotations_like_mikepenz(xml)] == [
        ("sydney", "evals/weather.evalset.json", 7)
    ]


def test_a_junit_file_without_our_entries_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "junitxml.xml"
    text = (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<testsuites><testsuite name="p" tests="1"><testcase name="t"/></testsuite></testsuites>'
    )
    path.write_text(text)
    junitxml.enrich(path)
    assert path.read_text() == text

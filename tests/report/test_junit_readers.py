"""junit.xml read as its three common consumers read it agrees with the gate's verdict for every case.

EnricoMi/publish-unit-test-result-action parses with junitparser (used here from PyPI, as it uses it);
dorny/test-reporter's java-junit parser and mikepenz/action-junit-report are TypeScript, so their reading rules are
written out below: a testcase fails when it has a ``failure`` or an ``error``, is skipped with ``skipped``, and
mikepenz takes the file and line of an annotation from the testcase's ``file`` and ``line`` attributes (without
them, from the part of the classname after its last dot).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import junitparser
import pytest

from adk_eval_gate.model.results import CaseResult, Confirmation, FileResult, ResultsDocument
from adk_eval_gate.report import junit
from tests.conftest import junit_schema
from tests.report.builders import case, document, invocation, metric

RERUNS = Confirmation(reason="failed", first_status="failed", extra_runs=2)
RESPONSE = "response_match_score"


def _scenarios() -> dict[str, ResultsDocument]:
    passing = case("paris", [metric(RESPONSE, 0.9)])
    return {
        "all pass": document([passing, case("tokyo", [metric(RESPONSE, 1.0)], line=12)]),
        "a failure": document([passing, case("sydney", [metric(RESPONSE, 0.2)], line=20)]),
        "an error": document([passing, case("oslo", [], error="the agent raised ValueError")]),
        "not evaluated, not allowed": document([case("lima", [metric(RESPONSE, None, reason="no API key")])]),
        "not evaluated, allowed": document(
            [case("lima", [metric(RESPONSE, None, reason="no API key")])], allow_not_evaluated=True
        ),
        "3 runs, one failing, passing on the mean": document([case("flaky", [metric(RESPONSE, [1.0, 0.5, 1.0])])]),
        "a failure confirmed by its re-runs": document(
            [case("sydney", [metric(RESPONSE, [0.2, 0.3, 0.1])], confirmation=RERUNS)]
        ),
        "a failure that passed a re-run": document(
            [case("lima", [metric(RESPONSE, [0.2, 0.9, 0.1])], confirmation=RERUNS)]
        ),
        "a quarantined failure": document(
            [passing, case("sydney", [metric(RESPONSE, 0.2)]).model_copy(update={"quarantined": True})]
        ),
        "a file that does not load": document(
            [passing],
            files=[
                FileResult(path="agents/weather/weather.evalset.json", cases=1),
                FileResult(path="agents/broken.evalset.json", error="invalid JSON", line=3),
            ],
        ),
    }


def _verdict(case: CaseResult, doc: ResultsDocument) -> str:
    if case.quarantined and case.status != "passed":
        return "skipped"  # it never fails the gate
    if case.status == "not_evaluated":
        return "skipped" if doc.run.allow_not_evaluated else "failed"
    return {"passed": "passed", "failed": "failed", "error": "failed"}[case.status]


def _expected(doc: ResultsDocument) -> dict[str, str]:
    verdicts = {case.eval_id: _verdict(case, doc) for case in doc.cases}
    verdicts.update({Path(f.path).name: "failed" for f in doc.files if f.error})
    return verdicts


def _read_with_junitparser(xml: str) -> dict[str, str]:
    read = junitparser.JUnitXml.fromstring(xml.encode("utf-8"))  # bytes, as from junit.xml (lxml, when installed)
    outcomes = {}
    for suite in read:
        for testcase in suite:
            kinds = {type(result).__name__ for result in testcase.result}
            outcomes[testcase.name] = (
                "failed" if kinds & {"Failure", "Error"} else "skipped" if "Skipped" in kinds else "passed"
            )
    return outcomes


def _read_like_dorny(xml: str) -> dict[str, str]:
    outcomes = {}
    for testcase in ET.fromstring(xml).iter("testcase"):
        failed = testcase.find("failure") is not None or testcase.find("error") is not None
        skipped = testcase.find("skipped") is not None
        outcomes[testcase.get("name", "")] = "failed" if failed else "skipped" if skipped else "passed"
    return outcomes


def _annotations_like_mikepenz(xml: str) -> list[tuple[str, str, int, str]]:
    annotations = []
    for testcase in ET.fromstring(xml).iter("testcase"):
        problem = testcase.find("failure")
        problem = problem if problem is not None else testcase.find("error")
        if problem is None:
            continue
        file = testcase.get("file") or testcase.get("classname", "").rsplit(".", 1)[-1]
        line = int(testcase.get("line") or 1)
        annotations.append((testcase.get("name", ""), file, line, problem.get("message", "")))
    return annotations


@pytest.mark.parametrize("name", list(_scenarios()))
def test_every_reader_agrees_with_the_gate(name: str) -> None:
    doc = _scenarios()[name]
    xml = junit.render(doc)
    junit_schema().validate(xml)
    expected = _expected(doc)
    assert _read_with_junitparser(xml) == expected
    assert _read_like_dorny(xml) == expected
    failing = {name for name, verdict in expected.items() if verdict == "failed"}
    annotations = _annotations_like_mikepenz(xml)
    assert {item[0] for item in annotations} == failing
    for eval_id, file, line, message in annotations:
        source = next((c for c in doc.cases if c.eval_id == eval_id), None)
        if source is not None:
            assert (file, line) == (source.file, source.line or 1) and message
        else:
            broken = next(f for f in doc.files if Path(f.path).name == eval_id)
            assert (file, line, message) == (broken.path, broken.line, broken.error)


def _surefire(xml: str, tag: str) -> list[str]:
    """The messages of one kind of Maven Surefire re-run element, as the readers that show retries read them."""
    return [element.get("message", "") for element in ET.fromstring(xml).iter(tag)]


def test_flaky_runs_and_re_runs_are_surefire_elements_the_readers_show_as_retries() -> None:
    flaky = junit.render(_scenarios()["3 runs, one failing, passing on the mean"])
    assert _surefire(flaky, "flakyFailure") == ["run 2: response_match_score: 0.5 < 0.8"]
    assert _surefire(flaky, "rerunFailure") == []
    confirmed = junit.render(_scenarios()["a failure confirmed by its re-runs"])
    assert _surefire(confirmed, "rerunFailure") == [
        "run 2: response_match_score: 0.3 < 0.8",
        "run 3: response_match_score: 0.1 < 0.8",
    ]
    assert _surefire(confirmed, "flakyFailure") == [] and len(_surefire(confirmed, "failure")) == 1
    recovered = junit.render(_scenarios()["a failure that passed a re-run"])
    assert _surefire(recovered, "rerunFailure") == ["run 3: response_match_score: 0.1 < 0.8"]  # not the pass


def test_a_suite_takes_the_wall_time_of_its_runs_and_the_root_the_runs() -> None:
    first, second = case("paris", [metric(RESPONSE, 0.9)]), case("tokyo", [metric(RESPONSE, 0.9)])
    first.runs[0].started_at, first.runs[0].duration_seconds = 1000.0, 4.0
    second.runs[0].started_at, second.runs[0].duration_seconds = 1001.0, 4.0  # in parallel: 5 s, not 8
    doc = document([first, second])
    doc.run.duration_seconds = 7.5
    root = ET.fromstring(junit.render(doc))
    (suite,) = root.iter("testsuite")
    assert (suite.get("time"), root.get("time")) == ("5.000", "7.500")


def test_a_passing_case_with_a_failing_run_says_so_inside_its_testcase() -> None:
    xml = junit.render(_scenarios()["3 runs, one failing, passing on the mean"])
    (testcase,) = ET.fromstring(xml).iter("testcase")
    out = testcase.findtext("system-out") or ""
    assert "passed on the mean over 3 runs; 1 of them did not pass: run 2 (failed)" in out
    assert "run 2: failed; response_match_score=0.5" in out


def test_times_have_three_decimals_and_legacy_cases_get_a_readable_name() -> None:
    legacy = case("agents/weather/old.test.json", [metric(RESPONSE, 0.9)], file="agents/weather/old.test.json")
    legacy.runs[0].duration_seconds = 3.2579999999999996
    xml = junit.render(document([legacy]))
    (testcase,) = ET.fromstring(xml).iter("testcase")
    assert testcase.get("name") == "old"  # the name the log, the comment and report.html give it too
    assert testcase.get("time") == "3.258"
    assert "disabled" not in xml


UNFIT = "\x00\x01\x08\x0b\x0c\x0e\x1b\x1f\ud800\udfff\ufffe\uffff"  # what XML 1.0 cannot hold, from an agent or a file


def test_characters_xml_cannot_hold_become_replacement_characters_in_texts_and_attributes() -> None:
    """An agent's answer and tool arguments (texts) and an eval id and error (attributes) may carry control
    characters and lone surrogates; the file must still parse strictly, with U+FFFD in their places, and keep the
    tab, line feed and carriage return XML allows."""
    hostile = f"bad{UNFIT}end\tkept\nline\rreturn"
    turns = [
        invocation(
            "hi",
            expected="fine",
            actual=hostile,
            expected_calls=[],
            actual_calls=[{"name": "get_weather", "args": {"city": hostile}}],
        )
    ]
    failing = case(f"id{UNFIT}", [metric(RESPONSE, 0.1)], turns=turns)
    erroring = case("oslo", [], error=hostile)
    xml = junit.render(document([failing, erroring]))
    encoded = xml.encode("utf-8")  # a lone surrogate would raise here
    root = ET.fromstring(encoded)  # expat: strict XML 1.0
    junit_schema().validate(xml)
    assert not any(char in xml for char in UNFIT)
    names = [testcase.get("name", "") for testcase in root.iter("testcase")]
    assert "id" + "\ufffd" * len(UNFIT) in names
    error = next(element for element in root.iter("error"))
    assert error.get("message", "").startswith("bad" + "\ufffd" * len(UNFIT) + "end")
    texts = "".join(element.text or "" for element in root.iter())
    assert "bad" + "\ufffd" * len(UNFIT) + "end\tkept\nline" in texts

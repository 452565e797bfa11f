"""The pytest plugin in this process (pytester): eval cases as items, their verdicts, JUnit, bad files and rows.

Datasets of recorded answers need no agent, so these runs are fast; a real ADK agent runs in test_projects.py.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import junit_schema, write_json
from tests.inputs.test_vertex_dataset import write_csv, write_jsonl
from tests.pytest.test_evaluator import ROWS

pytest_plugins = ["pytester"]
PLAIN = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")  # hypothesis' plugin costs 1.5 s per inner run


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / ".git").mkdir()
    write_json(pytester.path / "evals" / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0}})
    write_jsonl(pytester.path / "evals" / "rows.evalset.jsonl", ROWS)
    (pytester.path / "evals" / "broken.evalset.json").write_text('{"eval_set_id": "x", "eval_cases": [', "utf-8")
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    return pytester


@pytest.mark.slow  # runs the agents
def test_each_eval_case_is_an_item_with_the_gates_verdict(project: pytest.Pytester) -> None:
    result = project.runpytest("--adk-eval", *PLAIN, "--junitxml=junit-plugin.xml", "-rfE")
    # passed: test_plain and good; failed: wrong_city and the broken file; an error, as in run: the broken row
    result.assert_outcomes(passed=2, failed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED evals/broken.evalset.json::eval-file - *",
            "FAILED evals/rows.evalset.jsonl::wrong_city - *",
            "ERROR evals/rows.evalset.jsonl::broken - *",
        ]
    )
    output = result.stdout.str()
    assert "\nevals/broken.evalset.json:1:37: invalid JSON: Expecting value (fix the JSON syntax)\n" in output
    assert (
        '\n  error: evals/rows.evalset.jsonl:3: predicted_trajectory[0].tool_input: "tool_input" is required' in output
    )
    assert "  tool_trajectory_avg_score: score 0 < threshold 1" in output
    assert '    expected tools  get_weather({"city": "Melbourne"})' in output
    assert "Traceback" not in output
    junit_schema().validate(str(project.path / "junit-plugin.xml"))
    suite = ET.parse(project.path / "junit-plugin.xml").getroot()
    testcases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(testcases) == {"test_plain", "good", "wrong_city", "broken", "eval-file"}
    outcomes = {
        name: [problem.tag for problem in case if problem.tag in {"failure", "error"}]
        for name, case in testcases.items()
    }
    assert outcomes == {
        "eval-file": ["failure"],
        "good": [],
        "wrong_city": ["failure"],
        "broken": ["error"],
        "test_plain": [],
    }
    _the_readers_point_at_the_eval_file_and_see_the_scores(project.path / "junit-plugin.xml")


def _the_readers_point_at_the_eval_file_and_see_the_scores(path: Path) -> None:
    """Each eval test names its eval file (``evals.rows.evalset.jsonl``, not a file named ``jsonl``) and its
    case's line, and carries its scores as properties; the JUnit readers agree on all of it."""
    from tests.report.test_junit_readers import _annotations_like_mikepenz, _read_like_dorny, _read_with_junitparser

    xml = path.read_text(encoding="utf-8")
    testcases = {case.get("name"): case for case in ET.fromstring(xml).iter("testcase")}
    wrong = testcases["wrong_city"]
    assert (wrong.get("file"), wrong.get("line")) == ("evals/rows.evalset.jsonl", "2")
    scores = {p.get("name"): p.get("value") for p in wrong.iter("property")}
    assert scores["tool_trajectory_avg_score"] == "0 (failed)" and scores["tool_call_count_v1"] == "1 (informational)"
    assert testcases["eval-file"].get("file") == "evals/broken.evalset.json"
    assert "adk-eval-gate:" not in xml and testcases["test_plain"].get("file") is None
    expected = {"good": "passed", "wrong_city": "failed", "broken": "failed", "eval-file": "failed"}
    assert {**_read_with_junitparser(xml)} == {**expected, "test_plain": "passed"}
    assert _read_like_dorny(xml) == {**expected, "test_plain": "passed"}
    annotated = {name: (file, line) for name, file, line, _ in _annotations_like_mikepenz(xml)}
    assert annotated == {
        "wrong_city": ("evals/rows.evalset.jsonl", 2),
        "broken": ("evals/rows.evalset.jsonl", 3),
        "eval-file": ("evals/broken.evalset.json", 1),
    }


@pytest.mark.slow  # a pytest run of the plugin in this process (pytester)
def test_the_short_summary_of_ra_gives_what_went_wrong_first(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest's short summary (``-ra``) shows the first line of each failure after the test's id, cut to the
    terminal's width: that line says what went wrong (a metric under its threshold, the bad field of a row, the bad
    JSON), not the case's id again, which the test's id already names."""
    monkeypatch.setenv("COLUMNS", "110")
    for name in ("CI", "BUILD_NUMBER"):  # on CI pytest does not cut the line: cut it here, as a terminal does
        monkeypatch.delenv(name, raising=False)
    result = project.runpytest("--adk-eval", *PLAIN, "-ra")
    summary = result.stdout.str().split("short test summary info", 1)[1].splitlines()
    assert "FAILED evals/rows.evalset.jsonl::wrong_city - tool_trajectory_avg_score: 0 < 1" in summary
    assert any(
        line.startswith('ERROR evals/rows.evalset.jsonl::broken - line 3: predicted_trajectory[0].tool_input: "tool_')
        for line in summary
    ), summary
    assert any(
        line.startswith("FAILED evals/broken.evalset.json::eval-file - line 1, column 37: invalid JSON: Expecting")
        for line in summary
    ), summary


@pytest.mark.slow  # an inner pytest run of a CSV file's two cases
def test_a_file_named_on_the_command_line_may_have_any_name(project: pytest.Pytester) -> None:
    write_csv(project.path / "evals" / "extra.csv", ROWS[:2])
    result = project.runpytest("--adk-eval", *PLAIN, "evals/extra.csv")
    result.assert_outcomes(passed=1, failed=1)
    assert "evals/extra.csv::wrong_city: failed" in result.stdout.str()


@pytest.mark.slow  # two inner pytest runs
@pytest.mark.timeout(60)  # reading the FIFO would block
def test_a_fifo_and_links_that_loop_or_dangle_are_failing_items_that_name_the_file(project: pytest.Pytester) -> None:
    """pytest passes over what is not a regular file; the plugin makes each such eval file a failing item that
    names it instead of skipping it in silence."""
    evals = project.path / "evals"
    os.mkfifo(evals / "fifo.evalset.json")
    (evals / "loop.evalset.json").symlink_to("loop.evalset.json")
    (evals / "dangling.evalset.json").symlink_to("missing.json")
    result = project.runpytest("--adk-eval", *PLAIN, "evals", "-rf")
    result.assert_outcomes(passed=1, failed=5, errors=1)  # the three, the broken file and wrong_city; the bad row
    result.stdout.fnmatch_lines_random(
        [
            "FAILED evals/fifo.evalset.json::eval-file - *",
            "evals/fifo.evalset.json: is a FIFO (named pipe), not a regular file",
            "FAILED evals/loop.evalset.json::eval-file - *",
            "evals/loop.evalset.json: is a symbolic link that loops back on itself",
            "FAILED evals/dangling.evalset.json::eval-file - *",
            "evals/dangling.evalset.json: is a symbolic link to 'missing.json', which does not exist",
        ]
    )
    named = project.runpytest("--adk-eval", *PLAIN, "evals/fifo.evalset.json")
    named.assert_outcomes(failed=1)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file without read permission")
def test_an_unreadable_eval_file_is_a_failing_item_that_names_it(project: pytest.Pytester) -> None:
    (project.path / "evals" / "broken.evalset.json").chmod(0)
    result = project.runpytest("--adk-eval", *PLAIN, "evals/broken.evalset.json")
    result.assert_outcomes(failed=1)
    assert "evals/broken.evalset.json: cannot be read: Permission denied" in result.stdout.str()


def test_off_unless_asked_for(project: pytest.Pytester) -> None:
    result = project.runpytest(*PLAIN)
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (("--adk-num-runs", "0"), "--adk-num-runs must be at least 1, got 0"),
        (("--adk-agent", "no/such"), "--adk-agent: 'no/such' is neither an existing folder nor a dotted module name"),
        (("--adk-config", "none.json"), "--adk-config: config file 'none.json' does not exist"),
    ],
)
def test_options_are_checked(project: pytest.Pytester, option: tuple[str, str], message: str) -> None:
    result = project.runpytest("--adk-eval", *option, *PLAIN)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


@pytest.mark.slow  # two inner pytest runs
def test_the_departures_from_adk_are_flags_of_their_own_and_off_by_default(project: pytest.Pytester) -> None:
    """--adk-legacy-session-file and --adk-lenient-judge-labels reach the gate's settings (run's options)."""
    result = project.runpytest("--adk-eval", "--adk-legacy-session-file", "--adk-lenient-judge-labels", *PLAIN)
    result.assert_outcomes(passed=2, failed=2, errors=1)
    help_text = " ".join(project.runpytest("--help", *PLAIN).stdout.str().split())
    assert "adk-eval-gate's --legacy-session-file" in help_text
    assert "adk-eval-gate's --lenient-judge-labels" in help_text


@pytest.mark.slow  # an inner pytest run
def test_an_adk_eval_result_given_by_path_is_one_failing_item_saying_it_is_not_an_eval_file(
    project: pytest.Pytester,
) -> None:
    result_file = {"eval_set_result_id": "r", "eval_case_results": []}
    write_json(project.path / "evals" / "last.evalset_result.json", result_file)
    result = project.runpytest("--adk-eval", *PLAIN, "-rf", "evals/last.evalset_result.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["FAILED evals/last.evalset_result.json::eval-file - *"])
    assert "is an ADK eval result, not an eval file: replay it with adk-eval-gate run --runner recorded" in (
        result.stdout.str()
    )


@pytest.mark.slow  # a pytest run of the plugin in this process (pytester)
def test_sequential_says_when_a_recording_has_too_few_runs_for_a_decision(project: pytest.Pytester) -> None:
    """A dataset row's recorded answer is one run: it is replayed once, and the case keeps today's verdict."""
    result = project.runpytest("--adk-eval", *PLAIN, "--adk-sequential", "--adk-num-runs", "10", "-rfE")
    result.assert_outcomes(passed=2, failed=2, errors=1)  # the verdicts of a fixed run
    output = result.stdout.str()
    assert "  sequential: no sequential decision after 1 run: a decision needed more (up to 10; a recording" in output
    assert "Traceback" not in output

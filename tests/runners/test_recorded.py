"""The recorded runner reads a results.json one case at a time and keeps each recorded run packed: what it replays
is what the file holds, and a bad case is named by its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adk_eval_gate.model.results import InvalidResults, parse_cases, parse_document
from adk_eval_gate.runners.recorded import RecordedRunner, Recording
from adk_eval_gate.support.errors import RecordedError
from tests.report.scenarios import input_data, input_names


@pytest.mark.parametrize("name", ["regressions", "flaky", "regressions.537fbbc", "hostile"])
def test_each_recorded_run_replays_the_invocations_of_the_file(name: str, tmp_path: Path) -> None:
    path = tmp_path / "recording.json"
    path.write_text(json.dumps(input_data(name)), encoding="utf-8")
    doc = parse_document(input_data(name), shown=name)
    runner = RecordedRunner(path, display="recording.json")
    assert list(runner.by_case_id) == list(dict.fromkeys(case.id for case in doc.cases if case.runs))
    for case in doc.cases:
        for run, recorded in zip(case.runs, runner.by_case_id[case.id], strict=True):
            if run.error:
                assert recorded == run.error
                continue
            assert isinstance(recorded, Recording)
            invocations, state = recorded.replayed()
            assert invocations == [turn.actual_invocation(doc.app_details) for turn in run.invocations]
            assert state == run.final_session_state


def test_cases_are_validated_one_at_a_time() -> None:
    data = input_data("regressions")
    count = len(data["cases"])
    head, cases = parse_cases(data, iter(data["cases"]), shown="r.json")
    assert head.cases == [] and head.totals.cases == count
    assert [case.id for case in cases] == [case["id"] for case in data["cases"]]


@pytest.mark.parametrize(
    ("broken", "where"),
    [
        (lambda data: data["cases"][1].update(status="sideways"), "cases.1.status"),
        (lambda data: data["cases"].__setitem__(2, "not a case"), "cases.2"),
        (
            lambda data: data["cases"][0]["runs"][0].update(invocations=[{"user": ["no"]}]),
            "cases.0.runs.0.invocations.0.user",
        ),
        (lambda data: data.update(totals={"cases": "many"}), "totals.cases"),
        (lambda data: data.update(cases="all of them"), "cases"),
    ],
)
def test_a_bad_case_of_a_recording_is_named_by_its_place(broken: object, where: str, tmp_path: Path) -> None:
    data = input_data("regressions")
    broken(data)  # type: ignore[operator]
    path = tmp_path / "recording.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RecordedError, match=f"not a valid results.json: {where}"):
        RecordedRunner(path, display="recording.json")
    with pytest.raises(InvalidResults, match=where):
        list(parse_cases(data, data["cases"], shown="r")[1])


def test_a_recording_with_a_number_too_large_names_its_line(tmp_path: Path) -> None:
    text = json.dumps(input_data("regressions")).replace('"user": "', '"user": 1e400, "u": "', 1)
    path = tmp_path / "recording.json"
    path.write_text(text.replace("}, {", "},\n{"), encoding="utf-8")
    with pytest.raises(RecordedError, match="1e400 is too large for a number"):
        RecordedRunner(path, display="recording.json")


@pytest.mark.slow  # every golden input, each read as a recording and each of its runs replayed
def test_every_golden_input_can_be_a_recording(tmp_path: Path) -> None:
    for name in input_names():
        if name == "huge_failing":
            continue  # gzipped; the others cover its shapes
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(input_data(name)), encoding="utf-8")
        runner = RecordedRunner(path, display=path.name)
        for runs in runner.by_case_id.values():
            for recorded in runs:
                if isinstance(recorded, Recording):
                    recorded.replayed()


def _packed(runner: RecordedRunner) -> dict[str, list[object]]:
    return {
        case_id: [run.packed if isinstance(run, Recording) else run for run in runs]
        for case_id, runs in runner.by_case_id.items()
    }


def _runner(tmp_path: Path, text: str) -> RecordedRunner:
    path = tmp_path / "recording.json"
    path.write_text(text, encoding="utf-8")
    return RecordedRunner(path, display="recording.json")


@pytest.mark.parametrize(
    "written",
    [
        lambda data: json.dumps(data, indent=2),
        lambda data: json.dumps({"cases": data["cases"]} | {k: v for k, v in data.items() if k != "cases"}),
        lambda data: '{"cases": [], ' + json.dumps(data)[1:],  # a later member of the same name wins
        lambda data: " \n\t" + json.dumps(data, separators=(",", ":")) + "\r\n ",
        lambda data: json.dumps(data, ensure_ascii=True),
    ],
)
def test_a_recording_is_read_a_case_at_a_time_whatever_its_layout(written: object, tmp_path: Path) -> None:
    data = input_data("regressions")
    expected = _packed(_runner(tmp_path, json.dumps(data)))
    assert _packed(_runner(tmp_path, written(data))) == expected  # type: ignore[operator]


HEAD = '{"schema_version": 1, "status": "passed", "totals": {}, '


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HEAD + '"cases": [{}, ]}', "invalid JSON"),
        (HEAD + '"cases": [] } trailing', "invalid JSON"),
        (HEAD + '"cases": [', "invalid JSON"),
        ('{"schema_version": 1 "cases": []}', "invalid JSON"),
        (HEAD + '"cases": [{"id": NaN}]}', "NaN is not a JSON number"),
        (HEAD + '"cases": [' + "[" * 5000 + "]" * 5000 + "]}", "nested more than"),
        (HEAD + '"run": ' + "[" * 5000 + "]" * 5000 + ', "cases": []}', "nested more than"),
        (HEAD + '"cases": ["\\ud800"]}', "cases.0"),
    ],
)
def test_a_recording_that_is_not_valid_json_says_what_reading_it_whole_says(
    text: str, message: str, tmp_path: Path
) -> None:
    with pytest.raises(RecordedError, match=message):
        _runner(tmp_path, text)

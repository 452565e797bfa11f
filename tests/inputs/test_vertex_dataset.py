"""Vertex AI-style datasets (JSONL, CSV): rows as cases, stable ids, recorded answers, one error per bad row."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.cli import main
from adk_eval_gate.commands.validate import validate
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.inputs.discover import discover
from adk_eval_gate.inputs.vertex_dataset import derived_id, load_dataset
from adk_eval_gate.model.evalset import content_text, tool_calls
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import EvalFileError, UsageError
from tests.conftest import write_json


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_name": name, "tool_input": args}


# Rows with the agent's answers: every trajectory shape the metrics tell apart (exact, reordered, extra, missing).
ROWS: list[dict[str, Any]] = [
    {
        "eval_id": "exact",
        "prompt": "Weather in Paris?",
        "reference": "Sunny in Paris.",
        "response": "It is sunny in Paris.",
        "reference_trajectory": [call("get_weather", city="Paris")],
        "predicted_trajectory": [call("get_weather", city="Paris")],
        "latency_in_seconds": 1.25,
    },
    {
        "eval_id": "reordered",
        "prompt": "Paris and London?",
        "reference": "Sunny in Paris, rainy in London.",
        "response": "Rainy in London and sunny in Paris.",
        "reference_trajectory": [call("get_weather", city="Paris"), call("get_weather", city="London")],
        "predicted_trajectory": [call("get_weather", city="London"), call("get_weather", city="Paris")],
    },
    {
        "eval_id": "extra_and_missing",
        "prompt": "Tokyo, then the time?",
        "reference": "Cloudy in Tokyo; it is noon.",
        "response": "Cloudy.",
        "reference_trajectory": [call("get_weather", city="Tokyo"), call("get_time", zone="JST")],
        "predicted_trajectory": [call("get_weather", city="Tokyo"), call("get_weather", city="Kyoto")],
    },
    {
        "eval_id": "no_calls",
        "prompt": "Hello",
        "reference": "Hello!",
        "response": "Hello!",
        "reference_trajectory": [],
        "predicted_trajectory": [],
    },
]
CRITERIA = {
    "tool_trajectory_avg_score": 1.0,
    "trajectory_in_order_match": 1.0,
    "trajectory_any_order_match": 1.0,
    "trajectory_precision": 0.5,
    "trajectory_recall": 0.5,
    "response_match_score": 0.5,
}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Trajectories JSON-encoded in their cells, as Vertex AI's CSV datasets hold them."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    out = io.StringIO()
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()})
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def as_evalset_and_adk_result(folder: Path, rows: list[dict[str, Any]]) -> tuple[Path, Path]:
    """The same data as an EvalSet and an ADK result file with the predicted turns as the actual ones."""

    def invocation(row: dict[str, Any], answer: str, trajectory: str) -> dict[str, Any]:
        calls = [{"name": c["tool_name"], "args": c["tool_input"]} for c in row[trajectory]]
        return {
            "user_content": {"role": "user", "parts": [{"text": row["prompt"]}]},
            "final_response": {"role": "model", "parts": [{"text": row[answer]}]},
            "intermediate_data": {"tool_uses": calls},
        }

    cases = [
        {"eval_id": r["eval_id"], "conversation": [invocation(r, "reference", "reference_trajectory")]} for r in rows
    ]
    evalset = write_json(folder / "same.evalset.json", {"eval_set_id": "same", "eval_cases": cases})
    results = [
        {
            "eval_set_id": "same",
            "eval_id": row["eval_id"],
            "eval_metric_result_per_invocation": [
                {"actual_invocation": invocation(row, "response", "predicted_trajectory")}
            ],
        }
        for row in rows
    ]
    recorded = write_json(
        folder / "recorded" / "same_1.evalset_result.json",
        {"eval_set_result_id": "same_1", "eval_set_id": "same", "eval_case_results": results},
    )
    return evalset, recorded


def run(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, dict[str, Any]]:
    out_dir = repo / "out"
    code = main(["run", *args, "--output-dir", str(out_dir), "--parallelism", "4"])
    text = capsys.readouterr().out
    doc = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
    return code, text, doc


def scores(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        case["eval_id"]: {m["name"]: m["score"] for m in case["metrics"] if m.get("kind") != "informational"}
        for case in doc["cases"]
    }


@pytest.fixture
def here(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(repo)
    for name in ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    return repo


@pytest.mark.slow  # three runs of the gate
def test_jsonl_and_csv_score_as_the_same_eval_set_through_the_recorded_runner(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_json(here / "test_config.json", {"criteria": CRITERIA})
    write_jsonl(here / "data" / "weather.evalset.jsonl", ROWS)
    write_csv(here / "csv" / "weather.csv", ROWS)
    evalset, recorded = as_evalset_and_adk_result(here / "evalset", ROWS)

    _, _, reference = run(here, capsys, str(evalset), "--runner", "recorded", "--recorded", str(recorded.parent))
    _, jsonl_out, jsonl = run(here, capsys, "data")
    _, _, from_csv = run(here, capsys, "--dataset", "csv/weather.csv")

    expected = scores(reference)
    assert expected["reordered"]["trajectory_any_order_match"] == 1.0
    assert expected["reordered"]["tool_trajectory_avg_score"] == 0.0
    assert expected["extra_and_missing"]["trajectory_precision"] == 0.5
    assert scores(jsonl) == expected
    assert scores(from_csv) == expected
    assert [case["status"] for case in jsonl["cases"]] == [case["status"] for case in reference["cases"]]
    assert [f["format"] for f in jsonl["files"]] == ["vertex_jsonl"]
    assert [f["format"] for f in from_csv["files"]] == ["vertex_csv"]
    assert jsonl["cases"][0]["runs"][0]["duration_seconds"] == 1.25  # latency_in_seconds
    assert "data/weather.evalset.jsonl: 4 cases, criteria from test_config.json (parent)" in jsonl_out


def test_case_ids_are_the_rows_own_or_derived_from_the_prompt_and_stay_put(tmp_path: Path) -> None:
    rows = [
        {"eval_id": "mine", "prompt": "a"},
        {"id": 7, "prompt": "b"},
        {"prompt": "What is the weather in Paris?"},
        {"prompt": "What is the weather in Paris?", "reference": "asked twice"},
        {"prompt": "東京の天気は?"},
    ]
    loaded = load_dataset(write_jsonl(tmp_path / "d.jsonl", rows), display="d.jsonl")
    paris = derived_id("What is the weather in Paris?")
    ids = [case.eval_id for case in loaded.eval_set.eval_cases]
    assert ids == ["mine", "7", paris, f"{paris}-2", derived_id("東京の天気は?")]
    assert paris.startswith("what_is_the_weather_in_paris-") and derived_id("東京の天気は?").startswith("東京の天気は-")
    reordered = load_dataset(write_jsonl(tmp_path / "e.jsonl", [rows[4], {"prompt": "new"}, rows[2]]), display="e")
    assert [case.eval_id for case in reordered.eval_set.eval_cases] == [ids[4], derived_id("new"), paris]
    assert loaded.case_lines == {ids[0]: 1, ids[1]: 2, ids[2]: 3, ids[3]: 4, ids[4]: 5}
    assert loaded.eval_set.eval_set_id == "d" and not loaded.recorded and not loaded.row_errors


def test_rows_with_answers_are_recorded_and_the_others_left_to_the_agent(tmp_path: Path) -> None:
    rows = [
        {"prompt": "asked", "reference": "expected", "reference_trajectory": [call("t", x=1)]},
        {"prompt": "answered", "response": "the answer"},
        {"prompt": "called", "predicted_trajectory": [call("t", x=2)], "latency_in_seconds": "2.5"},
    ]
    loaded = load_dataset(write_csv(tmp_path / "d.csv", rows), display="d.csv")
    asked, answered, called = loaded.eval_set.eval_cases
    expected = (asked.conversation or [])[0]
    assert content_text(expected.final_response) == "expected"
    assert [(c.name, c.args) for c in tool_calls(expected.intermediate_data)] == [("t", {"x": 1})]
    assert asked.eval_id not in loaded.recorded
    assert content_text(loaded.recorded[answered.eval_id].final_response) == "the answer"
    assert tool_calls(loaded.recorded[answered.eval_id].intermediate_data) == []
    recorded_call = loaded.recorded[called.eval_id]
    assert [(c.name, c.args) for c in tool_calls(recorded_call.intermediate_data)] == [("t", {"x": 2})]
    assert recorded_call.final_response is None and recorded_call.duration == 2.5


BAD_JSONL = "\n".join(
    [
        json.dumps({"eval_id": "good", "prompt": "fine", "reference": "ok", "response": "ok"}),
        '{"prompt": "broken", ',
        json.dumps({"eval_id": "flat", "prompt": "p", "predicted_trajectory": {"tool_name": "t"}}),
        json.dumps({"eval_id": "no_input", "prompt": "p", "reference_trajectory": [{"tool_name": "t"}]}),
        json.dumps({"eval_id": "no_prompt", "reference": "r"}),
        json.dumps({"eval_id": "slow", "prompt": "p", "response": "r", "latency_in_seconds": "soon"}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"eval_id": "good", "prompt": "again"}),
        "",
        json.dumps({"eval_id": "last", "prompt": "still read", "response": "ok"}),
    ]
)


def test_each_bad_jsonl_row_is_one_error_with_its_line_and_the_others_load(tmp_path: Path) -> None:
    path = tmp_path / "rows.evalset.jsonl"
    path.write_text(BAD_JSONL, encoding="utf-8")
    loaded = load_dataset(path, display="rows.evalset.jsonl")
    assert loaded.row_errors == {
        "line-2": "rows.evalset.jsonl:2:22: invalid JSON: Expecting property name enclosed in double quotes",
        "flat": 'rows.evalset.jsonl:3: predicted_trajectory: must be a list of {"tool_name": ..., "tool_input": {...}} '
        "objects",
        "no_input": 'rows.evalset.jsonl:4: reference_trajectory[0].tool_input: "tool_input" is required (use {} for a '
        "call without arguments)",
        "no_prompt": "rows.evalset.jsonl:5: prompt: is required",
        "slow": "rows.evalset.jsonl:6: latency_in_seconds: must be a number of seconds, got 'soon'",
        "line-7": "rows.evalset.jsonl:7: a row must be a JSON object with a prompt",
        "line-8": "rows.evalset.jsonl:8: eval_id: duplicate eval_id 'good' (also line 1)",
    }
    assert [case.eval_id for case in loaded.eval_set.eval_cases if case.eval_id not in loaded.row_errors] == [
        "good",
        "last",
    ]
    assert set(loaded.recorded) == {"good", "last"} and loaded.case_lines["last"] == 10


def test_a_bad_csv_row_names_the_line_its_record_starts_on(tmp_path: Path) -> None:
    text = (
        "prompt,reference,predicted_trajectory\n"
        '"a prompt\nover two lines",ref,"[]"\n'
        'bad json,ref,"[{""tool_name"": ""t"", "\n'
        "too,many,cells,here\n"
        "\n"
        'fine,ref,"[{""tool_name"": ""t"", ""tool_input"": {}}]"\n'
    )
    path = tmp_path / "rows.csv"
    path.write_text(text, encoding="utf-8")
    loaded = load_dataset(path, display="rows.csv")
    errors = sorted(loaded.row_errors.values())
    assert errors == [
        "rows.csv:4: predicted_trajectory: is not valid JSON: Expecting property name enclosed in double quotes "
        "(column 21)",
        "rows.csv:5: has 4 cells but the header names 3 columns (quote cells that hold commas)",
    ]
    good = [case for case in loaded.eval_set.eval_cases if case.eval_id not in loaded.row_errors]
    assert [loaded.case_lines[case.eval_id] for case in good] == [2, 7]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("d.csv", "question,reference\nq,r\n", "d.csv:1: prompt: has no prompt column (its columns: question, ref"),
        ("d.csv", "", "d.csv:1: has no rows"),
        ("d.evalset.jsonl", "\n\n", "d.evalset.jsonl:1: has no rows"),
        ("d.evalset.jsonl", b'{"prompt": "caf\xe9"}\n', "d.evalset.jsonl:1: is not UTF-8 (byte 0xe9 at offset 15)"),
    ],
)
def test_a_file_that_cannot_be_a_dataset_is_one_error(
    tmp_path: Path, name: str, content: str | bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(EvalFileError) as raised:
        load_dataset(path, display=name)
    assert raised.value.one_line().startswith(message)


def test_misspelt_columns_are_a_warning(tmp_path: Path) -> None:
    loaded = load_dataset(
        write_jsonl(tmp_path / "d.jsonl", [{"prompt": "p", "refrence": "r", "extra": 1}]), display="d"
    )
    assert loaded.warnings == ["d: column 'refrence' is not read; did you mean 'reference'?"]


def test_discovery_finds_jsonl_datasets_and_dataset_names_files_of_any_name(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    write_jsonl(repo / "a" / "x.evalset.jsonl", [{"prompt": "p"}])
    write_json(repo / "a" / "y.evalset.json", {"eval_set_id": "y", "eval_cases": []})
    write_jsonl(repo / "b" / "cases.txt", [{"prompt": "p"}])
    found = discover([], root=repo)
    assert [(ref.display, ref.dataset) for ref in found] == [("a/x.evalset.jsonl", True), ("a/y.evalset.json", False)]
    only = discover([], root=repo, datasets=["b/cases.txt:one"])
    assert [(ref.display, ref.dataset, ref.case_ids) for ref in only] == [("b/cases.txt", True, ("one",))]
    both = discover(["a"], root=repo, datasets=["b/cases.txt"])
    assert [ref.display for ref in both] == ["a/x.evalset.jsonl", "a/y.evalset.json", "b/cases.txt"]
    with pytest.raises(UsageError, match="'b' is a folder") as folder:
        discover([], root=repo, datasets=["b"])
    assert folder.value.field == "dataset"
    with pytest.raises(UsageError, match=r"'missing\.csv' does not exist"):
        discover([], root=repo, datasets=["missing.csv"])


@pytest.mark.slow  # a whole run of the gate
def test_dataset_alone_runs_only_the_datasets_and_bad_rows_do_not_stop_the_others(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_json(here / "test_config.json", {"criteria": {"response_match_score": 0.5}})
    write_json(here / "other.evalset.json", {"eval_set_id": "other", "eval_cases": []})  # not run: no PATH given
    (here / "rows.txt").write_text(BAD_JSONL, encoding="utf-8")
    code, out, doc = run(here, capsys, "--dataset", "rows.txt")  # no agent is needed, none is looked for
    assert code == 1
    assert [f["path"] for f in doc["files"]] == ["rows.txt"]
    statuses = {case["eval_id"]: case["status"] for case in doc["cases"]}
    assert statuses["good"] == "passed" and statuses["last"] == "failed"
    assert sum(status == "error" for status in statuses.values()) == 7 and doc["status"] == "error"
    errors = [line for line in out.splitlines() if line.startswith("  ERROR ")]
    assert len(errors) == 7
    assert "  ERROR rows.txt::no_prompt: rows.txt:5: prompt: is required" in errors
    no_prompt = next(case for case in doc["cases"] if case["eval_id"] == "no_prompt")
    assert no_prompt["line"] == 5 and no_prompt["runs"][0]["error"] == "rows.txt:5: prompt: is required"


def test_validate_names_each_bad_row_once(here: Path) -> None:
    (here / "rows.evalset.jsonl").write_text(BAD_JSONL, encoding="utf-8")
    out = io.StringIO()
    settings = build_settings("validate", {"paths": ["."], "runner": "http"}, env={})
    assert validate(settings, Console(in_actions=False, stream=out)) == 2
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("error:") and "rows.evalset.jsonl:" in line for line in lines) == 7
    assert any(line.endswith("rows.evalset.jsonl:5: prompt: is required") for line in lines)
    assert sum(line.startswith("bad  rows.evalset.jsonl: ") for line in lines) == 1
    assert lines[-1] == "1 of 1 files have problems"


@pytest.mark.slow  # a whole run of the gate
def test_recorded_rows_are_not_confirmed_again(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_json(here / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0}})
    write_jsonl(here / "rows.evalset.jsonl", ROWS)
    code, _, doc = run(here, capsys, ".", "--confirm-failures", "2")
    assert code == 1
    failed = [case for case in doc["cases"] if case["status"] == "failed"]
    assert [case["eval_id"] for case in failed] == ["reordered", "extra_and_missing"]
    assert all(len(case["runs"]) == 1 and case.get("confirmation") is None for case in failed)


@pytest.mark.slow  # two runs of the gate
def test_run_scores_as_adk_despite_a_misspelt_option_and_lists_it_in_the_job_summary_unless_allowed(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``"match_typ": "IN_ORDER"`` passed with a warning in the log only, and the trajectory was scored as EXACT:
    run still scores as ADK does (ADK ignores the key) and lists the warning in the job summary too."""
    criterion = {"threshold": 1.0, "match_typ": "IN_ORDER"}
    write_json(here / "test_config.json", {"criteria": {"tool_trajectory_avg_score": criterion}})
    write_jsonl(here / "rows.evalset.jsonl", ROWS)
    code, out, doc = run(here, capsys, ".")
    assert code == 1
    assert scores(doc)["reordered"]["tool_trajectory_avg_score"] == 0.0  # EXACT, as ADK scores it
    [warning] = doc["files"][0]["warnings"]
    assert "criteria.tool_trajectory_avg_score.match_typ is not an option" in warning
    assert f"warning: {warning}" in out.splitlines()
    summary = (here / "out" / "summary.md").read_text(encoding="utf-8")
    assert "**⚠️ 1 warning** (ADK lets these pass" in summary and "match\\_<wbr>typ is not an option" in summary
    code, out, doc = run(here, capsys, ".", "--allow-unknown-fields")
    assert code == 1 and doc["files"][0]["warnings"] == [] and f"warning: {warning}" in out.splitlines()
    assert "warning" not in (here / "out" / "summary.md").read_text(encoding="utf-8")


def test_validate_fails_on_keys_adk_ignores_unless_they_are_allowed(here: Path) -> None:
    write_json(
        here / "test_config.json",
        {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_typ": "IN_ORDER"}}, "criterion": {}},
    )
    write_jsonl(here / "rows.evalset.jsonl", ROWS)
    write_json(here / "legacy.test.json", [{"query": "hi", "expected_tool_uses": []}])
    (here / "columns.evalset.jsonl").write_text('{"prompt": "hi", "respons": "x"}\n', encoding="utf-8")
    out = io.StringIO()
    settings = build_settings("validate", {"paths": ["."], "runner": "http"}, env={})
    assert validate(settings, Console(in_actions=False, stream=out)) == 2
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("warning: ") for line in lines) == 4, lines  # the shared config's two once
    failed = [line for line in lines if "that ADK ignores" in line]
    assert failed == [
        "error: columns.evalset.jsonl: 3 keys that ADK ignores (the warnings above): fix the spelling, or give "
        "--allow-unknown-fields when they are meant for another tool",
        "error: legacy.test.json: 3 keys that ADK ignores (the warnings above): fix the spelling, or give "
        "--allow-unknown-fields when they are meant for another tool",
        "error: rows.evalset.jsonl: 2 keys that ADK ignores (the warnings above): fix the spelling, or give "
        "--allow-unknown-fields when they are meant for another tool",
    ]
    out = io.StringIO()
    allowed = build_settings("validate", {"paths": ["."], "runner": "http", "allow_unknown_fields": True}, env={})
    assert validate(allowed, Console(in_actions=False, stream=out)) == 0
    assert out.getvalue().splitlines()[-1] == "all 3 files are valid"
    inputs = build_settings("validate", {"paths": ["."]}, env={"INPUT_ALLOW-UNKNOWN-FIELDS": "true"})
    assert inputs.allow_unknown_fields is True


@pytest.mark.slow  # a whole run of the gate
def test_a_quarantine_selector_that_matches_no_case_is_a_warning_with_the_selector_it_likely_misspells(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt --quarantine selector was silently ignored: the case it meant still failed the gate."""
    write_json(here / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0}})
    write_jsonl(here / "rows.evalset.jsonl", ROWS)
    (here / "broken.evalset.json").write_text("{not json", encoding="utf-8")
    selectors = [
        "rows.evalset.jsonl:reorderd",  # a case id misspelt
        "row.evalset.jsonl",  # a file misspelt
        "rows.evalset.jsonl:extra_and_missing",  # matches
        "broken.evalset.json:anything",  # its cases are unknown: nothing to say
        "nowhere/*.json:x",
    ]
    code, out, doc = run(here, capsys, ".", *[arg for selector in selectors for arg in ("--quarantine", selector)])
    assert code == 2  # the broken file
    warnings = [line for line in out.splitlines() if "quarantines nothing" in line]
    assert warnings == [
        "warning: --quarantine 'rows.evalset.jsonl:reorderd' matches no case, so it quarantines nothing; did you "
        "mean 'rows.evalset.jsonl:reordered'?",
        "warning: --quarantine 'row.evalset.jsonl' matches no case, so it quarantines nothing; did you mean "
        "'rows.evalset.jsonl'?",
        "warning: --quarantine 'nowhere/*.json:x' matches no case, so it quarantines nothing (FILE is a path from "
        "the repository root, CASE an eval_id)",
    ]
    assert [case["eval_id"] for case in doc["cases"] if case.get("quarantined")] == ["extra_and_missing"]

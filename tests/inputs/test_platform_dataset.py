"""Agent Platform datasets (agents-cli's ``*-dataset.json``) found and loaded as eval files: each case run or
recorded by its shape, one clear line for each bad field, and hostile files refused one by one."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.inputs.discover import discover, misnamed_eval_files
from adk_eval_gate.inputs.platform_dataset import load_json_eval_file
from adk_eval_gate.model import platform_cases as pc
from adk_eval_gate.model.evalset import content_text, tool_calls
from adk_eval_gate.support.errors import EvalFileError
from tests.inputs.layouts import LAYOUTS

BASIC = LAYOUTS / "agents_cli" / "tests" / "eval" / "datasets" / "basic-dataset.json"


def _text(value: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "parts": [{"text": value}]}


def _write(folder: Path, data: object, name: str = "cases-dataset.json") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def _load(path: Path) -> Any:
    return load_json_eval_file(path, display=path.name)


def _error(tmp_path: Path, data: object) -> EvalFileError:
    with pytest.raises(EvalFileError) as caught:
        _load(_write(tmp_path, data))
    return caught.value


def test_agents_clis_scaffold_dataset_is_three_cases_run_through_the_agent() -> None:
    loaded = load_json_eval_file(BASIC, display="tests/eval/datasets/basic-dataset.json")
    assert loaded.format == "agent_platform_dataset"
    cases = loaded.eval_set.eval_cases
    assert [case.eval_id for case in cases] == ["greeting", "weather_query", "capital_lookup"]
    assert loaded.case_lines == {"greeting": 3, "weather_query": 10, "capital_lookup": 17}
    assert not loaded.recorded and not loaded.row_errors
    (turn,) = cases[2].conversation or []
    assert content_text(turn.user_content) == "What is the capital of France?"
    assert content_text(turn.final_response) == "The capital of France is Paris."
    assert pc.platform_case_of(cases[2]) == pc.PlatformEvalCase.model_validate(
        json.loads(BASIC.read_text())["eval_cases"][2]
    )


def test_a_case_with_responses_or_a_finished_trace_is_scored_as_recorded(tmp_path: Path) -> None:
    trace = [
        {"author": "user", "content": _text("book it")},
        {"author": "bot", "content": {"parts": [{"function_call": {"name": "book", "args": {"day": "mon"}}}]}},
        {"author": "bot", "content": {"parts": [{"function_response": {"name": "book", "response": {"ok": True}}}]}},
        {"author": "bot", "content": _text("Booked for Monday.", "model")},
    ]
    data = {
        "eval_cases": [
            {"eval_case_id": "answered", "prompt": _text("hi"), "responses": [{"response": _text("hello", "model")}]},
            {"eval_case_id": "traced", "agent_data": {"turns": [{"turn_index": 0, "events": trace}]}},
        ]
    }
    loaded = _load(_write(tmp_path, data))
    assert set(loaded.recorded) == {"answered", "traced"}
    assert content_text(loaded.recorded["answered"].final_response) == "hello"
    traced = loaded.recorded["traced"]
    assert (
        content_text(traced.user_content) == "book it" and content_text(traced.final_response) == "Booked for Monday."
    )
    assert [call.name for call in tool_calls(traced.intermediate_data)] == ["book"]


def test_turns_that_end_with_the_user_run_that_message_after_the_conversation_so_far(tmp_path: Path) -> None:
    events = [
        {"author": "user", "content": _text("I am in Paris"), "state_delta": {"city": "Paris"}},
        {"author": "model", "content": _text("Noted.", "model")},
        {"author": "user", "content": _text("What is the weather?")},
    ]
    loaded = _load(
        _write(tmp_path, {"eval_cases": [{"eval_case_id": "n1", "agent_data": {"turns": [{"events": events}]}}]})
    )
    (case,) = loaded.eval_set.eval_cases
    (turn,) = case.conversation or []
    assert content_text(turn.user_content) == "What is the weather?" and not loaded.recorded
    assert [event.author for event in pc.history_of(case)] == ["user", "model"]


def test_a_case_without_an_id_gets_one_from_its_message_that_stays_and_never_collides(tmp_path: Path) -> None:
    data = {"eval_cases": [{"prompt": _text("Hello there")}, {"prompt": _text("Hello there")}, {"eval_case_id": "x"}]}
    data["eval_cases"][2]["prompt"] = _text("other")
    first = [case.eval_id for case in _load(_write(tmp_path, data)).eval_set.eval_cases]
    again = [case.eval_id for case in _load(_write(tmp_path, data, "again-dataset.json")).eval_set.eval_cases]
    assert first == again and len(set(first)) == 3 and first[0].startswith("hello_there-") and first[2] == "x"


def test_a_duplicate_id_names_its_line_and_the_other_case(tmp_path: Path) -> None:
    data = {"eval_cases": [{"eval_case_id": "a", "prompt": _text("1")}, {"eval_case_id": "a", "prompt": _text("2")}]}
    error = _error(tmp_path, data)
    assert "duplicate eval_case_id 'a' (also eval_cases[0])" in error.message
    assert (error.field, error.line) == ("eval_cases[1].eval_case_id", 15)


def test_every_bad_field_is_one_line_with_its_line_and_path_and_custom_fields_are_kept(tmp_path: Path) -> None:
    text = """{
  "eval_cases": [
    {"eval_case_id": "a", "prompt": {"parts": "not a list"}, "tier": "gold"},
    {"eval_case_id": "b", "agent_data": {"turns": [{"events": [{"author": "user", "mood": 1}]}]}},
    {"eval_case_id": "c", "reference": {"text": "Paris"}}
  ]
}"""
    error = _error(tmp_path, text)
    lines = [(problem.line, problem.field) for problem in error.every_problem()]
    assert lines == [
        (3, "eval_cases[0].prompt.parts"),
        (4, "eval_cases[1].agent_data.turns[0].events[0].mood"),
        (5, "eval_cases[2].reference.text"),
    ]
    assert all("\n" not in problem.one_line() for problem in error.every_problem())
    assert (
        "the evaluation SDK rejects unknown keys" in error.also[0].message and "'author'" not in error.also[0].message
    )


def test_a_case_that_cannot_run_is_an_error_of_that_case_and_the_others_load(tmp_path: Path) -> None:
    data = {"eval_cases": [{"eval_case_id": "empty"}, {"eval_case_id": "fine", "prompt": _text("hi")}]}
    loaded = _load(_write(tmp_path, data))
    assert [case.eval_id for case in loaded.eval_set.eval_cases] == ["empty", "fine"]
    assert loaded.row_errors["empty"].startswith("cases-dataset.json:3: eval_cases[0]: has neither a prompt nor")


def test_several_responses_are_warned_about_and_the_first_is_scored(tmp_path: Path) -> None:
    responses = [{"response": _text("one", "model")}, {"response": _text("two", "model")}]
    loaded = _load(
        _write(tmp_path, {"eval_cases": [{"eval_case_id": "a", "prompt": _text("q"), "responses": responses}]})
    )
    assert content_text(loaded.recorded["a"].final_response) == "one"
    assert any("has 2 responses; the gate scores the first" in warning for warning in loaded.warnings)


def test_an_adk_eval_set_is_still_loaded_as_one(tmp_path: Path) -> None:
    data = {"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [{"user_content": _text("hi")}]}]}
    assert _load(_write(tmp_path, data, "s.evalset.json")).format == "evalset"


def test_a_json_file_whose_top_level_is_a_dataset_is_one_whatever_its_name(tmp_path: Path) -> None:
    assert (
        _load(_write(tmp_path, {"eval_cases": [{"prompt": _text("hi")}]}, "mine.json")).format
        == "agent_platform_dataset"
    )


def test_discovery_finds_datasets_by_name_and_in_agents_clis_datasets_folders(repo: Path) -> None:
    case = {"eval_cases": [{"prompt": _text("hi")}]}
    _write(repo / "tests" / "eval" / "datasets", case, "basic-dataset.json")
    _write(repo / "tests" / "eval" / "datasets", case, "more.json")
    _write(repo / "eval" / "datasets", case, "go.json")
    _write(repo / "tests" / "eval" / "datasets", {"name": "not a dataset"}, "package.json")
    _write(repo / "elsewhere", case, "loose.json")
    _write(repo / "artifacts" / "traces", case, "traces_20260101.json")
    os.mkfifo(repo / "eval" / "datasets" / "pipe.json")
    found = [ref.display for ref in discover([str(repo)], root=repo)]
    assert found == ["eval/datasets/go.json", "tests/eval/datasets/basic-dataset.json", "tests/eval/datasets/more.json"]
    assert misnamed_eval_files([str(repo)]) == [(repo / "elsewhere" / "loose.json").as_posix()]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"eval_cases": [' * 400 + "]}" * 400, "nested more than 120 levels deep"),
        ('{"eval_cases": [{"prompt": {"parts": [{"text": "x"}]}, "weight": 1e400}]}', "1e400 is too large"),
        ('{"eval_cases": [{"prompt": {"parts": [{"text": "x"}]}, "weight": NaN}]}', "NaN is not a JSON number"),
        (b'{"eval_cases": [{"prompt": {"parts": [{"text": "\xff"}]}}]}', "is not UTF-8 (byte 0xff"),
        ('{"eval_cases": []}', "has no eval cases"),
        ("[1, 2]", "must be an EvaluationDataset object"),
    ],
)
def test_hostile_content_is_one_clear_error(tmp_path: Path, content: str | bytes, said: str) -> None:
    path = tmp_path / "bad-dataset.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(EvalFileError) as caught:
        _load(path)
    assert said in caught.value.one_line() and "\n" not in caught.value.one_line()


@pytest.mark.slow  # 3,000 cases, each with a problem
def test_a_huge_dataset_lists_its_first_problems_and_counts_the_others(tmp_path: Path) -> None:
    cases = [{"eval_case_id": f"c{index}", "prompt": _text("hi"), "agent_data": {"typo": 1}} for index in range(3000)]
    error = _error(tmp_path, {"eval_cases": cases})
    assert len(error.every_problem()) == 50 and error.unlisted == 2950
    assert all(problem.line for problem in error.every_problem())


def test_markup_and_workflow_commands_in_a_case_are_data(tmp_path: Path) -> None:
    weird = "::error file=x::<script>alert(1)</script>"
    loaded = _load(_write(tmp_path, {"eval_cases": [{"eval_case_id": weird, "prompt": _text(weird)}]}))
    (case,) = loaded.eval_set.eval_cases
    assert case.eval_id == weird and content_text((case.conversation or [])[0].user_content) == weird


@pytest.mark.slow  # a whole run of the gate
def test_a_recorded_dataset_given_with_dataset_is_gated_by_its_eval_config(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No agent runs (every case has its answer), exact_match is the gate's own: the whole run in this process."""
    from adk_eval_gate.cli import main

    monkeypatch.chdir(repo)
    answered = [
        {"eval_case_id": name, "prompt": _text("Capital?"), "responses": [{"response": _text(said, "model")}]}
        for name, said in (("right", "Paris"), ("wrong", "Lyon"))
    ]
    for case in answered:
        case["reference"] = {"response": _text("Paris", "model")}
    _write(repo / "evals", {"eval_cases": answered}, "answers.json")
    (repo / "evals" / "eval_config.yaml").write_text(
        "metrics_to_run: [exact_match]\nadk_eval_gate:\n  thresholds: {exact_match: 1}\n", encoding="utf-8"
    )
    code = main(["run", "--dataset", "evals/answers.json", "--output-dir", "out"])
    out = capsys.readouterr().out
    doc = json.loads((repo / "out" / "results.json").read_text(encoding="utf-8"))
    assert code == 1, out
    assert doc["files"][0]["format"] == "agent_platform_dataset"
    assert {case["eval_id"]: case["status"] for case in doc["cases"]} == {"right": "passed", "wrong": "failed"}

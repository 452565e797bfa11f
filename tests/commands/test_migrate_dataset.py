"""migrate between ADK's eval sets and Agent Platform datasets, both ways: the dataset is what the evaluation SDK and
the gate load, keeping what agents-cli's own migrator drops (session state, expected tool calls, rubrics, one turn
per invocation), and converting back gives the eval set again."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.commands.migrate import migrate_command
from adk_eval_gate.inputs.platform_dataset import load_json_eval_file
from adk_eval_gate.model import platform_cases as pc
from adk_eval_gate.model.evalset import EvalSet, content_text, tool_calls
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import EvalFileError
from tests.inputs.layouts import LAYOUTS


def _content(text: str, role: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


EVAL_SET = {
    "eval_set_id": "weather",
    "eval_cases": [
        {
            "eval_id": "single",
            "conversation": [{"user_content": _content("Hi", "user"), "final_response": _content("Hello!", "model")}],
        },
        {
            "eval_id": "multi",
            "session_input": {"app_name": "weather", "user_id": "u1", "state": {"units": "metric"}},
            "rubrics": [{"rubric_id": "r1", "rubric_content": {"text_property": "Mentions Oslo."}}],
            "conversation": [
                {
                    "user_content": _content("Weather in Oslo?", "user"),
                    "final_response": _content("Sunny.", "model"),
                    "intermediate_data": {
                        "tool_uses": [{"name": "get_weather", "args": {"city": "Oslo"}}],
                        "tool_responses": [{"name": "get_weather", "response": {"sky": "sun"}}],
                    },
                },
                {
                    "user_content": _content("And tomorrow?", "user"),
                    "final_response": _content("Rain.", "model"),
                    "intermediate_data": {"tool_uses": [{"name": "get_forecast", "args": {"city": "Oslo"}}]},
                },
            ],
        },
        {
            "eval_id": "scenario",
            "conversation_scenario": {"starting_prompt": "Hello", "conversation_plan": "Ask about the weather."},
        },
    ],
}


def _migrate(old: Path, new: Path, initial_session: str | None = None) -> str:
    out = io.StringIO()
    assert (
        migrate_command(
            Console(in_actions=False, stream=out), old=str(old), new=str(new), initial_session=initial_session
        )
        == 0
    )
    return out.getvalue()


def test_an_eval_set_becomes_a_dataset_the_gate_runs_keeping_state_tool_calls_and_rubrics(tmp_path: Path) -> None:
    old, new = tmp_path / "weather.evalset.json", tmp_path / "weather-dataset.json"
    old.write_text(json.dumps(EVAL_SET), encoding="utf-8")
    said = _migrate(old, new)
    assert f"wrote {new}: 3 cases as an Agent Platform dataset" in said and "note scenario:" in said
    written = json.loads(new.read_text(encoding="utf-8"))
    single, multi, scenario = written["eval_cases"]
    assert single == {
        "eval_case_id": "single",
        "prompt": _content("Hi", "user"),
        "reference": {"response": _content("Hello!", "model")},
    }
    first, second = multi["agent_data"]["turns"]
    assert first["events"][0]["state_delta"] == {"units": "metric"}
    assert [event["author"] for event in first["events"]] == ["user", "model", "model", "model"]
    assert second["events"] == [{"author": "user", "content": _content("And tomorrow?", "user")}]
    assert multi["reference"] == {"response": _content("Rain.", "model")}
    assert multi["reference_trajectory"] == [{"tool_name": "get_forecast", "tool_input": {"city": "Oslo"}}]
    assert multi["rubric_groups"]["rubrics"]["rubrics"][0]["content"]["property"]["description"] == "Mentions Oslo."
    assert scenario["user_scenario"] == {"starting_prompt": "Hello", "conversation_plan": "Ask about the weather."}
    loaded = load_json_eval_file(new, display=new.name)
    assert set(loaded.row_errors) == {"scenario"}
    (history_turn, *_) = pc.history_of(loaded.eval_set.eval_cases[1])
    assert history_turn.state_delta == {"units": "metric"}
    expected = (loaded.eval_set.eval_cases[1].conversation or [])[0]
    assert content_text(expected.final_response) == "Rain." and [
        c.name for c in tool_calls(expected.intermediate_data)
    ] == ["get_forecast"]


def test_converting_back_gives_the_eval_set_again(tmp_path: Path) -> None:
    old, dataset, back = (
        tmp_path / "weather.evalset.json",
        tmp_path / "weather-dataset.json",
        tmp_path / "back.evalset.json",
    )
    old.write_text(json.dumps(EVAL_SET), encoding="utf-8")
    _migrate(old, dataset)
    said = _migrate(dataset, back, initial_session=None)
    assert f"wrote {back}: 3 cases as an ADK eval set" in said
    original = EvalSet.model_validate(EVAL_SET)
    again = EvalSet.model_validate_json(back.read_text(encoding="utf-8"))
    for before, after in zip(original.eval_cases, again.eval_cases, strict=True):
        assert after.eval_id == before.eval_id and after.rubrics == before.rubrics
        assert after.conversation_scenario == before.conversation_scenario
        assert [t.user_content.parts for t in after.conversation or []] == [
            t.user_content.parts for t in before.conversation or []
        ]
        assert [content_text(t.final_response) for t in after.conversation or []] == [
            content_text(t.final_response) for t in before.conversation or []
        ]
        assert [tool_calls(t.intermediate_data) for t in after.conversation or []] == [
            tool_calls(t.intermediate_data) for t in before.conversation or []
        ]
        assert (after.session_input.state if after.session_input else {}) == (
            before.session_input.state if before.session_input else {}
        )


def test_agents_clis_scaffold_dataset_converts_to_an_eval_set_adk_loads_and_back(tmp_path: Path) -> None:
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

    scaffold = LAYOUTS / "agents_cli" / "tests" / "eval" / "datasets" / "basic-dataset.json"
    evalset, dataset = tmp_path / "basic.evalset.json", tmp_path / "basic-dataset.json"
    _migrate(scaffold, evalset)
    adk = AdkEvalSet.model_validate_json(evalset.read_text(encoding="utf-8"))
    assert [case.eval_id for case in adk.eval_cases] == ["greeting", "weather_query", "capital_lookup"]
    _migrate(evalset, dataset)
    assert json.loads(dataset.read_text(encoding="utf-8")) == json.loads(scaffold.read_text(encoding="utf-8"))


def test_recorded_answers_are_left_out_and_said_so(tmp_path: Path) -> None:
    old, new = tmp_path / "answered-dataset.json", tmp_path / "answered.evalset.json"
    case = {"eval_case_id": "a", "prompt": _content("Hi", "user"), "responses": [{"response": _content("Yo", "model")}]}
    old.write_text(json.dumps({"eval_cases": [case]}), encoding="utf-8")
    assert "note a: its recorded responses are left out" in _migrate(old, new)
    (turn,) = EvalSet.model_validate_json(new.read_text()).eval_cases[0].conversation or []
    assert turn.final_response is None


def test_a_dataset_to_a_dataset_is_refused_with_what_to_do(tmp_path: Path) -> None:
    old = tmp_path / "a-dataset.json"
    old.write_text(json.dumps({"eval_cases": [{"prompt": _content("Hi", "user")}]}), encoding="utf-8")
    with pytest.raises(EvalFileError, match="is an Agent Platform dataset already"):
        _migrate(old, tmp_path / "b-dataset.json")


@pytest.mark.slow
def test_the_written_dataset_is_one_the_evaluation_sdk_loads(tmp_path: Path) -> None:
    from agentplatform import types

    old, new = tmp_path / "weather.evalset.json", tmp_path / "weather-dataset.json"
    old.write_text(json.dumps(EVAL_SET), encoding="utf-8")
    _migrate(old, new)
    sdk = types.EvaluationDataset.model_validate_json(new.read_text(encoding="utf-8"))
    assert [case.eval_case_id for case in sdk.eval_cases or []] == ["single", "multi", "scenario"]


def test_a_legacy_file_becomes_a_dataset_leaving_an_eval_set_of_the_same_name_beside_it_alone(tmp_path: Path) -> None:
    old = tmp_path / "weather.test.json"
    old.write_text(json.dumps([{"query": "hi", "expected_tool_use": [], "reference": "hello"}]), encoding="utf-8")
    mine = tmp_path / "weather.evalset.json"
    mine.write_text("the user's own eval set\n", encoding="utf-8")
    new = tmp_path / "weather-dataset.json"
    _migrate(old, new)
    assert mine.read_text(encoding="utf-8") == "the user's own eval set\n"
    cases = json.loads(new.read_text(encoding="utf-8"))["eval_cases"]
    assert len(cases) == 1

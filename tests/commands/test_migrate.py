"""migrate: a legacy query list written as an EvalSet file that ADK itself loads; clear errors otherwise."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

from adk_eval_gate.commands.migrate import migrate
from adk_eval_gate.support.errors import EvalFileError

ROWS = [
    {"query": "hi", "expected_tool_use": [], "reference": "hello"},
    {"query": "weather?", "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {}}], "reference": "ok"},
]


def test_the_written_file_is_an_eval_set_adk_loads(tmp_path: Path) -> None:
    old, new, session = tmp_path / "old.test.json", tmp_path / "out" / "new.evalset.json", tmp_path / "s.json"
    old.write_text(json.dumps(ROWS))
    session.write_text(json.dumps({"app_name": "weather", "user_id": "u1", "state": {"units": "metric"}}))
    assert migrate(str(old), str(new), initial_session=str(session)) == 2
    loaded = AdkEvalSet.model_validate_json(new.read_text())
    (case,) = loaded.eval_cases
    assert len(case.conversation or []) == 2
    assert case.session_input is not None and case.session_input.state == {"units": "metric"}


def test_a_file_that_is_not_a_query_list_is_refused_with_its_name(tmp_path: Path) -> None:
    old = tmp_path / "old.test.json"
    old.write_text(json.dumps({"eval_set_id": "already new"}))
    with pytest.raises(EvalFileError, match="is not a legacy query list") as caught:
        migrate(str(old), str(tmp_path / "new.evalset.json"))
    assert caught.value.file == str(old) and not (tmp_path / "new.evalset.json").exists()


def test_a_bad_row_names_its_line_and_field(tmp_path: Path) -> None:
    old = tmp_path / "old.test.json"
    old.write_text('[\n  {"query": "hi"},\n  {"query": 7}\n]\n')
    with pytest.raises(EvalFileError) as caught:
        migrate(str(old), str(tmp_path / "new.evalset.json"))
    assert (caught.value.line, caught.value.field) == (3, "[1].query")


def test_the_session_beside_the_file_is_used_and_ids_come_from_the_file_name(tmp_path: Path) -> None:
    old = tmp_path / "weather.test.json"
    old.write_text(json.dumps(ROWS))
    (tmp_path / "initial.session.json").write_text(json.dumps({"state": {"units": "metric"}}))
    first, second = tmp_path / "a.evalset.json", tmp_path / "b.evalset.json"
    migrate(str(old), str(first))
    migrate(str(old), str(second))
    written = AdkEvalSet.model_validate_json(first.read_text())
    (case,) = written.eval_cases
    assert case.session_input is not None and case.session_input.state == {"units": "metric"}
    assert written.eval_set_id == "weather"
    assert [turn.invocation_id for turn in case.conversation or []] == ["weather#0", "weather#1"]

    def without_times(text: str) -> str:
        return re.sub(r'"creation_timestamp": [0-9.e+-]+', "", text)

    assert without_times(first.read_text()) == without_times(second.read_text())

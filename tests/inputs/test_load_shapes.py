"""Eval files in the shapes found in ADK's own repository: we load what ADK loads, and explain what it rejects.

The files in ``fixtures/adk_repo_shapes`` were written for this project in those shapes (no public file is
copied). ``scripts/compare_with_adk_loaders.py`` runs the same comparison over files fetched from
google/adk-python; it is tested here on these fixtures too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet
from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file

from adk_eval_gate.inputs.discover import discover
from adk_eval_gate.inputs.load import LoadedEvalSet, load_eval_file
from adk_eval_gate.model.evalset import content_text, tool_calls
from adk_eval_gate.support.errors import EvalFileError
from scripts import compare_with_adk_loaders as compare

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "adk_repo_shapes"
FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"


def _ours(relative: str) -> LoadedEvalSet:
    return load_eval_file(SHAPES / relative, display=relative)


def _adk(relative: str) -> AdkEvalSet:
    return AdkEvalSet.model_validate_json((SHAPES / relative).read_text(encoding="utf-8"))


def _our_error(relative: str, folder: Path = SHAPES) -> EvalFileError:
    with pytest.raises(EvalFileError) as caught:
        load_eval_file(folder / relative, display=relative)
    return caught.value


def _adk_fails_everywhere(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    with pytest.raises(pydantic.ValidationError):
        AdkEvalSet.model_validate_json(text)
    with pytest.raises((TypeError, KeyError, ValueError)):
        load_eval_set_from_file(str(path), str(path))
    with pytest.raises(ValueError):
        AgentEvaluator._load_eval_set_from_file(str(path), AdkEvalConfig(criteria={}), {})


# --- files ADK loads -----------------------------------------------------------------------------------------


def test_scenario_cases_next_to_a_scripted_case_load_like_adk() -> None:
    relative = "live_agent/library_helper.evalset.json"
    ours = _ours(relative)
    assert compare.shape(ours.eval_set) == compare.shape(_adk(relative))
    renew, hours, scripted = ours.eval_set.eval_cases
    assert renew.conversation_scenario is not None and renew.conversation_scenario.user_persona == "EXPERT"
    assert renew.session_input is not None and renew.session_input.state == {"card": "C-123"}
    assert hours.session_input is None and hours.conversation is None
    assert scripted.conversation is not None and [turn.final_response for turn in scripted.conversation] == [None, None]


def test_null_text_parts_and_call_ids_load_like_adk() -> None:
    relative = "elicitation/missing_details.test.json"
    ours = _ours(relative)
    assert ours.format == "evalset"  # an EvalSet, although named like a legacy file
    assert compare.shape(ours.eval_set) == compare.shape(_adk(relative))
    first, second = ours.eval_set.eval_cases[0].conversation or []
    assert content_text(first.final_response) == ""
    assert [(call.id, call.name) for call in tool_calls(first.intermediate_data)] == [(None, "ask_for_details")]
    assert content_text(second.final_response) == "Your lemon cake will be ready on Friday."


def test_a_benchmark_eval_set_loads_but_folder_discovery_needs_its_name() -> None:
    relative = "benchmark/eval_sets/unit_conversion_eval.json"
    ours = _ours(relative)
    assert compare.shape(ours.eval_set) == compare.shape(_adk(relative))
    assert [case.eval_id for case in ours.eval_set.eval_cases] == ["miles_to_km", "list_units"]
    found = {ref.display for ref in discover([str(SHAPES / "benchmark")], root=SHAPES)}
    assert relative not in found
    assert [ref.display for ref in discover([str(SHAPES / relative)], root=SHAPES)] == [relative]


def test_an_eval_set_without_cases_is_rejected_on_purpose_although_adk_loads_it() -> None:
    relative = "benchmark/placeholder.evalset.json"
    assert _adk(relative).eval_cases == []
    error = _our_error(relative)
    assert "has no eval cases" in error.message and error.field == "eval_cases"


# --- files ADK rejects: one clear line naming the file and the JSON path ---------------------------------------


def test_legacy_keys_inside_an_eval_set_name_the_key_and_where_it_belongs() -> None:
    relative = "old_style/mixed_keys.test.json"
    _adk_fails_everywhere(SHAPES / relative)
    error = _our_error(relative)
    assert error.field == "eval_cases[0].conversation[0].expected_tool_use"
    assert error.line == 12
    assert error.hint is not None and "intermediate_data.tool_uses" in error.hint
    assert error.one_line().startswith("old_style/mixed_keys.test.json:12: eval_cases[0].conversation[0].")


@pytest.mark.parametrize(("legacy_key", "where"), [("reference", "final_response"), ("query", "user_content")])
def test_each_legacy_key_gets_its_own_hint(tmp_path: Path, legacy_key: str, where: str) -> None:
    data = json.loads((SHAPES / "old_style" / "mixed_keys.test.json").read_text(encoding="utf-8"))
    turn = data["eval_cases"][0]["conversation"][0]
    del turn["expected_tool_use"]
    turn[legacy_key] = "text"
    (tmp_path / "x.evalset.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    error = _our_error("x.evalset.json", tmp_path)
    assert error.field == f"eval_cases[0].conversation[0].{legacy_key}"
    assert error.hint == f"{legacy_key} is a key of the legacy query list; an EvalSet invocation uses {where}"


def test_another_tools_format_named_like_an_eval_set_is_called_what_it_is() -> None:
    relative = "other_tool/checks.evalset.json"
    _adk_fails_everywhere(SHAPES / relative)
    error = _our_error(relative)
    assert error.message == (
        'is not an ADK eval set: it has neither eval_set_id nor eval_cases (its top-level keys: "title", "version", '
        '"checks")'
    )
    assert (error.line, error.field) == (1, "eval_set_id")


def test_top_level_keys_from_the_file_cannot_break_the_line(tmp_path: Path) -> None:
    (tmp_path / "odd.evalset.json").write_text(json.dumps({"line\nbreak" + "x" * 100: 1}), encoding="utf-8")
    line = _our_error("odd.evalset.json", tmp_path).one_line()
    assert "\n" not in line and "line\\nbreak" in line and len(line) < 300


def test_a_syntax_error_gives_line_and_column() -> None:
    error = _our_error("other_tool/trailing_comma.evalset.json")
    assert (error.line, error.column) == (5, 3)


def test_an_adk_test_replay_session_is_not_discovered_and_is_explained_when_named() -> None:
    relative = "replay_agent/tests/greeting.json"
    assert relative not in {ref.display for ref in discover([str(SHAPES)], root=SHAPES)}
    error = _our_error(relative)
    assert "is not an ADK eval set" in error.message and '"events"' in error.message


# --- the comparison script -------------------------------------------------------------------------------------


def _run_script(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, str], str]:
    code = compare.main([str(folder)])
    lines = capsys.readouterr().out.splitlines()
    outcomes = {line.split()[1].rstrip(":"): line.split()[0] for line in lines[:-1]}
    return code, outcomes, lines[-1]


def test_the_script_classifies_every_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, outcomes, summary = _run_script(SHAPES, capsys)
    assert outcomes == {
        "benchmark/eval_sets/unit_conversion_eval.json": "OK",
        "benchmark/placeholder.evalset.json": "DELIBERATE",
        "elicitation/missing_details.test.json": "OK",
        "live_agent/library_helper.evalset.json": "OK",
        "old_style/mixed_keys.test.json": "ADK-REJECTS",
        "old_style/test_config.json": "CONFIG",
        "other_tool/checks.evalset.json": "ADK-REJECTS",
        "other_tool/trailing_comma.evalset.json": "ADK-REJECTS",
        "replay_agent/tests/greeting.json": "NOT-EVAL-DATA",
    }
    assert summary == "summary: 9 files: 3 OK, 3 ADK-REJECTS, 1 NOT-EVAL-DATA, 1 DELIBERATE, 1 CONFIG, 0 MISMATCH"
    assert code == 0


def test_the_script_agrees_on_both_legacy_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    code, outcomes, _ = _run_script(FORMATS, capsys)
    assert outcomes["legacy_query/weather.test.json"] == "OK"
    assert outcomes["legacy_named/dice.test.json"] == "OK"
    assert set(outcomes.values()) == {"OK"} and code == 0


def _drop_last_turn(path: Path, *, display: str) -> LoadedEvalSet:
    loaded = load_eval_file(path, display=display)
    for case in loaded.eval_set.eval_cases:
        if case.conversation:
            case.conversation.pop()
    return loaded


def test_the_script_fails_on_a_difference(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(compare, "load_eval_file", _drop_last_turn)
    code = compare.main([str(SHAPES / "elicitation")])
    first, summary = capsys.readouterr().out.splitlines()
    assert first == "MISMATCH      missing_details.test.json: [0].turns: ADK 2 / ours 1 items"
    assert summary.endswith("1 MISMATCH") and code == 1


def test_the_script_fails_when_our_loader_crashes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def crash(path: Path, *, display: str) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(compare, "load_eval_file", crash)
    code = compare.main([str(SHAPES / "live_agent")])
    assert "our loader crashed: RuntimeError: boom" in capsys.readouterr().out
    assert code == 1


def test_the_script_accepts_camel_case_top_level_keys_as_deliberate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads((SHAPES / "benchmark" / "eval_sets" / "unit_conversion_eval.json").read_text(encoding="utf-8"))
    data["evalSetId"], data["evalCases"] = data.pop("eval_set_id"), data.pop("eval_cases")
    (tmp_path / "camel.evalset.json").write_text(json.dumps(data), encoding="utf-8")
    code, outcomes, _ = _run_script(tmp_path, capsys)
    assert outcomes == {"camel.evalset.json": "DELIBERATE"} and code == 0

"""Loading every ADK eval shape: the same cases and turns as ADK's own loaders; clear errors otherwise."""

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

from adk_eval_gate.inputs.load import load_eval_file, with_session_beside
from adk_eval_gate.model.evalset import InvocationEvents, content_text, tool_calls
from adk_eval_gate.support.errors import EvalFileError

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"


def _calls(data: Any) -> list[tuple[str | None, Any]]:
    if data is None:
        return []
    if hasattr(data, "tool_uses"):
        return [(c.name, c.args) for c in data.tool_uses]
    return [
        (p.function_call.name, p.function_call.args)
        for event in data.invocation_events
        if event.content
        for p in event.content.parts or []
        if p.function_call
    ]


def _scenario(scenario: Any) -> dict[str, Any] | None:
    """A persona given by id is resolved by ADK and kept as the id here: compare ids."""
    if scenario is None:
        return None
    dumped: dict[str, Any] = scenario.model_dump(mode="json")
    persona = scenario.user_persona
    dumped["user_persona"] = persona if isinstance(persona, str) or persona is None else persona.id
    return dumped


def _shape(eval_set: Any) -> list[dict[str, Any]]:
    """What matters for evaluation, in a comparable form (works on ADK's and our models alike)."""
    cases = []
    for case in eval_set.eval_cases:
        turns = []
        for inv in case.conversation or []:
            data = inv.intermediate_data
            turns.append(
                {
                    "user": content_text(inv.user_content),
                    "final": content_text(inv.final_response),
                    "calls": _calls(data),
                    "intermediate": [
                        (a, [p.text for p in parts]) for a, parts in getattr(data, "intermediate_responses", [])
                    ],
                    "events": len(data.invocation_events)
                    if data is not None and hasattr(data, "invocation_events")
                    else None,
                    "rubrics": [r.model_dump() for r in inv.rubrics or []],
                }
            )
        session = case.session_input.model_dump() if case.session_input else None
        cases.append(
            {
                "eval_id": case.eval_id,
                "turns": turns,
                "session": session,
                "rubrics": [r.model_dump() for r in case.rubrics or []],
                "scenario": _scenario(case.conversation_scenario),
            }
        )
    return cases


@pytest.mark.parametrize("name", ["snake_case.evalset.json", "invocation_events.evalset.json", "scenario.evalset.json"])
def test_eval_sets_load_like_adk(name: str) -> None:
    path = FORMATS / name
    ours = load_eval_file(path, display=name)
    theirs = AdkEvalSet.model_validate_json(path.read_text(encoding="utf-8"))
    assert ours.format == "evalset"
    assert ours.eval_set.eval_set_id == theirs.eval_set_id
    assert _shape(ours.eval_set) == _shape(theirs)


def test_camel_case_inside_loads_like_adk_and_extra_case_keys_are_kept() -> None:
    path = FORMATS / "camel_inner.evalset.json"
    ours = load_eval_file(path, display="camel_inner.evalset.json")
    theirs = AdkEvalSet.model_validate_json(path.read_text(encoding="utf-8"))
    assert _shape(ours.eval_set) == _shape(theirs)
    case = ours.eval_set.eval_cases[0]
    assert case.model_extra == {"leftover_from_old_tooling": "kept"}
    assert case.session_input is not None and case.session_input.session_id == "pinned-session"
    assert case.conversation is not None and case.conversation[0].creation_timestamp == 12.5


def test_camel_case_at_the_top_is_accepted_unlike_adk(tmp_path: Path) -> None:
    data = json.loads((FORMATS / "camel_inner.evalset.json").read_text())
    data["evalSetId"] = data.pop("eval_set_id")
    data["evalCases"] = data.pop("eval_cases")
    path = tmp_path / "top.evalset.json"
    path.write_text(json.dumps(data))
    with pytest.raises(pydantic.ValidationError, match="eval_set_id"):
        AdkEvalSet.model_validate_json(path.read_text())
    ours = load_eval_file(path, display="top.evalset.json")
    assert ours.eval_set.eval_set_id == "camel_inner"
    assert [c.eval_id for c in ours.eval_set.eval_cases] == ["mixed_styles"]


def test_invocation_events_shape_is_recognised() -> None:
    loaded = load_eval_file(FORMATS / "invocation_events.evalset.json", display="x")
    invocation = loaded.eval_set.eval_cases[0].conversation[0]  # type: ignore[index]
    assert isinstance(invocation.intermediate_data, InvocationEvents)
    assert [c.name for c in tool_calls(invocation.intermediate_data)] == ["get_weather"]


def test_legacy_query_list_becomes_one_multi_turn_case_like_agent_evaluator() -> None:
    path = FORMATS / "legacy_query" / "weather.test.json"
    display = "legacy_query/weather.test.json"
    ours = with_session_beside(load_eval_file(path, display=display), read=True)  # --legacy-session-file
    initial = AgentEvaluator._get_initial_session(str(FORMATS / "legacy_query" / "initial.session.json"))
    theirs = AgentEvaluator._load_eval_set_from_file(str(path), AdkEvalConfig(criteria={}), initial)
    assert ours.format == "legacy_query_list"
    assert ours.initial_session_file == "legacy_query/initial.session.json"
    mine, reference = _shape(ours.eval_set), _shape(theirs)
    assert len(mine) == len(reference) == 1
    reference[0]["eval_id"] = display  # ADK names the case after the path it was given
    assert mine == reference
    assert mine[0]["session"] == {
        "app_name": "hello_world",
        "user_id": "user",
        "session_id": None,
        "state": {"user:lang": "en"},
    }


def test_legacy_named_list_gives_one_case_per_entry_like_adk_eval() -> None:
    path = FORMATS / "legacy_named" / "dice.test.json"
    ours = load_eval_file(path, display="legacy_named/dice.test.json")
    theirs = load_eval_set_from_file(str(path), "legacy_named/dice.test.json")
    assert ours.format == "legacy_named_list"
    assert _shape(ours.eval_set) == _shape(theirs)
    assert [c.eval_id for c in ours.eval_set.eval_cases] == ["roll_17_sided_dice_twice", "prime_check"]


def test_case_lines_point_at_eval_ids() -> None:
    loaded = load_eval_file(FORMATS / "snake_case.evalset.json", display="x")
    text = (FORMATS / "snake_case.evalset.json").read_text().splitlines()
    for eval_id, line in loaded.case_lines.items():
        assert f'"{eval_id}"' in text[line - 1]


def test_case_lines_are_found_in_one_pass_for_escaped_and_camel_case_ids(tmp_path: Path) -> None:
    cases = [
        {"eval_id": 'say "hi"', "conversation": []},
        {"evalId": "café ☕", "conversation": []},
        {"eval_id": "plain", "conversation": []},
    ]
    text = json.dumps({"eval_set_id": "s", "eval_cases": cases}, indent=1, ensure_ascii=True)
    (tmp_path / "a.evalset.json").write_text(text, encoding="utf-8")
    loaded = load_eval_file(tmp_path / "a.evalset.json", display="a.evalset.json")
    lines = text.splitlines()
    assert loaded.case_lines.keys() == {'say "hi"', "café ☕", "plain"}
    for eval_id, line in loaded.case_lines.items():
        assert json.dumps(eval_id) in lines[line - 1]


# --- files ADK rejects, and files that are broken: one clear error each -----------------------------------


def _error(tmp_path: Path, content: str | bytes, name: str = "bad.evalset.json") -> EvalFileError:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(EvalFileError) as caught:
        load_eval_file(path, display=name)
    return caught.value


def test_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    error = _error(tmp_path, '{\n  "eval_set_id": "x",\n  "eval_cases": [,]\n}')
    assert (error.line, error.column) == (3, 18)
    assert error.one_line().startswith("bad.evalset.json:3:18: invalid JSON")


def test_not_utf8(tmp_path: Path) -> None:
    error = _error(tmp_path, b'{"eval_set_id": "caf\xe9"}')
    assert "not UTF-8" in error.message and "0xe9" in error.message


def test_unknown_key_in_a_part_names_the_json_path_and_line(tmp_path: Path) -> None:
    data = json.loads((FORMATS / "snake_case.evalset.json").read_text())
    data["eval_cases"][0]["conversation"][1]["user_content"]["parts"][0]["txt"] = "typo"
    error = _error(tmp_path, json.dumps(data, indent=2))
    assert error.field == "eval_cases[0].conversation[1].user_content.parts[0].txt"
    assert "not a known field" in error.message
    assert error.line is not None
    assert '"txt"' in json.dumps(data, indent=2).splitlines()[error.line - 1]
    with pytest.raises(pydantic.ValidationError):
        AdkEvalSet.model_validate_json(json.dumps(data))


def test_conversation_and_scenario_both_or_neither(tmp_path: Path) -> None:
    neither = {"eval_set_id": "s", "eval_cases": [{"eval_id": "a"}]}
    error = _error(tmp_path, json.dumps(neither))
    assert "Exactly one of conversation and conversation_scenario" in error.message
    assert error.field == "eval_cases[0]"


def test_mixed_intermediate_data_shapes_are_rejected(tmp_path: Path) -> None:
    data = {
        "eval_set_id": "s",
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "q"}]},
                        "intermediate_data": {"tool_uses": [], "invocation_events": []},
                    }
                ],
            }
        ],
    }
    error = _error(tmp_path, json.dumps(data))
    assert error.field is not None and error.field.startswith("eval_cases[0].conversation[0].intermediate_data")
    with pytest.raises(pydantic.ValidationError):
        AdkEvalSet.model_validate_json(json.dumps(data))


def test_duplicate_eval_id(tmp_path: Path) -> None:
    case = {"eval_id": "same", "conversation": []}
    error = _error(tmp_path, json.dumps({"eval_set_id": "s", "eval_cases": [case, case]}, indent=2))
    assert "duplicate eval_id 'same'" in error.message
    assert error.field == "eval_cases[1].eval_id"
    assert error.line == 9


def test_empty_eval_set(tmp_path: Path) -> None:
    assert "has no eval cases" in _error(tmp_path, '{"eval_set_id": "s", "eval_cases": []}').message
    assert "empty list" in _error(tmp_path, "[]", name="x.test.json").message


def test_unknown_persona_id(tmp_path: Path) -> None:
    data = {
        "eval_set_id": "s",
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "p", "user_persona": "PIRATE"},
            }
        ],
    }
    error = _error(tmp_path, json.dumps(data))
    assert "unknown persona id 'PIRATE'" in error.message


def test_legacy_string_intermediate_responses_are_rejected_like_adk(tmp_path: Path) -> None:
    rows = [{"query": "q", "expected_intermediate_agent_responses": ["just a string"], "reference": "r"}]
    error = _error(tmp_path, json.dumps(rows), name="old.test.json")
    assert error.field == "[0].expected_intermediate_agent_responses[0]"
    assert "plain strings" in error.message
    with pytest.raises(TypeError):
        AgentEvaluator._get_eval_set_from_old_format(str(tmp_path / "old.test.json"), AdkEvalConfig(), {})


def test_legacy_missing_tool_input(tmp_path: Path) -> None:
    rows = [{"query": "q", "expected_tool_use": [{"tool_name": "t"}]}]
    error = _error(tmp_path, json.dumps(rows, indent=2), name="old.test.json")
    assert error.field == "[0].expected_tool_use[0].tool_input"
    assert error.line == 5


def test_duplicate_rubric_ids_across_case_and_invocation(tmp_path: Path) -> None:
    rubric = {"rubric_id": "r1", "rubric_content": {"text_property": "p"}, "type": "FINAL_RESPONSE_QUALITY"}
    data = {
        "eval_set_id": "s",
        "eval_cases": [
            {
                "eval_id": "a",
                "rubrics": [rubric],
                "conversation": [{"user_content": {"parts": [{"text": "q"}]}, "rubrics": [rubric]}],
            }
        ],
    }
    error = _error(tmp_path, json.dumps(data))
    assert "rubric_id 'r1' is also a case-level rubric" in error.message


def test_a_list_of_something_else(tmp_path: Path) -> None:
    error = _error(tmp_path, json.dumps([{"question": "q"}]), name="x.test.json")
    assert "legacy query list" in error.message


def test_a_misspelt_key_is_named_with_the_key_it_should_be(tmp_path: Path) -> None:
    from adk_eval_gate.inputs.load import load_eval_file

    missing = tmp_path / "a.evalset.json"
    missing.write_text(json.dumps({"eval_set_id": "s", "eval_case": []}))
    with pytest.raises(EvalFileError, match=r"this object has 'eval_case': did you mean 'eval_cases'\?"):
        load_eval_file(missing, display="a.evalset.json")
    unknown = tmp_path / "b.evalset.json"
    turn = {"user_contents": {"parts": [{"text": "hi"}]}}
    unknown.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": [turn]}]}))
    with pytest.raises(EvalFileError, match=r"did you mean 'user_content'\?"):
        load_eval_file(unknown, display="b.evalset.json")
    legacy_file = tmp_path / "c.test.json"
    legacy_file.write_text(json.dumps([{"query": "hi", "expected_tool_uses": []}]))
    loaded = load_eval_file(legacy_file, display="c.test.json")
    assert loaded.warnings == [
        "c.test.json:1: [0].expected_tool_uses is not a key ADK reads in a legacy file and is ignored (as ADK does); "
        "did you mean 'expected_tool_use'?"
    ]


SEVERAL_PROBLEMS = {
    "eval_set_id": "s",
    "eval_cases": [
        {
            "eval_id": "a",
            "conversation": [
                {
                    "user_content": {"role": "user", "parts": [{"text": "hi"}]},
                    "final_respons": {"parts": [{"text": "x"}]},
                    "intermediate_data": {"tool_uses": [{"tool": "get_weather", "args": {}}]},
                }
            ],
        },
        {"eval_idd": "b", "conversation": []},
    ],
}


def test_every_problem_of_a_file_is_listed_at_once_with_its_line_and_the_fields_allowed_there(
    tmp_path: Path,
) -> None:
    """validate showed one problem and "(and 2 more problems)", and suggested ``tool_uses`` for
    ``tool_uses[0].tool``, a field of another object: the function call's field is ``name``."""
    text = json.dumps(SEVERAL_PROBLEMS, indent=2)
    error = _error(tmp_path, text)
    lines = text.splitlines()
    problems = error.every_problem()
    assert [problem.field for problem in problems] == [
        "eval_cases[0].conversation[0].final_respons",
        "eval_cases[0].conversation[0].intermediate_data.tool_uses[0].tool",
        "eval_cases[1].eval_id",
    ]
    assert [lines[problem.line - 1].strip()[:16] for problem in problems if problem.line] == [
        '"final_respons":',
        '"tool": "get_wea',
        "{",
    ]
    respons, tool, eval_id = (problem.message for problem in problems)
    assert "did you mean 'final_response'?" in respons and "the fields allowed here: invocation_id, " in respons
    assert tool == (
        "is not a known field here (ADK rejects unknown keys in this object); the fields allowed here: id, args, "
        "name, partial_args, will_continue"
    )
    assert eval_id == "is required (this object has 'eval_idd': did you mean 'eval_id'?)"
    assert error.unlisted == 0 and error.more() == 2
    with pytest.raises(pydantic.ValidationError):  # ADK rejects the file too
        AdkEvalSet.model_validate_json(text)


def test_a_camel_case_key_gets_its_field_suggested_among_the_fields_of_its_object(tmp_path: Path) -> None:
    case = {"evalId": "a", "conversation": [{"userContent": {"parts": [{"text": "hi"}]}, "finalRespons": {}}]}
    error = _error(tmp_path, json.dumps({"evalSetId": "s", "evalCases": [case]}))
    assert error.field == "evalCases[0].conversation[0].finalRespons"
    assert "did you mean 'final_response'?" in error.message


@pytest.mark.slow  # 3,000 cases, each with a problem
def test_a_huge_file_lists_its_first_problems_and_counts_the_others(tmp_path: Path) -> None:
    turn = {"user_content": {"parts": [{"text": "hi"}]}, "typo": 1}
    cases = [{"eval_id": f"c{index}", "conversation": [turn]} for index in range(3000)]
    error = _error(tmp_path, json.dumps({"eval_set_id": "s", "eval_cases": cases}, indent=1))
    problems = error.every_problem()
    assert len(problems) == 50 and error.unlisted == 2950 and error.more() == 2999
    assert [problem.field for problem in problems[:2]] == [
        "eval_cases[0].conversation[0].typo",
        "eval_cases[1].conversation[0].typo",
    ]
    assert all(problem.line for problem in problems)


def test_run_prints_every_problem_of_a_file_and_keeps_one_line_for_it_in_the_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from adk_eval_gate.config.settings import build_settings
    from adk_eval_gate.inputs.prepare import prepare
    from adk_eval_gate.support.console import Console

    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "several.evalset.json").write_text(json.dumps(SEVERAL_PROBLEMS, indent=2))
    out = io.StringIO()
    prepared = prepare(build_settings("run", {"paths": ["."]}, env={}), Console(in_actions=False, stream=out))
    printed = [line for line in out.getvalue().splitlines() if line.startswith("error: several.evalset.json:")]
    assert len(printed) == 3
    [file] = prepared.files
    assert file.error is not None and "\n" not in file.error
    assert file.error == printed[0].removeprefix("error: ") + " (and 2 more problems in it)"


def test_a_legacy_files_session_is_what_adk_reads_unless_the_file_beside_it_is_asked_for() -> None:
    """ADK reads no initial.session.json beside a legacy file (AgentEvaluator only its initial_session_file=):
    by default the case has no session, and a warning names the file that is not read."""
    path = FORMATS / "legacy_query" / "weather.test.json"
    loaded = with_session_beside(load_eval_file(path, display="legacy_query/weather.test.json"), read=False)
    theirs = AgentEvaluator._load_eval_set_from_file(str(path), AdkEvalConfig(criteria={}), {})
    assert loaded.eval_set.eval_cases[0].session_input is None
    assert theirs.eval_cases[0].session_input is None
    assert loaded.initial_session_file is None
    assert loaded.warnings[-1:] == [
        "legacy_query/weather.test.json: the initial.session.json beside it is not read, as ADK does not read it; "
        "pass --legacy-session-file (input legacy-session-file) to seed the session from it"
    ]


@pytest.mark.parametrize(
    ("session", "message"),
    [
        (b"[1]", "initial.session.json:1: must be a JSON object (app_name, user_id, state)"),
        (b'{"state": 3}', "initial.session.json:1: state"),
        (b"\xff\xfe{", "initial.session.json"),
        (b'{"state": {"a": "\\u0000"}}', None),
        (b'{"state": ' * 5000, "initial.session.json"),
    ],
)
def test_a_session_file_beside_a_legacy_file_that_cannot_be_used_is_one_line_naming_it(
    tmp_path: Path, session: bytes, message: str | None
) -> None:
    (tmp_path / "a.test.json").write_text('[{"query": "hi", "reference": "x"}]', encoding="utf-8")
    (tmp_path / "initial.session.json").write_bytes(session)
    loaded = load_eval_file(tmp_path / "a.test.json", display="a.test.json")
    if message is None:
        assert with_session_beside(loaded, read=True).eval_set.eval_cases[0].session_input is not None
        return
    with pytest.raises(EvalFileError) as caught:
        with_session_beside(loaded, read=True)
    assert message in caught.value.one_line()
    assert "\n" not in caught.value.one_line()

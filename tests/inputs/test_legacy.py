"""legacy: ADK's two old formats converted as ADK converts them, and their errors with the path they are at."""

from __future__ import annotations

import itertools

import pytest

from adk_eval_gate.inputs import legacy
from adk_eval_gate.model.evalset import content_text, tool_calls

ROWS = [
    {"query": "hi", "expected_tool_use": [], "reference": "hello"},
    {
        "query": "weather in Paris?",
        "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "Paris"}}],
        "reference": "sunny",
    },
]


def _ids() -> legacy.IdFactory:
    counter = itertools.count(1)
    return lambda: f"id-{next(counter)}"


def test_the_formats_are_told_apart() -> None:
    assert legacy.is_query_list(ROWS) and not legacy.is_named_list(ROWS)
    named = [{"name": "case", "data": ROWS}]
    assert legacy.is_named_list(named) and not legacy.is_query_list(named)
    assert not legacy.is_query_list([]) and not legacy.is_named_list({"eval_cases": []})


def test_a_query_list_becomes_one_multi_turn_case() -> None:
    eval_set = legacy.convert_query_list(
        ROWS,
        eval_id="f.test.json",
        eval_set_id="f.test.json",
        initial_session={"state": {"u": 1}},
        new_id=_ids(),
        now=0,
    )
    (case,) = eval_set.eval_cases
    turns = case.conversation or []
    assert case.eval_id == "f.test.json" and len(turns) == 2
    assert [content_text(t.user_content) for t in turns] == ["hi", "weather in Paris?"]
    assert content_text(turns[1].final_response) == "sunny"
    call = tool_calls(turns[1].intermediate_data)[0]
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
    assert [t.invocation_id for t in turns] == ["id-1", "id-2"]
    assert case.session_input is not None and case.session_input.state == {"u": 1}


def test_a_named_list_becomes_one_case_per_element() -> None:
    eval_set = legacy.convert_named_list(
        [{"name": "a", "data": ROWS[:1]}, {"name": "b", "data": ROWS}], eval_set_id="s", new_id=_ids(), now=0
    )
    assert [(c.eval_id, len(c.conversation or [])) for c in eval_set.eval_cases] == [("a", 1), ("b", 2)]


@pytest.mark.parametrize(
    ("rows", "path", "message"),
    [
        ([{"query": 3}], [0, "query"], '"query" must be a string'),
        ([{"query": "q", "reference": 1}], [0, "reference"], '"reference" must be a string'),
        ([{"reference": "r"}, {"query": "q"}], [0, "query"], '"query" is required'),
    ],
)
def test_errors_name_the_path(rows: list[object], path: list[object], message: str) -> None:
    with pytest.raises(legacy.LegacyFormatError) as caught:
        legacy.convert_query_list(rows, eval_id="x", eval_set_id="x", initial_session=None, new_id=_ids(), now=0)
    assert caught.value.path == path and str(caught.value) == message


def test_a_null_reference_is_an_empty_expected_response_as_in_adk() -> None:
    from google.adk.evaluation.local_eval_sets_manager import _convert_invocation_to_pydantic_schema

    row = {"query": "hi", "reference": None, "expected_tool_use": []}
    eval_set = legacy.convert_query_list(
        [row], eval_id="x", eval_set_id="x", initial_session=None, new_id=_ids(), now=0
    )
    ours = (eval_set.eval_cases[0].conversation or [])[0].final_response
    theirs = _convert_invocation_to_pydantic_schema(row).final_response
    assert ours == theirs and content_text(ours) == ""


def test_keys_adk_ignores_in_a_legacy_file_are_found_with_the_nearest_key() -> None:
    rows = [{"query": "hi", "expected_tool_uses": [], "reference": "hello", "notes": "x"}]
    assert legacy.unknown_keys(rows) == [([0, "expected_tool_uses"], "expected_tool_use"), ([0, "notes"], None)]
    named = [{"name": "a", "data": [{"query": "hi", "refrence": "x"}], "initial_sesion": {}}]
    assert legacy.unknown_keys(named) == [
        ([0, "initial_sesion"], "initial_session"),
        ([0, "data", 0, "refrence"], "reference"),
    ]

"""jsonpos: the line and column of a value or key by its JSON path, and paths as users write them."""

from __future__ import annotations

from adk_eval_gate.support.jsonpos import JsonPositions, format_path

TEXT = """{
  "eval_set_id": "weather",
  "eval_cases": [
    {"eval_id": "a"},
    {
      "eval_id": "b",
      "conversation": [1, {"x": "y\\"}"}]
    }
  ]
}"""


def test_keys_and_values_are_located_by_path() -> None:
    positions = JsonPositions(TEXT)
    assert positions.locate(["eval_set_id"]) == (2, 3)
    assert positions.locate(["eval_cases", 0, "eval_id"]) == (4, 6)
    assert positions.locate(["eval_cases", 1, "eval_id"]) == (6, 7)
    assert positions.locate(["eval_cases", 1, "conversation", 1, "x"]) == (7, 28)


def test_an_unknown_path_falls_back_to_its_deepest_known_prefix() -> None:
    positions = JsonPositions(TEXT)
    assert positions.locate(["eval_cases", 1, "missing_field"]) == positions.locate(["eval_cases", 1])
    assert positions.locate([]) == (1, 1)


def test_broken_json_locates_what_came_before_the_break() -> None:
    positions = JsonPositions('{"a": 1,\n "b": [tru')
    assert positions.locate(["a"]) == (1, 2)
    assert positions.locate(["b"]) == (2, 2)
    assert positions.locate(["b", 0]) == (2, 8)  # where the broken value starts
    assert positions.locate(["zzz"]) == (1, 1)  # the top-level object


def test_paths_are_formatted_as_users_write_them() -> None:
    assert format_path(["eval_cases", 2, "conversation", 0, "user_content"]) == (
        "eval_cases[2].conversation[0].user_content"
    )
    assert format_path([0, "data"]) == "[0].data"
    assert format_path([]) == "(top level)"

"""The drop-in's other public methods of ADK's AgentEvaluator: ``find_config_for_test_file``,
``migrate_eval_data_to_new_schema`` (against ADK's own), and ``evaluate_eval_set``'s refusals, which come before
any agent runs, with ADK's words or one line naming what is wrong."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation.agent_evaluator import AgentEvaluator as AdkAgentEvaluator
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

from adk_eval_gate.pytest import AgentEvaluator
from adk_eval_gate.pytest.agent_evaluator import NO_EVAL_CASES
from tests.conftest import write_json

ROWS = [
    {"query": "Weather in Paris?", "expected_tool_use": [], "reference": "Sunny."},
    {"query": "And Tokyo?", "expected_tool_use": [], "reference": "Rainy."},
]
SESSION = {"app_name": "weather", "user_id": "u", "state": {"units": "metric"}}


def test_the_config_beside_a_test_file_or_adks_defaults(tmp_path: Path) -> None:
    test_file = tmp_path / "a.test.json"
    assert AgentEvaluator.find_config_for_test_file(str(test_file)).criteria == (
        AdkAgentEvaluator.find_config_for_test_file(str(test_file)).criteria
    )
    write_json(tmp_path / "test_config.json", {"criteria": {"response_match_score": 0.4}})
    ours = AgentEvaluator.find_config_for_test_file(str(test_file))
    assert ours.criterion("response_match_score").threshold == 0.4
    assert AdkAgentEvaluator.find_config_for_test_file(str(test_file)).criteria["response_match_score"] == 0.4


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{"criteria": {"response_match": 0.4}}', "unknown metric 'response_match'"),
        (b"\xff\xfe", "is not UTF-8"),
        (b'{"criteria": ' * 10_000, "test_config.json"),
        (b'{"criteria": {"response_match_score": "\x00"}}', "test_config.json"),
    ],
)
def test_a_broken_config_beside_a_test_file_is_one_line_naming_it(tmp_path: Path, content: bytes, said: str) -> None:
    (tmp_path / "test_config.json").write_bytes(content)
    with pytest.raises(ValueError) as raised:
        AgentEvaluator.find_config_for_test_file(str(tmp_path / "a.test.json"))
    assert said in str(raised.value) and "\n" not in str(raised.value)


def _conversation(path: Path) -> list[Any]:
    case = json.loads(path.read_text(encoding="utf-8"))["eval_cases"][0]
    return [(turn["user_content"], turn["final_response"]) for turn in case["conversation"]] + [case["session_input"]]


def test_migration_writes_what_adk_writes_seeded_from_the_session_file_given_only(tmp_path: Path) -> None:
    old = tmp_path / "a.test.json"
    write_json(old, ROWS)
    write_json(tmp_path / "initial.session.json", SESSION)  # beside it: ADK does not read it
    ours, theirs = tmp_path / "ours.evalset.json", tmp_path / "theirs.evalset.json"
    AgentEvaluator.migrate_eval_data_to_new_schema(str(old), str(ours))
    AdkAgentEvaluator.migrate_eval_data_to_new_schema(str(old), str(theirs))
    assert _conversation(ours) == _conversation(theirs)
    assert _conversation(ours)[-1] is None
    given = tmp_path / "given.session.json"
    write_json(given, SESSION)
    AgentEvaluator.migrate_eval_data_to_new_schema(str(old), str(ours), str(given))
    AdkAgentEvaluator.migrate_eval_data_to_new_schema(str(old), str(theirs), str(given))
    assert _conversation(ours) == _conversation(theirs)
    assert _conversation(ours)[-1]["state"] == {"units": "metric"}


@pytest.mark.parametrize(
    ("rows", "files"),
    [
        ([{"query": "q"}], ("a.test.json", "b.evalset.json")),  # the first row lacks the default criteria's keys
        (ROWS, ("", "b.evalset.json")),
        (ROWS, ("a.test.json", "")),
    ],
)
def test_migration_refuses_what_adk_refuses_with_its_words(
    tmp_path: Path, rows: list[dict[str, Any]], files: tuple[str, str]
) -> None:
    write_json(tmp_path / "a.test.json", rows)
    old, new = (str(tmp_path / name) if name else "" for name in files)
    with pytest.raises(ValueError) as ours:
        AgentEvaluator.migrate_eval_data_to_new_schema(old, new)
    with pytest.raises(ValueError) as theirs:
        AdkAgentEvaluator.migrate_eval_data_to_new_schema(old, new)
    assert str(ours.value) == str(theirs.value)


ONE_CASE = {"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": []}]}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"eval_set": AdkEvalSet(eval_set_id="s", eval_cases=[])}, NO_EVAL_CASES),
        ({"eval_set": AdkEvalSet.model_validate(ONE_CASE)}, "`eval_config` is required."),
        ({"eval_set": AdkEvalSet.model_validate(ONE_CASE), "num_runs": 0}, "`num_runs` must be at least 1, got 0."),
        (
            {"eval_set": AdkEvalSet.model_validate(ONE_CASE), "criteria": {"response_match": 0.5}},
            "eval_config:3: criteria.response_match: unknown metric 'response_match'",
        ),
        (
            {
                "eval_set": AdkEvalSet.model_validate({"eval_set_id": "s", "eval_cases": ONE_CASE["eval_cases"] * 2}),
                "eval_config": AdkEvalConfig(criteria={"response_match_score": 0.5}),
            },
            "duplicate eval_id 'c'",
        ),
    ],
)
def test_evaluate_eval_set_refuses_before_any_agent_runs(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        asyncio.run(AgentEvaluator.evaluate_eval_set("no_such_agent", **arguments))
    assert message in str(raised.value) and "\n" not in str(raised.value)

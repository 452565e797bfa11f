"""A Vertex-style dataset mixing rows with the agent's recorded answers and rows the real ADK agent answers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adk_eval_gate.inputs.vertex_dataset import derived_id
from tests import turns
from tests.inputs.test_vertex_dataset import call, write_csv, write_jsonl
from tests.runners.conftest import RunGate

pytestmark = pytest.mark.slow  # a real ADK agent (scripted model) in worker processes

REPO = Path(__file__).resolve().parents[2]

ROWS = [
    {  # recorded: scored as it is, the agent never sees it
        "eval_id": "recorded_paris",
        "prompt": "What is the weather in Paris?",
        "reference": "The weather in Paris is sunny and 22 C.",
        "reference_trajectory": [call("get_weather", city="Paris")],
        "response": "Recorded: Paris is sunny and 22 C.",
        "predicted_trajectory": [call("get_weather", city="Paris")],
        "latency_in_seconds": 3.5,
    },
    {  # run through the agent, derived id
        "prompt": "How is the weather in London?",
        "reference": "The weather in London is rainy and 14 C.",
        "reference_trajectory": [call("get_weather", city="London")],
    },
    {  # run through the agent, and fails on purpose
        "eval_id": "agent_sydney",
        "prompt": "Tell me the weather in Sydney.",
        "reference": "The weather in Melbourne is mild and 19 C.",
        "reference_trajectory": [call("get_weather", city="Melbourne")],
    },
    {"eval_id": "bad_row", "prompt": "Tokyo?", "reference_trajectory": "get_weather(Tokyo)"},
]


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_rows_without_answers_run_through_the_agent_in_the_same_run(
    tmp_repo: Path, run_gate: RunGate, kind: str
) -> None:
    shutil.copytree(REPO / "examples" / "weather_agent", tmp_repo / "weather_agent")
    if kind == "csv":
        dataset = write_csv(tmp_repo / "weather_agent" / "data" / "mixed.csv", ROWS)
        result = run_gate("--dataset", str(dataset.relative_to(tmp_repo)), "--num-runs", "2")
    else:
        write_jsonl(tmp_repo / "weather_agent" / "data" / "mixed.evalset.jsonl", ROWS)
        result = run_gate("weather_agent/data", "--num-runs", "2")
    assert result.code == 1 and result.doc is not None
    statuses = {case["eval_id"]: case["status"] for case in result.doc["cases"]}
    london = derived_id("How is the weather in London?")
    assert statuses == {"recorded_paris": "passed", london: "passed", "agent_sydney": "failed", "bad_row": "error"}

    recorded = result.case("recorded_paris")
    assert len(recorded["runs"]) == 1 and recorded["runs"][0]["duration_seconds"] == 3.5
    actual = turns.actual(recorded["runs"][0]["invocations"][0])
    assert actual["final_response"]["parts"][0]["text"] == "Recorded: Paris is sunny and 22 C."
    assert "tool_uses" in actual["intermediate_data"]  # as recorded, not ADK events

    agent_run = result.case(london)["runs"]
    assert len(agent_run) == 2  # --num-runs applies to the rows the agent answers
    actual = turns.actual(agent_run[0]["invocations"][0], result.doc)
    assert actual["final_response"]["parts"][0]["text"] == "The weather in London is rainy and 14 C."
    assert "invocation_events" in actual["intermediate_data"] and "weather_agent" in str(actual["app_details"])
    assert result.scores("agent_sydney")["tool_trajectory_avg_score"] == 0.0
    bad = result.case("bad_row")
    where = "weather_agent/data/mixed.csv:5" if kind == "csv" else "weather_agent/data/mixed.evalset.jsonl:4"
    assert bad["error"] == f"{where}: reference_trajectory: is not valid JSON: Expecting value (column 1)"
    assert f"ERROR {bad['id']}: " in result.out

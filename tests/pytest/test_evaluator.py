"""AgentEvaluator's API on the gate's stages: its failure lines, CSV rows, discovery, config and refusals.

The cases come from a real CaseSession over a dataset of recorded answers (no agent is needed for those).
"""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.model.results import CaseResult, MetricResult, RunMetric, RunRecord
from adk_eval_gate.pytest import AgentEvaluator, evaluate
from adk_eval_gate.pytest.case_session import CaseSession
from adk_eval_gate.pytest.case_text import case_report
from adk_eval_gate.pytest.evaluator import adk_failures, append_csv, csv_cell, eval_files, sibling_config
from tests.conftest import write_json
from tests.inputs.test_vertex_dataset import call, write_jsonl
from tests.report.builders import lower_is_better_case

ROWS = [
    {
        "eval_id": "good",
        "prompt": "Weather in Paris?",
        "reference": "Sunny in Paris.",
        "response": "Sunny in Paris.",
        "reference_trajectory": [call("get_weather", city="Paris")],
        "predicted_trajectory": [call("get_weather", city="Paris")],
    },
    {
        "eval_id": "wrong_city",
        "prompt": "Weather in Sydney?",
        "reference": "Mild in Melbourne.",
        "response": "Sunny in Sydney.",
        "reference_trajectory": [call("get_weather", city="Melbourne")],
        "predicted_trajectory": [call("get_weather", city="Sydney")],
    },
    {"eval_id": "broken", "prompt": "Tokyo?", "predicted_trajectory": [{"tool_name": "get_weather"}]},
]


def run_cases(folder: Path, criteria: dict[str, float]) -> list[CaseResult]:
    write_json(folder / "test_config.json", {"criteria": criteria})
    path = write_jsonl(folder / "rows.evalset.jsonl", ROWS)
    settings = build_settings("run", {"num_runs": 2, "workers": 0}, env={})  # no judge credentials
    session = CaseSession(settings, root=folder, config_finder=sibling_config)

    async def go() -> list[CaseResult]:
        try:
            return await session.run(session.load(path))
        finally:
            await session.aclose()

    return asyncio.run(go())


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[CaseResult]:
    criteria = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5, "final_response_match_v2": 0.5}
    return run_cases(tmp_path_factory.mktemp("rows"), criteria)


def test_failure_lines_are_agent_evaluators(cases: list[CaseResult]) -> None:
    assert adk_failures(cases, "weather_agent") == [
        "final_response_match_v2 for weather_agent was not evaluated. No score was produced, so the threshold of "
        "0.5 was never checked and this is not a score regression. See the logs for why the metric could not run.",
        "tool_trajectory_avg_score for weather_agent Failed. Expected 1.0, but got 0.0.",
        "response_match_score for weather_agent Failed. Expected 0.5, but got 0.3333333333333333.",
        "final_response_match_v2 for weather_agent was not evaluated. No score was produced, so the threshold of "
        "0.5 was never checked and this is not a score regression. See the logs for why the metric could not run.",
        "broken for weather_agent Failed. 1 of 1 runs were recorded as failed without producing any metric results.",
    ]


def test_the_case_report_names_each_failing_metric_and_the_turns(cases: list[CaseResult]) -> None:
    report = case_report(cases[1])
    assert report.splitlines()[:4] == [
        "tool_trajectory_avg_score: 0 < 1; response_match_score: 0.3333 < 0.5; final_response_match_v2: not "
        "evaluated (no LLM judge credentials: set GOOGLE_API_KEY or GEMINI_API_KEY, or for Vertex AI "
        "GOOGLE_GENAI_USE_VERTEXAI=true, GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION)",
        "rows.evalset.jsonl::wrong_city: failed",
        "  tool_trajectory_avg_score: score 0 < threshold 1",
        "  response_match_score: score 0.3333 < threshold 0.5",
    ]
    assert '    expected tools  get_weather({"city": "Melbourne"})' in report
    assert '    actual tools    get_weather({"city": "Sydney"})' in report
    assert "    actual answer   'Sunny in Sydney.'" in report
    assert "final_response_match_v2: not evaluated (" in report
    error = case_report(cases[2]).splitlines()
    assert error[0].startswith("line 3: predicted_trajectory[0]")
    assert error[2].startswith("  error: rows.evalset.jsonl:3: predicted_trajectory[0]")
    assert case_report(cases[0]).splitlines()[0].startswith("final_response_match_v2: not evaluated (no LLM judge")
    every = case_report(cases[0], every_metric=True)
    assert "  tool_trajectory_avg_score: score 1 >= threshold 1" in every and "(informational)" in every


def test_output_file_appends_one_row_per_metric_run_and_turn(cases: list[CaseResult], tmp_path: Path) -> None:
    target = tmp_path / "out" / "results.csv"
    append_csv(str(target), cases[:2])
    append_csv(str(target), cases[:1])
    rows = list(csv.DictReader(target.open(encoding="utf-8")))
    metrics = len(cases[0].metrics)  # three configured and four informational, one run, one turn each
    assert len(rows) == 3 * metrics
    wrong = next(
        row for row in rows if row["eval_id"] == "wrong_city" and row["metric_name"] == "tool_trajectory_avg_score"
    )
    assert wrong == {
        **wrong,
        "score": "0.0",
        "threshold": "1.0",
        "eval_status": "FAILED",
        "prompt": "Weather in Sydney?",
        "expected_tool_calls": 'get_weather({"city": "Melbourne"})',
        "actual_response": "Sunny in Sydney.",
    }
    assert {row["eval_status"] for row in rows if row["metric_name"] == "tool_call_count_v1"} == {"INFORMATIONAL"}


FORMULAS = ['=HYPERLINK("http://x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def test_csv_cells_of_text_that_start_like_a_formula_are_written_as_text(tmp_path: Path) -> None:
    """A prompt or an answer such as ``=HYPERLINK(...)`` is written so that a spreadsheet shows it as text, never
    runs it as a formula."""
    rows = [
        {
            "eval_id": f"formula_{number}",
            "prompt": formula,
            "reference": formula,
            "response": formula,
            "reference_trajectory": [],
            "predicted_trajectory": [],
        }
        for number, formula in enumerate(FORMULAS)
    ]
    write_json(tmp_path / "test_config.json", {"criteria": {"response_match_score": 0.5}})
    path = write_jsonl(tmp_path / "formulas.evalset.jsonl", rows)
    settings = build_settings("run", {"num_runs": 1, "workers": 0}, env={})
    session = CaseSession(settings, root=tmp_path, config_finder=sibling_config)
    append_csv(str(tmp_path / "out.csv"), asyncio.run(session.run(session.load(path))))
    written = [row for row in csv.DictReader((tmp_path / "out.csv").open(encoding="utf-8", newline=""))]
    assert written
    for row in written:
        formula = FORMULAS[int(row["eval_id"].rsplit("_", 1)[1])]
        assert row["prompt"] == row["expected_response"] == row["actual_response"] == "'" + formula
    assert {float(row["threshold"]) for row in written if row["metric_name"] == "response_match_score"} == {0.5}
    assert [csv_cell(text) for text in ("plain", "a=b", 0.5, -1.0)] == ["plain", "a=b", 0.5, -1.0]


def test_a_folder_gives_its_test_json_files_and_a_file_is_itself(tmp_path: Path) -> None:
    for name in ("b/two.test.json", "a/one.test.json", "a/other.evalset.json", "a/test_config.json"):
        write_json(tmp_path / name, {})
    assert eval_files(str(tmp_path)) == [tmp_path / "a" / "one.test.json", tmp_path / "b" / "two.test.json"]
    assert eval_files(str(tmp_path / "a" / "other.evalset.json")) == [tmp_path / "a" / "other.evalset.json"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError) as raised:
        eval_files(str(tmp_path / "empty"))
    assert (
        str(raised.value)
        == f"No `*.test.json` eval files found in {tmp_path / 'empty'}, so there is nothing to evaluate."
    )


def test_only_the_config_beside_the_file_counts_as_in_agent_evaluator(tmp_path: Path) -> None:
    write_json(tmp_path / "test_config.json", {"criteria": {"response_match_score": 0.1}})
    (tmp_path / "sub").mkdir()
    assert sibling_config(tmp_path / "sub" / "x.test.json").path is None
    assert sibling_config(tmp_path / "x.test.json").path == tmp_path / "test_config.json"


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"num_runs": 0}, ValueError, "`num_runs` must be at least 1, got 0."),
        ({"eval_set_results_manager": object()}, ValueError, "app_name is required when eval_set_results_manager"),
        ({"eval_set_results_manager": object(), "app_name": "a"}, NotImplementedError, "does not write ADK result"),
        ({"artifact_service": object()}, NotImplementedError, "does not take one (artifact_service)"),
    ],
)
def test_what_it_cannot_do_is_refused_before_anything_runs(
    tmp_path: Path, arguments: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        asyncio.run(evaluate("no_such_agent", str(tmp_path), **arguments))
    assert message in str(raised.value)
    assert AgentEvaluator.evaluate is evaluate


def test_ids_of_evaluated_files_are_repository_relative(cases: list[CaseResult]) -> None:
    assert [case.id for case in cases] == [
        "rows.evalset.jsonl::good",
        "rows.evalset.jsonl::wrong_city",
        "rows.evalset.jsonl::broken",
    ]
    assert json.loads(cases[0].model_dump_json())["status"] == "not_evaluated"  # final_response_match_v2


def test_a_lower_is_better_custom_metric_passes_in_the_report_the_failure_lines_and_the_csv(tmp_path: Path) -> None:
    """Its function passes a turn at or below 0.5: 0, 0 and 1 pass as AgentEvaluator passes them (1/3, lower is
    better); each CSV row has the function's own status, as AgentEvaluator writes them."""
    fine = lower_is_better_case("mostly_fine", [0.0, 0.0, 1.0], rule="agent_evaluator")
    bad = lower_is_better_case("mostly_bad", [1.0, 1.0, 0.0], [1.0], rule="agent_evaluator")
    assert adk_failures([fine], "agent") == []
    assert adk_failures([bad], "agent") == ["bad_turns for agent Failed. Expected 0.5, but got 0.75."]
    assert "  bad_turns: score 0.3333 <= threshold 0.5 (lower is better)" in case_report(fine, every_metric=True)
    assert "  bad_turns: score 0.75 > threshold 0.5 (lower is better) (runs: 0.6667, 1)" in case_report(bad)
    target = tmp_path / "rows.csv"
    append_csv(str(target), [fine])
    rows = list(csv.DictReader(target.open(encoding="utf-8")))
    assert [(row["score"], row["eval_status"]) for row in rows] == [
        ("0.0", "PASSED"),
        ("0.0", "PASSED"),
        ("1.0", "FAILED"),
    ]


def test_a_case_whose_runs_had_no_turns_gets_no_failure_line_as_in_agent_evaluator() -> None:
    """AgentEvaluator's lines come from per-turn results: a case without turns is not evaluated, not failed."""
    metric = MetricResult(name="m", kind="deterministic", score=None, threshold=0.5, status="not_evaluated")
    no_turns = RunRecord(run=1, status="passed", metrics=[RunMetric(name="m", score=None, status="not_evaluated")])
    case = CaseResult(id="f::c", file="f", eval_set_id="s", eval_id="c", status="not_evaluated", metrics=[metric])
    assert adk_failures([case.model_copy(update={"runs": [no_turns]})], "agent") == []
    turn = no_turns.model_copy(
        update={"metrics": [RunMetric(name="m", score=None, status="not_evaluated", invocation_scores=[None])]}
    )
    (line,) = adk_failures([case.model_copy(update={"runs": [turn]})], "agent")
    assert line.startswith("m for agent was not evaluated.")

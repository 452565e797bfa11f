"""Parity: every per-case score of the deterministic metrics equals what ADK itself gives on the same agent.

``adk eval`` runs for real in a subprocess (its result file is read from ``.adk/eval_history`` and removed; the weather
example's is the session's shared run of the same command on the same files, ``tests/adk_history.py``);
legacy ``*.test.json`` files go through ``AgentEvaluator.evaluate`` with a results manager, as ADK's pytest path
does. Our side runs the same files through the CLI. ``invocation_duration_v1`` is wall-clock time, so only its
presence is compared.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.adk_history import shared_adk_history
from tests.runners.conftest import RunGate

pytestmark = pytest.mark.slow  # real `adk eval` and AgentEvaluator runs

REPO = Path(__file__).resolve().parents[2]
EXACT = ("tool_trajectory_avg_score", "response_match_score", "tool_call_count_v1", "inference_call_count_v1",
         "token_usage_v1")  # fmt: skip
DURATION = "invocation_duration_v1"


def _adk_scores(result_files: list[Path]) -> dict[str, dict[str, float | None]]:
    scores: dict[str, dict[str, float | None]] = {}
    for path in result_files:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, str):  # older ADK wrote the JSON as a JSON string
            data = json.loads(data)
        for case in data["eval_case_results"]:
            scores[case["eval_id"]] = {m["metric_name"]: m["score"] for m in case["overall_eval_metric_results"]}
    return scores


def adk_eval(agent: Path, evalset: Path) -> dict[str, dict[str, float | None]]:
    """``adk eval AGENT EVALSET`` (it finds test_config.json beside the one file); scores by eval id."""
    history = agent / ".adk" / "eval_history"
    done = subprocess.run(
        [sys.executable, "-m", "google.adk.cli", "eval", str(agent), str(evalset)],
        cwd=agent.parent,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    try:
        assert "Eval Run Summary" in done.stdout, done.stdout[-2000:] + done.stderr[-3000:]
        return _adk_scores(sorted(history.glob("*.evalset_result.json")))
    finally:
        shutil.rmtree(agent / ".adk", ignore_errors=True)


def agent_evaluator(agent: Path, test_file: Path) -> dict[str, float | None]:
    """``AgentEvaluator.evaluate`` (num_runs=1) on a legacy file; its one case's scores."""
    from google.adk.evaluation.agent_evaluator import AgentEvaluator
    from google.adk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager

    results = agent.parent / "evaluator_results"
    manager = LocalEvalSetResultsManager(agents_dir=str(results))
    sys.path.insert(0, str(agent.parent))
    try:
        asyncio.run(
            AgentEvaluator.evaluate(
                agent_module=agent.name,
                eval_dataset_file_path_or_dir=str(test_file),
                num_runs=1,
                initial_session_file=str(test_file.parent / "initial.session.json"),
                print_detailed_results=False,
                eval_set_results_manager=manager,
                app_name=agent.name,
            )
        )
    except AssertionError:
        pass  # a failing metric: the scores are in the result file all the same
    finally:
        sys.path.remove(str(agent.parent))
    try:
        (only,) = _adk_scores(sorted(results.rglob("*.evalset_result.json"))).values()
        return only
    finally:
        shutil.rmtree(results, ignore_errors=True)


def _compare(ours: dict[str, Any], theirs: dict[str, float | None], where: str) -> None:
    for name in EXACT:
        assert ours[name] == pytest.approx(theirs[name], abs=1e-12), f"{where}: {name}"
    assert ours[DURATION] is not None and theirs[DURATION] is not None, where


@pytest.mark.parametrize(("agent", "evalset"), [("weather_agent", "weather"), ("helpdesk_agent", "helpdesk")])
def test_eval_sets_score_like_adk_eval(
    agent: str, evalset: str, tmp_repo: Path, run_gate: RunGate, tmp_path_factory: pytest.TempPathFactory
) -> None:
    shutil.copytree(REPO / "examples" / agent, tmp_repo / agent)
    evalset_file = tmp_repo / agent / f"{evalset}.evalset.json"
    if agent == "weather_agent":  # `adk eval` of this agent on this file, made once for the session's tests
        theirs = _adk_scores(sorted(shared_adk_history(tmp_path_factory, runs=1).glob("*.evalset_result.json")))
    else:
        theirs = adk_eval(tmp_repo / agent, evalset_file)
    ours = run_gate(f"{agent}/{evalset}.evalset.json")
    assert ours.doc is not None and {case["eval_id"] for case in ours.doc["cases"]} == set(theirs)
    for eval_id, adk_scores in theirs.items():
        _compare(ours.scores(eval_id), adk_scores, f"{agent}/{eval_id}")


@pytest.mark.parametrize("agent", ["weather_agent", "helpdesk_agent"])
def test_legacy_files_score_like_agent_evaluator(agent: str, tmp_repo: Path, run_gate: RunGate) -> None:
    shutil.copytree(REPO / "examples" / agent, tmp_repo / agent)
    (test_file,) = (tmp_repo / agent / "legacy").glob("*.test.json")
    theirs = agent_evaluator(tmp_repo / agent, test_file)
    ours = run_gate(str(test_file.relative_to(tmp_repo)), "--legacy-session-file")  # the file AgentEvaluator is given
    assert ours.doc is not None and len(ours.doc["cases"]) == 1
    _compare(ours.scores(ours.doc["cases"][0]["eval_id"]), theirs, f"{agent} legacy")

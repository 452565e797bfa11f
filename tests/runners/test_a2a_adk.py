"""The a2a runner against ADK's own A2A server (``to_a2a``) over the weather example's scripted agent: the same
scores as in-process, tool trajectories included."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.runners.a2a_servers import adk_app, serving
from tests.runners.conftest import RunGate

pytestmark = pytest.mark.slow  # real A2A servers and the gate's whole run

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def weather_url() -> Iterator[str]:
    from examples.weather_agent.agent import root_agent

    with serving(adk_app(root_agent)) as url:  # its card names localhost:8000: the runner stays on --agent-url
        yield url


def test_the_weather_example_over_a2a_scores_like_in_process(
    weather_url: str, tmp_repo: Path, run_gate: RunGate
) -> None:
    shutil.copytree(REPO / "examples" / "weather_agent", tmp_repo / "weather_agent")
    over_a2a = run_gate("weather_agent", "--runner", "a2a", "--agent-url", weather_url)
    in_process = run_gate("weather_agent")
    assert over_a2a.code == in_process.code == 1
    assert over_a2a.doc is not None and in_process.doc is not None
    assert over_a2a.doc["totals"] == in_process.doc["totals"]
    for case in in_process.doc["cases"]:
        remote = over_a2a.scores(case["eval_id"])
        local = {m["name"]: m["score"] for m in case["metrics"]}
        for name in ("tool_trajectory_avg_score", "response_match_score", "tool_call_count_v1", "token_usage_v1"):
            assert remote[name] == local[name], (case["eval_id"], name)
        assert remote["invocation_duration_v1"] is not None
    assert over_a2a.doc["run"]["runner"] == "a2a"
    assert over_a2a.doc["run"]["served_agent"] == {"name": "weather_agent", "version": "0.0.1"}

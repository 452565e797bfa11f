"""The Gemini example, unchanged, against a local fake of the Gemini API (google-genai over real HTTP)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests import turns
from tests.conftest import run_cli
from tests.runners.conftest import RunGate
from tests.runners.fake_gemini_tools import fake_gemini

pytestmark = pytest.mark.slow  # a real agent against the fake Gemini server

REPO = Path(__file__).resolve().parents[2]


def test_the_gemini_example_runs_against_the_gemini_api(
    tmp_repo: Path, run_gate: RunGate, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(REPO / "examples" / "gemini_agent", tmp_repo / "gemini_agent")
    for name in ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GEMINI_API_KEY", "GEMINI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "fake-key-for-tests")
    with fake_gemini() as server:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
        result = run_gate("gemini_agent")
    assert result.code == 0, result.out
    assert result.doc is not None and result.doc["totals"]["passed"] == 3
    scores = result.scores("follow_up_in_pounds")
    assert scores["tool_trajectory_avg_score"] == 1.0 and scores["final_response_match_v2"] == 1.0
    answer = turns.actual(result.case("unknown_currency")["runs"][0]["invocations"][0])["final_response"]
    assert answer["parts"][0]["text"] == "Sorry, BTC is not a currency I can convert."
    assert server.api_keys == {"fake-key-for-tests"}
    assert server.agent_calls == 8 and server.judge_calls == 4 * 3  # 4 turns, 3 judge samples each
    assert "fake-key-for-tests" not in result.out


def test_without_an_api_key_each_case_is_one_line_and_its_log_is_in_a_group(tmp_repo: Path) -> None:
    shutil.copytree(REPO / "examples" / "gemini_agent", tmp_repo / "gemini_agent")
    env = {name: "" for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI")}
    result = run_cli("run", "gemini_agent", cwd=tmp_repo, env={**env, "GITHUB_ACTIONS": "true"})
    assert result.returncode == 1, result.stdout + result.stderr
    outside: list[str] = []
    inside = False
    for line in result.stdout.splitlines():
        if line.startswith("::group::log of "):
            inside = True
        elif line == "::endgroup::":
            inside = False
        elif not inside:
            outside.append(line)
    cases = 3
    about_cases = [
        line for line in outside if "currency.evalset.json::" in line or line.startswith(("  ", "Traceback"))
    ]
    assert len(about_cases) <= 5 * cases, "\n".join(about_cases)
    assert not any(line.startswith("Traceback") for line in outside)
    doc = json.loads((tmp_repo / "adk-eval-results" / "results.json").read_text())
    log = doc["cases"][0]["runs"][0]["log"]
    assert any("No API key was provided" in line for line in log)
    assert "<system-err>" in (tmp_repo / "adk-eval-results" / "junit.xml").read_text()

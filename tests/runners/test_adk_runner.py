"""The adk runner end to end: real ADK agents with scripted models, through the CLI in this process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import turns
from tests.runners.conftest import RunGate
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # real ADK agents, worker processes

REPO = Path(__file__).resolve().parents[2]


def test_the_weather_example_runs_offline_and_fails_on_purpose(tmp_repo: Path, run_gate: RunGate) -> None:
    shutil.copytree(REPO / "examples" / "weather_agent", tmp_repo / "weather_agent")
    result = run_gate("weather_agent")
    assert result.code == 1
    assert result.doc is not None
    assert result.doc["totals"] == {**result.doc["totals"], "cases": 4, "passed": 3, "failed": 1, "error": 0}
    assert result.case("wrong_city_on_purpose")["status"] == "failed"
    assert result.scores("paris_today")["tool_trajectory_avg_score"] == 1.0
    assert "FAIL weather_agent/weather.evalset.json::wrong_city_on_purpose" in result.out
    assert (tmp_repo / "out" / "junit.xml").is_file() and (tmp_repo / "out" / "summary.md").is_file()
    actual = turns.actual(result.case("paris_today")["runs"][0]["invocations"][0], result.doc)
    assert actual["final_response"]["parts"][0]["text"] == "The weather in Paris is sunny and 22 C."
    events = actual["intermediate_data"]["invocation_events"]
    assert [("function_call" in e.get("content", {}).get("parts", [{}])[0]) for e in events[:1]] == [True]
    assert "content" not in events[-1]  # the final response's event is kept without content (ADK's rule)
    details = actual["app_details"]["agent_details"]["weather_agent"]
    assert "get_weather" in str(details["tool_declarations"]) and "today's weather" in details["instructions"]
    assert actual["duration"] >= actual["model_duration"] >= 0 and actual["tool_duration"] is not None


def test_sessions_are_seeded_from_session_input_and_fresh_per_run(tmp_repo: Path, run_gate: RunGate) -> None:
    write_agent(tmp_repo / "bot")
    write_config(tmp_repo / "bot", {"response_match_score": 0.9})
    write_evalset(
        tmp_repo / "bot" / "state.evalset.json",
        {
            "seeded": [turn("state plan", answer="plan is gold")],
            "pinned": [turn("state plan", answer="plan is None")],
            "defaults": [turn("hi", answer="echo: hi")],
        },
        seeded={"session_input": {"app_name": "shop", "user_id": "u1", "state": {"plan": "gold"}}},
        pinned={"session_input": {"app_name": "shop", "user_id": "u2", "session_id": "fixed-session"}},
    )
    result = run_gate("bot", "--num-runs", "2")
    assert result.code == 0, result.out
    for eval_id in ("seeded", "pinned", "defaults"):
        case = result.case(eval_id)
        assert case["status"] == "passed"
        assert len(case["runs"]) == 2
    seeded = [run["session_id"] for run in result.case("seeded")["runs"]]
    assert seeded[0] != seeded[1] and all(s.startswith("adk-eval-session-") for s in seeded)
    assert [run["session_id"] for run in result.case("pinned")["runs"]] == ["fixed-session", "fixed-session"]


def test_the_agent_option_takes_a_folder_or_a_module(tmp_repo: Path, run_gate: RunGate) -> None:
    write_agent(tmp_repo / "agents" / "echo_bot")
    (tmp_repo / "agents" / "__init__.py").write_text("", encoding="utf-8")
    write_evalset(tmp_repo / "evals" / "echo.evalset.json", {"echo": [turn("ping", answer="echo: ping")]})
    write_config(tmp_repo / "evals", {"response_match_score": 1.0})
    by_folder = run_gate("evals", "--agent", "agents/echo_bot")
    assert by_folder.code == 0, by_folder.out
    by_module = run_gate("evals", "--agent", "agents.echo_bot")
    assert by_module.code == 0, by_module.out
    only = run_gate("evals")  # no folder above it, but the repository has one agent
    assert only.code == 0 and "agent agents/echo_bot (the repository's only agent)" in only.out
    write_agent(tmp_repo / "agents" / "other_bot")
    missing = run_gate("evals")
    assert missing.code == 1
    assert missing.case("echo")["error"].startswith("no agent found for evals/echo.evalset.json")


def test_faults_become_error_cases_and_the_others_finish(tmp_repo: Path, run_gate: RunGate) -> None:
    write_agent(tmp_repo / "bot")
    write_config(tmp_repo / "bot", {"response_match_score": 0.5})
    write_evalset(
        tmp_repo / "bot" / "faults.evalset.json",
        {
            "tool_raises": [turn("explode", answer="never")],
            "model_hangs": [turn("hang", answer="never")],
            "fine": [turn("weather Oslo", answer="It is sunny in Oslo.")],
        },
    )
    write_agent(tmp_repo / "broken", "import not_installed_anywhere\n")
    write_evalset(tmp_repo / "broken" / "b.evalset.json", {"one": [turn("a")], "two": [turn("b")]})
    result = run_gate(".", "--timeout", "2")
    assert result.code == 1
    assert result.doc is not None and result.doc["status"] == "error"
    assert result.case("fine")["status"] == "passed"
    raised = result.case("tool_raises")["error"]
    assert "raised ValueError: weather service down: test" in raised and "bot/agent.py:" in raised
    assert "in explode" in raised
    assert result.case("model_hangs")["error"].startswith("timed out after 2 s")
    for eval_id in ("one", "two"):  # each case says why it did not run; the import error is reported once
        assert (
            result.case(eval_id)["error"]
            == "agent broken could not be imported (ModuleNotFoundError at broken/agent.py:1)"
        )
    [reported] = [line for line in result.out.splitlines() if "not_installed_anywhere" in line]
    assert reported == (
        "error: agent broken could not be imported: ModuleNotFoundError: No module named 'not_installed_anywhere' "
        "(broken/agent.py:1) (pip install the package that provides 'not_installed_anywhere' where the gate runs)"
    )


SCENARIO_AGENT_EXTRA = '''

from google.adk.models.registry import LLMRegistry


class ScriptedUser(BaseLlm):
    """Plays the user: asks for the plan, then ends the conversation."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"scripted-user.*"]

    async def generate_content_async(self, llm_request, stream=False):
        prompt = " ".join(p.text or "" for c in llm_request.contents for p in c.parts or [])
        answer = "</finished>" if "plan is" in prompt else "state plan"
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text=answer)]),
            model_version="gemini-2.5-flash",
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=100, candidates_token_count=10, total_token_count=110
            ),
        )


LLMRegistry.register(ScriptedUser)
'''


def test_conversation_scenarios_run_with_the_user_simulator(tmp_repo: Path, run_gate: RunGate) -> None:
    from tests.runners.scripted import SCRIPT_AGENT

    write_agent(tmp_repo / "bot", SCRIPT_AGENT + SCENARIO_AGENT_EXTRA)
    (tmp_repo / "bot" / "test_config.json").write_text(
        '{"criteria": {"response_match_score": 0.5},'
        ' "user_simulator_config": {"model": "scripted-user", "max_allowed_invocations": 5}}',
        encoding="utf-8",
    )
    (tmp_repo / "bot" / "scenario.evalset.json").write_text(
        """{"eval_set_id": "scenario", "eval_cases": [{
            "eval_id": "ask_plan",
            "conversation_scenario": {"starting_prompt": "weather Rome", "conversation_plan": "Ask for the plan."},
            "session_input": {"app_name": "bot", "user_id": "u", "state": {"plan": "silver"}}}]}""",
        encoding="utf-8",
    )
    result = run_gate("bot", "--allow-not-evaluated")
    case = result.case("ask_plan")
    assert case["status"] == "not_evaluated", case.get("error")  # response_match needs expected invocations
    invocations = case["runs"][0]["invocations"]
    assert [inv["user"] for inv in invocations] == ["weather Rome", "state plan"]
    assert turns.actual(invocations[1])["final_response"]["parts"][0]["text"] == "plan is silver"
    assert "conversation_scenario" in case["metrics"][0]["reason"]
    # the simulator answered twice (the plan, then </finished>); its tokens are its own, not the agent's
    run_usage = case["runs"][0]["usage"]
    assert [(m["model"], m["calls"], m["input_tokens"], m["output_tokens"]) for m in run_usage["simulator"]] == [
        ("gemini-2.5-flash", 2, 200, 20)
    ]
    assert all(m["model"] != "gemini-2.5-flash" for m in run_usage["models"])
    simulator = result.doc["usage"]["simulator"]
    assert (simulator["calls"], simulator["input_tokens"], simulator["output_tokens"]) == (2, 200, 20)
    assert simulator["cost_usd"] == pytest.approx(2 * (100 * 0.30 + 10 * 2.50) / 1e6)


def test_worker_processes_give_the_same_invocations(tmp_repo: Path, run_gate: RunGate) -> None:
    shutil.copytree(REPO / "examples" / "helpdesk_agent", tmp_repo / "helpdesk_agent")
    write_agent(tmp_repo / "bot")
    write_config(tmp_repo / "bot", {"response_match_score": 0.5})
    write_evalset(
        tmp_repo / "bot" / "mixed.evalset.json",
        {"hangs": [turn("hang", answer="x")], "fine": [turn("weather Oslo", answer="It is sunny in Oslo.")]},
    )
    single = run_gate(".", "--workers", "1", "--timeout", "2")
    several = run_gate(".", "--workers", "2", "--parallelism", "4", "--timeout", "2")
    assert single.doc is not None and several.doc is not None
    assert single.doc["totals"] == several.doc["totals"]
    assert several.case("hangs")["error"].startswith("timed out after 2 s")
    for case in single.doc["cases"]:
        other = several.case(case["eval_id"])
        assert [m["score"] for m in case["metrics"][:4]] == [m["score"] for m in other["metrics"][:4]]
        for ours, theirs in zip(case["runs"][0]["invocations"], other["runs"][0]["invocations"], strict=True):
            assert _stable(turns.actual(ours, single.doc)) == _stable(turns.actual(theirs, several.doc))


def _stable(value: object) -> object:
    """Without what differs between two runs of the same agent: ids, timestamps and durations."""
    varying = {"id", "invocation_id", "creation_timestamp", "duration", "model_duration", "tool_duration"}
    if isinstance(value, dict):
        return {key: _stable(item) for key, item in value.items() if key not in varying}
    if isinstance(value, list):
        return [_stable(item) for item in value]
    return value


_MODULES_OF_MAIN = """
import sys
from adk_eval_gate.cli import main
code = main(sys.argv[1:], supervised=False)
print("ADK MODULES", sorted(name for name in sys.modules if name.startswith("google.adk")))
sys.exit(code)
"""


@pytest.mark.parametrize("workers", ["1", "0"])
def test_the_main_process_imports_adk_only_when_it_runs_the_agents_itself(tmp_repo: Path, workers: str) -> None:
    """The workers' starter imports google-adk; the main process loads only what ``.env`` files and the version
    need (the package's lazy root), unless it runs the agents itself (``--workers 0``)."""
    write_agent(tmp_repo / "bot")
    write_config(tmp_repo / "bot", {"response_match_score": 0.5})
    write_evalset(tmp_repo / "bot" / "one.evalset.json", {"hello": [turn("hello", answer="echo: hello")]})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_OF_MAIN, "run", "bot", "--output-dir", "out", "--workers", workers],
        cwd=tmp_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = next(line for line in done.stdout.splitlines() if line.startswith("ADK MODULES"))
    heavy = ("google.adk.runners", "google.adk.agents", "google.adk.models", "google.adk.sessions")
    assert all(f"'{name}'" in loaded for name in heavy) == (workers == "0"), loaded

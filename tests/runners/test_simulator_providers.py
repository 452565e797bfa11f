"""The user simulator on a model that is not Gemini: a conversation scenario whose ``user_simulator_config`` names
``gpt-4o-mini`` (ADK's OpenAI integration) or ``openai/gpt-4o-mini`` (LiteLLM), answered by the fake OpenAI
server; its calls are counted and priced as the simulator's, and the key stays out of the reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import turns
from tests.conftest import write_json
from tests.fakes.gemini_server import FakeGemini, SeenRequest
from tests.judge.providers import OPENAI_KEY, provider_servers
from tests.runners.conftest import RunGate
from tests.runners.scripted import SCRIPT_AGENT, write_agent

pytestmark = pytest.mark.slow  # real ADK agents and ADK's user simulator
__all__ = ["provider_servers"]


def simulated_user(request: SeenRequest) -> str:
    """Asks for the plan, then ends the conversation once the agent has told it."""
    return "</finished>" if "plan is" in request.prompt else "state plan"


@pytest.mark.parametrize("model", ["gpt-4o-mini", "openai/gpt-4o-mini"])
def test_a_scenario_runs_with_a_simulator_on_another_provider(
    tmp_repo: Path, run_gate: RunGate, provider_servers: dict[str, FakeGemini], model: str
) -> None:
    fake = provider_servers["openai"]
    fake.script = simulated_user
    write_agent(tmp_repo / "bot", SCRIPT_AGENT)
    simulator = {"model": model, "max_allowed_invocations": 5}
    write_json(
        tmp_repo / "bot" / "test_config.json",
        {"criteria": {"response_match_score": 0.5}, "user_simulator_config": simulator},
    )
    scenario = {"starting_prompt": "weather Rome", "conversation_plan": "Ask for the plan."}
    session = {"app_name": "bot", "user_id": "u", "state": {"plan": "silver"}}
    ask_plan = {"eval_id": "ask_plan", "conversation_scenario": scenario, "session_input": session}
    write_json(tmp_repo / "bot" / "scenario.evalset.json", {"eval_set_id": "scenario", "eval_cases": [ask_plan]})
    result = run_gate("bot", "--allow-not-evaluated")
    case = result.case("ask_plan")
    invocations = case["runs"][0]["invocations"]
    assert [inv["user"] for inv in invocations] == ["weather Rome", "state plan"], case.get("error")
    assert turns.actual(invocations[1])["final_response"]["parts"][0]["text"] == "plan is silver"
    assert fake.count == 2 and all(request.api_key == OPENAI_KEY for request in fake.requests)
    calls = case["runs"][0]["usage"]["simulator"]
    assert [(m["model"], m["calls"]) for m in calls] == [(model.rsplit("/", 1)[-1] if "/" in model else model, 2)]
    assert result.doc is not None and result.doc["usage"]["simulator"]["cost_usd"] > 0
    assert OPENAI_KEY not in result.out and OPENAI_KEY not in (tmp_repo / "out" / "summary.md").read_text()


def test_a_failing_simulator_is_blamed_on_the_simulator_and_its_model(
    tmp_repo: Path, run_gate: RunGate, provider_servers: dict[str, FakeGemini]
) -> None:
    """The simulator's model rejects the key: the case run is an error of the user simulator, naming its model and
    the turn it was writing, never "the agent bot raised AuthenticationError"."""
    fake = provider_servers["openai"]
    fake.api_key = "a-key-the-gate-does-not-have"
    write_agent(tmp_repo / "bot", SCRIPT_AGENT)
    simulator = {"model": "gpt-4o-mini", "max_allowed_invocations": 5}
    write_json(
        tmp_repo / "bot" / "test_config.json",
        {"criteria": {"response_match_score": 0.5}, "user_simulator_config": simulator},
    )
    scenario = {"starting_prompt": "weather Rome", "conversation_plan": "Ask for the plan."}
    session = {"app_name": "bot", "user_id": "u", "state": {"plan": "silver"}}
    ask_plan = {"eval_id": "ask_plan", "conversation_scenario": scenario, "session_input": session}
    write_json(tmp_repo / "bot" / "scenario.evalset.json", {"eval_set_id": "scenario", "eval_cases": [ask_plan]})
    result = run_gate("bot")
    case = result.case("ask_plan")
    assert case["status"] == "error"
    assert case["error"].startswith("the user simulator on gpt-4o-mini raised AuthenticationError: "), case["error"]
    assert case["error"].endswith("(writing user turn 2)") and "the agent" not in case["error"]
    assert OPENAI_KEY not in result.out and "the user simulator on gpt-4o-mini raised" in result.out

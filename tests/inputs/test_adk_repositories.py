"""Real repositories' tests mapped as pytest runs them: ADK's own ``tests/integration`` (its rootdir is the
repository root, where ``pyproject.toml`` sets ``[tool.pytest.ini_options]``; one call names a sub-agent) and
adk-samples' agents whose sync tests never await ``AgentEvaluator.evaluate``. No agent code is imported here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adk_eval_gate.inputs.agent_locator import AgentLocator
from adk_eval_gate.inputs.agent_sources import AgentChoice
from tests.inputs.layouts import LAYOUTS, copy_layout

FIXTURE = "tests/integration/fixture"
HOME = f"{FIXTURE}/home_automation_agent"
TRIP = f"{FIXTURE}/trip_planner_agent"
HOME_MODULE = "tests.integration.fixture.home_automation_agent"  # as the calls name them
TRIP_MODULE = "tests.integration.fixture.trip_planner_agent"
FOLDER_ABOVE = "the agent folder above the file"
MULTI_TURN = "tests/integration/test_multi_turn.py"

# each eval file: (agent folder or module, agent_name, runs, the rule that found the agent); what pytest runs with
ADK_INTEGRATION = {
    f"{FIXTURE}/ecommerce_customer_service_agent/order_query.test.json": (
        f"{FIXTURE}/ecommerce_customer_service_agent",
        None,
        None,
        FOLDER_ABOVE,
    ),
    f"{FIXTURE}/hello_world_agent/roll_die.test.json": (f"{FIXTURE}/hello_world_agent", None, None, FOLDER_ABOVE),
    f"{HOME}/simple_test.test.json": (HOME_MODULE, None, 4, "tests/integration/test_single_agent.py:21"),
    f"{HOME}/simple_test2.test.json": (HOME, None, None, FOLDER_ABOVE),
    f"{HOME}/test_files/dependent_tool_calls.test.json": (
        HOME_MODULE,
        None,
        4,
        f"{MULTI_TURN}:32",
    ),
    f"{HOME}/test_files/memorizing_past_events/eval_data.test.json": (
        HOME_MODULE,
        None,
        4,
        f"{MULTI_TURN}:42",
    ),
    f"{HOME}/test_files/simple_multi_turn_conversation.test.json": (
        HOME_MODULE,
        None,
        4,
        f"{MULTI_TURN}:22",
    ),
    f"{HOME}/test_files/simple_test.test.json": (HOME_MODULE, None, 4, "tests/integration/test_with_test_file.py:31"),
    f"{HOME}/test_files/simple_test2.test.json": (HOME_MODULE, None, 4, "tests/integration/test_with_test_file.py:31"),
    f"{TRIP}/trip_inquiry.test.json": (TRIP_MODULE, None, 4, "tests/integration/test_multi_agent.py:21"),
    f"{TRIP}/test_files/trip_inquiry_sub_agent.test.json": (
        TRIP_MODULE,
        "identify_agent",
        4,
        "tests/integration/test_sub_agent.py:22",
    ),
}


@pytest.fixture(scope="module")
def adk_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_layout("adk_python", tmp_path_factory.mktemp("layouts") / "adk-python").resolve()


def test_adk_s_integration_tests_are_mapped_as_pytest_runs_them(adk_python: Path) -> None:
    """The calls' paths are relative to the repository root (pytest's rootdir), so 8 of the 11 files get the 4 runs
    their calls give, and the sub-agent call is that sub-agent, not a conflict with the folder above."""
    locator = AgentLocator(root=adk_python, mappings=[])
    found = {}
    for display in ADK_INTEGRATION:
        choice = locator.choose(adk_python / display)
        assert isinstance(choice, AgentChoice), (display, choice)
        source = choice.source.removeprefix("AgentEvaluator.evaluate at ")
        found[display] = (choice.ref.display, choice.ref.sub_agent, choice.num_runs, source)
    assert found == ADK_INTEGRATION
    sub_agent = locator.choose(adk_python / TRIP / "test_files" / "trip_inquiry_sub_agent.test.json")
    assert isinstance(sub_agent, AgentChoice)
    assert sub_agent.describe().startswith(f"identify_agent of {TRIP_MODULE} (AgentEvaluator.evaluate at ")
    assert locator.skipped_by_module() == [
        "tests/integration/test_evalute_agent_in_fixture.py:64: AgentEvaluator.evaluate(...) computes its agent module "
        "instead of naming it with a string"
    ]
    assert locator.unawaited_notes() == []  # every call there is awaited in an async test


def test_the_sub_agent_call_still_conflicts_with_another_agent(adk_python: Path) -> None:
    """Only agent_name differing is no conflict; a call naming another package still is."""
    test = adk_python / "tests" / "integration" / "test_other.py"
    test.write_text(
        "from google.adk.evaluation import AgentEvaluator\n"
        "async def test_other():\n"
        "    await AgentEvaluator.evaluate(\n"
        f"        'tests.integration.fixture.hello_world_agent', '{TRIP}/trip_inquiry.test.json'\n"
        "    )\n",
        encoding="utf-8",
    )
    try:
        choice = AgentLocator(root=adk_python, mappings=[]).choose(adk_python / TRIP / "trip_inquiry.test.json")
    finally:
        test.unlink()
    assert not isinstance(choice, AgentChoice) and "two agents are named for it" in choice.reason


def test_adk_samples_sync_tests_that_never_await_are_one_note_per_module(tmp_path: Path) -> None:
    """customer-service's two calls are one note; travel-concierge awaits; brand-search-optimization's eval.py is
    read too (a test-like module of an eval folder)."""
    repo = copy_layout("adk_samples", tmp_path / "adk-samples").resolve()
    brand = "python/agents/brand-search-optimization"
    shutil.copytree(LAYOUTS / "brand_search" / brand, repo / brand)
    locator = AgentLocator(root=repo, mappings=[])
    locator.choose(repo / brand / "eval" / "data" / "eval_data1.evalset.json")
    notes = locator.unawaited_notes()
    assert [note.split(": ", 1)[0] for note in notes] == [
        f"{brand}/eval/eval.py:29",
        "python/agents/customer-service/eval/test_eval.py:31",
        "python/agents/llm-auditor/eval/test_eval.py:31",
    ]
    assert "makes 2 AgentEvaluator calls without await" in notes[1]
    assert all("passes without evaluating anything" in note for note in notes)
    assert all(note.endswith("@pytest.mark.asyncio and await the call") for note in notes)

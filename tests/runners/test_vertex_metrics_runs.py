"""The Vertex AI metrics and final_session_state_match end to end: a real ADK agent (scripted model) whose tool
writes the session state, run by the adk runner in a worker process and in process, then replayed by the recorded
runner from our results.json and from ``adk eval``'s own result files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.gemini_server import FakeGemini, SeenRequest
from tests.judge.helpers import API_KEY, gemini
from tests.runners.conftest import RunGate
from tests.runners.scripted import turn, write_agent, write_evalset

__all__ = ["gemini"]
pytestmark = pytest.mark.slow  # real ADK agents, worker processes, `adk eval`

CART_AGENT = '''
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.tool_context import ToolContext
from google.genai import types


def add_to_cart(item: str, tool_context: ToolContext) -> dict:
    """Adds an item to the shopping cart kept in the session state."""
    cart = list(tool_context.state.get("cart", []))
    cart.append(item)
    tool_context.state["cart"] = cart
    tool_context.state["last_item"] = item
    return {"cart": cart}


class CartModel(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1]
        response = next((p.function_response for p in last.parts or [] if p.function_response), None)
        text = " ".join(p.text for p in last.parts or [] if p.text)
        if response is not None:
            parts = [types.Part(text="Your cart: " + ", ".join(response.response["cart"]) + ".")]
        elif text.startswith("add "):
            parts = [types.Part(function_call=types.FunctionCall(name="add_to_cart", args={"item": text[4:]}))]
        else:
            parts = [types.Part(text=f"echo: {text}")]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


root_agent = LlmAgent(
    name="cart_agent", model=CartModel(model="cart"), instruction="Keep the cart.", tools=[add_to_cart]
)
'''

# Vertex AI's guide's function, with this agent's tool as the required one
CART_METRICS = """
def essential_tools_present(instance, required_tools = ["add_to_cart"]):
    trajectory = instance["predicted_trajectory"]
    tools_present = [tool_used['tool_name'] for tool_used in trajectory]
    if len(required_tools) == 0:
      return {"essential_tools_present": 1}
    score = 0
    for tool in required_tools:
      if tool in tools_present:
        score += 1
    return {
        "essential_tools_present": score/len(required_tools),
    }
"""

CONFIG = {
    "criteria": {
        "final_session_state_match": {"threshold": 1.0, "match_type": "exact"},
        "exact_match": 1.0,
        "rouge_1": {"threshold": 0.5, "use_stemmer": True},
        "bleu": 0.0,
        "tool_call_valid": 1.0,
        "tool_name_match": 1.0,
        "tool_parameter_kv_match": 1.0,
        "essential_tools_present": 1.0,
    },
    "custom_metrics": {
        "essential_tools_present": {
            "code_config": {"name": "cart_metrics.essential_tools_present"},
            "signature": "vertex",
        }
    },
}
STATE = {"plan": "gold", "cart": ["apple", "pear"], "last_item": "pear"}


def _add(item: str, cart: str) -> dict[str, Any]:
    return turn(f"add {item}", answer=f"Your cart: {cart}.", tools=[{"name": "add_to_cart", "args": {"item": item}}])


@pytest.fixture
def shop(tmp_repo: Path) -> Path:
    agent = write_agent(tmp_repo / "cart_agent", CART_AGENT)
    (agent / "test_config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    (tmp_repo / "cart_metrics.py").write_text(CART_METRICS, encoding="utf-8")
    write_evalset(
        agent / "cart.evalset.json",
        {"two_items": [_add("apple", "apple"), _add("pear", "apple, pear")], "wrong_state": [_add("apple", "apple")]},
        two_items={
            "session_input": {"app_name": "cart_agent", "user_id": "u1", "state": {"plan": "gold"}},
            "final_session_state": STATE,
        },
        wrong_state={"final_session_state": {"cart": ["apple", "pear"], "last_item": "apple", "coupon": "X"}},
    )
    return tmp_repo


def _check(result: Any) -> None:
    assert result.code == 1, result.out
    assert result.case("two_items")["status"] == "passed"
    assert all(score == 1.0 for name, score in result.scores("two_items").items() if name in CONFIG["criteria"])
    assert result.case("two_items")["runs"][0]["final_session_state"] == STATE  # no __llm_request_key__
    wrong = result.case("wrong_state")
    assert wrong["status"] == "failed"
    state_metric = next(m for m in wrong["runs"][0]["metrics"] if m["name"] == "final_session_state_match")
    assert state_metric["score"] == pytest.approx(1 / 3)
    assert state_metric["details"]["differing_keys"] == [
        {"key": "cart", "expected": ["apple", "pear"], "actual": ["apple"]},
        {"key": "coupon", "expected": "X"},
    ]
    others = {n: s for n, s in result.scores("wrong_state").items() if n in CONFIG["criteria"]}
    assert others == {**dict.fromkeys(CONFIG["criteria"], 1.0), "final_session_state_match": pytest.approx(1 / 3)}
    assert 'final_session_state_match: state key "coupon": expected "X", missing' in result.out


def test_in_a_worker_process_and_in_process(shop: Path, run_gate: RunGate) -> None:
    in_worker = run_gate("cart_agent", "--workers", "1")
    _check(in_worker)
    summary = (shop / "out" / "summary.md").read_text(encoding="utf-8")
    assert "  - state key &quot;cart&quot;: expected \\[&quot;apple&quot;, &quot;pear&quot;\\], got" in summary
    _check(run_gate("cart_agent", "--workers", "0"))
    saved = shop / "saved-results.json"
    saved.write_text(json.dumps(in_worker.doc), encoding="utf-8")
    _check(run_gate("cart_agent", "--runner", "recorded", "--recorded", str(saved)))


def test_replayed_from_adk_evals_own_result_files(shop: Path, run_gate: RunGate) -> None:
    adk_config = shop / "adk_config.json"
    adk_config.write_text(json.dumps({"criteria": {"response_match_score": 0.5}}), encoding="utf-8")
    agent = shop / "cart_agent"
    done = subprocess.run(
        [str(Path(sys.executable).with_name("adk")), "eval", str(agent), str(agent / "cart.evalset.json"),
         "--config_file_path", str(adk_config)],
        cwd=shop, env={**os.environ, "PYTHONPATH": str(shop)}, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    history = agent / ".adk" / "eval_history"
    results = list(history.glob("*.evalset_result.json"))
    assert len(results) == 1, done.stdout + done.stderr
    recorded = {
        case["eval_id"]: case for case in json.loads(results[0].read_text(encoding="utf-8"))["eval_case_results"]
    }
    assert "__llm_request_key__" in recorded["two_items"]["session_details"]["state"]  # ADK's bookkeeping
    # ADK 2.13 looks the session up under the agent's app name: a case whose session_input does not name it (or
    # that has none) gets no session_details
    assert recorded["wrong_state"]["session_details"] is None
    replayed = run_gate("cart_agent", "--runner", "recorded", "--recorded", str(history))
    assert replayed.case("two_items")["status"] == "passed"
    assert replayed.case("two_items")["runs"][0]["final_session_state"] == STATE
    unrecorded = next(m for m in replayed.case("wrong_state")["metrics"] if m["name"] == "final_session_state_match")
    assert unrecorded["status"] == "not_evaluated" and "was not recorded" in unrecorded["reason"]


def test_templated_judge_metrics_through_the_cli(
    shop: Path, run_gate: RunGate, gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    options = {"judge_model": "gemini-2.5-flash", "num_samples": 3}
    config = {
        "criteria": {
            "response_follows_trajectory": {"threshold": 1.0, "judge_model_options": options},
            "mentions_the_cart": {
                "threshold": 0.5,
                "criteria": {"Cart": "The response lists what is in the cart."},
                "rating_rubric": {"1": "it does", "0": "it does not"},
                "input_variables": ["prompt", "predicted_trajectory"],
                "judge_model_options": options,
            },
        }
    }
    (shop / "cart_agent" / "test_config.json").write_text(json.dumps(config), encoding="utf-8")

    def verdict(request: SeenRequest) -> str:
        score = 0 if request.prompt.rstrip().endswith("Your cart: apple.") and "Follows" in request.prompt else 1
        return json.dumps({"explanation": f"scripted <{score}>", "score": score})

    gemini.script = verdict
    result = run_gate("cart_agent", "--workers", "0")
    assert result.code == 1, result.out
    assert result.scores("two_items") == {
        **result.scores("two_items"),
        "response_follows_trajectory": 0.5,  # its first turn gives the same answer as wrong_state's
        "mentions_the_cart": 1.0,
    }
    wrong = result.case("wrong_state")
    assert {m["name"]: m["score"] for m in wrong["metrics"]}["response_follows_trajectory"] == 0.0
    judged = next(m for m in wrong["runs"][0]["metrics"] if m["name"] == "response_follows_trajectory")
    assert judged["details"]["explanations"] == ["scripted <0>"]
    assert result.doc is not None and result.doc["judge"]["calls"] == gemini.count == 3 * 2 * 3
    summary = (shop / "out" / "summary.md").read_text(encoding="utf-8")
    assert "  - turn 1 \\(score 0\\): scripted &lt;0&gt;" in summary


def test_a_vertex_metric_module_s_top_level_never_runs_in_the_gate_s_process(shop: Path, run_gate: RunGate) -> None:
    """Loading a config checks that its Vertex-style function imports in a process of its own: code at the top of
    the module (here: it would replace the verdict's exit code) runs there and in the metric's own processes,
    never where the verdict is decided."""
    marker = shop / "imported-in.txt"
    (shop / "cart_metrics.py").write_text(
        "import os\n"
        f"with open({str(marker)!r}, 'a', encoding='utf-8') as seen:\n"
        "    seen.write(f'{os.getpid()}\\n')\n"
        "import adk_eval_gate.verdict.decide as decide\n"
        "decide.exit_code = lambda *args, **kwargs: 0\n" + CART_METRICS,
        encoding="utf-8",
    )
    result = run_gate("cart_agent", "--workers", "1")
    _check(result)  # the case that fails still fails: exit code 1
    importers = {int(line) for line in marker.read_text(encoding="utf-8").split()}
    assert importers and os.getpid() not in importers


def test_a_vertex_function_that_does_not_import_is_its_config_s_error_in_run(shop: Path, run_gate: RunGate) -> None:
    (shop / "cart_metrics.py").write_text("raise ImportError('broken on purpose')\n", encoding="utf-8")
    result = run_gate("cart_agent", "--workers", "1")
    assert result.code == 2, result.out  # a configuration error, as when loading the config found it
    assert "cart_agent/test_config.json: custom_metrics.essential_tools_present.code_config.name:" in result.out
    assert "broken on purpose" in result.out and "Traceback" not in result.out
    assert result.doc is not None and result.doc["files"][0]["error"]

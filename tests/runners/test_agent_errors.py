"""A case run whose agent raised fails, as ADK's eval fails it; only failures around the agent are run again (the
model provider's 429 and 503, a worker process lost), and each retry is kept in results.json and shown."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from adk_eval_gate.runners import execute
from adk_eval_gate.support.retry import Backoff
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import API_KEY, gemini
from tests.runners.conftest import RunGate
from tests.runners.scripted import AgentSignals, turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # real ADK agents in worker processes
__all__ = ["gemini"]

FLAKY_TOOL_AGENT = '''
from __future__ import annotations

import os
import time

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

KINDS = {"ConnectionError": ConnectionError, "TimeoutError": TimeoutError, "OSError": OSError}


def first_time(name: str) -> bool:
    """True once per name for the whole test, whichever process asks (a file created exclusively)."""
    try:
        os.close(os.open(os.path.join(os.environ["FLAKY_DIR"], name), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def fetch_rate(kind: str) -> dict:
    """Fetches the exchange rate; fails the first time it is called for a kind of failure."""
    if kind == "lost" and first_time(kind):
        with open(os.path.join(os.environ["FLAKY_DIR"], "pid"), "w", encoding="utf-8") as pid:
            pid.write(str(os.getpid()))
        os.write(int(os.environ["TEST_AGENT_SIGNAL_FD"]), b".")
        time.sleep(3600)  # the test kills this worker process now
    if kind in KINDS and first_time(kind):
        raise KINDS[kind](f"rate service unreachable ({kind})")
    return {"rate": 1.5}


class RateModel(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1]
        answered = any(part.function_response for part in last.parts or [])
        text = " ".join(part.text for part in last.parts or [] if part.text)
        if answered:
            part = types.Part(text="The rate is 1.5.")
        else:
            part = types.Part(function_call=types.FunctionCall(name="fetch_rate", args={"kind": text}))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(name="rates", model=RateModel(model="rates"), instruction="Give the rate.", tools=[fetch_rate])
'''

GEMINI_AGENT = """
from google.adk.agents import LlmAgent
from google.genai import types

# google-genai tries once: what reaches the gate is the provider's error itself
once = types.HttpOptions(retry_options=types.HttpRetryOptions(attempts=1))
root_agent = LlmAgent(
    name="stock",
    model="gemini-2.5-flash",
    instruction="Answer.",
    generate_content_config=types.GenerateContentConfig(http_options=once),
)
"""

KINDS = ("ConnectionError", "TimeoutError", "OSError")


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries without waiting: a failure that is run again would pass at once."""
    monkeypatch.setattr(execute, "CASE_RUN_RETRY", Backoff(attempts=3, initial=0.0, maximum=0.0))


@pytest.mark.usefixtures("fast_retries")
def test_a_tool_that_raises_once_fails_its_run_and_is_not_run_again(
    tmp_repo: Path, run_gate: RunGate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADK's eval records the run FAILED (its inference raised): a second attempt would pass, and there is none."""
    monkeypatch.setenv("FLAKY_DIR", str(tmp_repo))
    write_agent(tmp_repo / "rates", FLAKY_TOOL_AGENT)
    write_config(tmp_repo / "rates", {"response_match_score": 1.0})
    write_evalset(tmp_repo / "rates" / "rates.evalset.json", {k: [turn(k, answer="The rate is 1.5.")] for k in KINDS})
    result = run_gate("rates", "--num-runs", "2")
    assert result.code == 1, result.out
    for kind in KINDS:
        case = result.case(kind)
        assert case["status"] == "error"
        failed = [run for run in case["runs"] if run.get("error")]
        assert len(failed) == 1 and len(case["runs"]) == 2  # the other run passed: the tool fails only once
        assert f"raised {kind}: rate service unreachable ({kind})" in failed[0]["error"]
        assert "in fetch_rate" in failed[0]["error"] and failed[0]["error_kind"] == "agent"
        assert all(not run.get("retries") for run in case["runs"])
    assert "retried" not in result.out


@pytest.mark.usefixtures("fast_retries")
def test_the_models_429_and_503_are_run_again_and_each_retry_is_recorded_and_shown(
    tmp_repo: Path, run_gate: RunGate, gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    write_agent(tmp_repo / "stock", GEMINI_AGENT)
    write_config(tmp_repo / "stock", {"response_match_score": 1.0})
    write_evalset(tmp_repo / "stock" / "stock.evalset.json", {"busy": [turn("hello", answer="recovered")]})
    gemini.enqueue(Reply.error(429, retry_after="0"), Reply.error(503), "recovered")
    result = run_gate("stock")
    assert result.code == 0, result.out
    (run,) = result.case("busy")["runs"]
    assert run["status"] == "passed" and "error" not in run
    first, second = run["retries"]
    assert "429" in first and "RESOURCE_EXHAUSTED" in first
    assert "503" in second and "UNAVAILABLE" in second
    assert gemini.count == 3
    assert "stock/stock.evalset.json::busy: retried 2 times" in result.out
    assert API_KEY not in json.dumps(result.doc)


@pytest.mark.usefixtures("fast_retries")
def test_a_model_error_the_provider_does_not_retry_is_not_run_again(
    tmp_repo: Path, run_gate: RunGate, gemini: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    write_agent(tmp_repo / "stock", GEMINI_AGENT)
    write_config(tmp_repo / "stock", {"response_match_score": 1.0})
    write_evalset(tmp_repo / "stock" / "stock.evalset.json", {"refused": [turn("hello", answer="recovered")]})
    gemini.enqueue(Reply.error(400), "recovered")
    result = run_gate("stock")
    (run,) = result.case("refused")["runs"]
    assert result.code == 1 and "400" in run["error"] and not run.get("retries")
    assert gemini.count == 1


@pytest.mark.timeout(180)  # a guard: the tool would hold its worker for an hour
def test_a_worker_process_killed_from_outside_is_lost_and_its_run_is_run_again(tmp_repo: Path) -> None:
    write_agent(tmp_repo / "rates", FLAKY_TOOL_AGENT)
    write_config(tmp_repo / "rates", {"response_match_score": 1.0})
    write_evalset(tmp_repo / "rates" / "rates.evalset.json", {"lost": [turn("lost", answer="The rate is 1.5.")]})
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "GITHUB_"))}
    with AgentSignals() as signals:
        process = subprocess.Popen(
            [sys.executable, "-m", "adk_eval_gate", "run", "rates", "--output-dir", "out"],
            cwd=tmp_repo,
            env={**env, **signals.env, "FLAKY_DIR": str(tmp_repo)},
            pass_fds=signals.pass_fds,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        signals.handed_over()
        try:
            signals.wait(1)  # the tool holds its worker now
            os.kill(int((tmp_repo / "pid").read_text(encoding="utf-8")), signal.SIGKILL)
            output, _ = process.communicate(timeout=120)
        finally:
            process.kill()
    assert process.returncode == 0, output
    (case,) = json.loads((tmp_repo / "out" / "results.json").read_text(encoding="utf-8"))["cases"]
    (run,) = case["runs"]
    assert case["status"] == "passed"
    (lost,) = run["retries"]
    assert "was killed by SIGKILL (not by the gate" in lost
    assert "rates/rates.evalset.json::lost: retried 1 time" in output

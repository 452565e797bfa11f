"""Flaky agents end to end: a real ADK agent whose answer is right with a set,
seeded probability; stability and pass^k / pass@k over --num-runs; --confirm-failures re-running only what failed.

The gate runs in this process with the agent (``--workers 0``, ``_gate``): a process per run would import the gate
and ADK again, and what is checked is the counting over runs, not the processes they ran in."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from tests.conftest import gate_in_process
from tests.runners.scripted import turn, write_agent, write_config, write_evalset

pytestmark = pytest.mark.slow  # real agents through the CLI

AGENT = '''
from __future__ import annotations

import fcntl
import os
import random

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

LOG = os.path.join(os.path.dirname(__file__), "calls.log")


def call_number(prompt: str) -> int:
    """This prompt's calls so far, this one included, counted in the log: case runs go to several processes."""
    with open(LOG, "a+", encoding="utf-8") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.seek(0)
        number = log.read().splitlines().count(prompt) + 1
        log.write(prompt + "\\n")
        return number


def right(prompt: str, call: int) -> bool:
    """'p60 NAME' is right with probability 0.6 (seeded by the prompt and the call's number); 'flip' is wrong the
    first time only; 'never' is always wrong; anything else always right."""
    kind = prompt.split()[0]
    if kind.startswith("p"):
        return random.Random(f"{prompt}:{call}").random() < int(kind[1:]) / 100
    return {"flip": call > 1, "never": False}.get(kind, True)


class Coin(BaseLlm):
    async def generate_content_async(self, llm_request, stream=False):
        prompt = " ".join(p.text for p in llm_request.contents[-1].parts or [] if p.text)
        text = "It is sunny in Paris." if right(prompt, call_number(prompt)) else "I do not know."
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


root_agent = LlmAgent(name="coin", model=Coin(model="coin"), instruction="Answer.")
'''


def _seeded_passes(prompt: str, probability: int, runs: int) -> int:
    return sum(random.Random(f"{prompt}:{call}").random() < probability / 100 for call in range(1, runs + 1))


def _project(repo: Path, cases: dict[str, str], *, threshold: float) -> Path:
    agent = write_agent(repo / "coin", AGENT)
    write_evalset(
        agent / "coin.evalset.json",
        {eval_id: [turn(prompt, answer="It is sunny in Paris.")] for eval_id, prompt in cases.items()},
    )
    write_config(agent, {"response_match_score": threshold})
    return agent


def _gate(monkeypatch: pytest.MonkeyPatch, repo: Path, agent: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return gate_in_process(monkeypatch, "run", str(agent), "--workers", "0", *args, cwd=repo, fresh=(agent.name,))


def _calls(agent: Path) -> dict[str, int]:
    lines = (agent / "calls.log").read_text(encoding="utf-8").splitlines()
    return {prompt: lines.count(prompt) for prompt in set(lines)}


def test_stability_and_pass_k_over_five_runs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prompts = {"always": "p100 always", "never": "p0 never", "coin": "p60 coin"}
    expected_coin = _seeded_passes("p60 coin", 60, 5)
    assert 0 < expected_coin < 5  # the seed makes the 60% case flaky
    agent = _project(repo, prompts, threshold=0.9)
    result = _gate(monkeypatch, repo, agent, "--num-runs", "5", "--pass-rule", "all")
    assert result.returncode == 1, result.stdout + result.stderr
    data = json.loads((repo / "adk-eval-results" / "results.json").read_text())
    cases = {c["eval_id"]: c for c in data["cases"]}
    found = {k: (c["stability"], c["runs_passed"], c["pass_hat_k"], c["pass_at_k"]) for k, c in cases.items()}
    assert found == {
        "always": ("stable-pass", 5, True, True),
        "never": ("stable-fail", 0, False, False),
        "coin": ("flaky", expected_coin, False, True),
    }
    assert data["stability"] == {
        "cases": 3,
        "stable_pass": 1,
        "stable_fail": 1,
        "flaky": 1,
        "pass_hat_k": pytest.approx(1 / 3),
        "pass_at_k": pytest.approx(2 / 3),
    }
    assert (
        "1 stable pass, 1 flaky, 1 stable fail; 33% passed all 5 runs (pass^5), 67% passed at least once (pass@5)"
        in result.stdout
    )
    assert f"\nFlaky: coin/coin.evalset.json::coin ({expected_coin} of 5 runs passed)\n" in result.stdout
    assert f"FAIL (flaky: {expected_coin} of 5 runs passed) coin/coin.evalset.json::coin: " in result.stdout
    junit = (repo / "adk-eval-results" / "junit.xml").read_text()
    assert '<property name="coin.pass_hat_k" value="false" />' in junit
    assert f'<property name="coin.runs" value="{expected_coin} of 5 passed" />' in junit


def test_confirm_failures_re_runs_only_what_failed_and_decides_on_every_run(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = _project(repo, {"steady": "right steady", "flip": "flip once", "never": "never right"}, threshold=0.7)
    result = _gate(monkeypatch, repo, agent, "--confirm-failures", "3")
    assert result.returncode == 1, result.stdout + result.stderr  # "never" fails on every run
    assert "Confirming 2 cases that failed: 3 more runs each" in result.stdout
    assert _calls(agent) == {"right steady": 1, "flip once": 4, "never right": 4}  # only the failures ran again
    data = json.loads((repo / "adk-eval-results" / "results.json").read_text())
    cases = {c["eval_id"]: c for c in data["cases"]}
    flip, never = cases["flip"], cases["never"]
    assert (flip["status"], flip["stability"], flip["runs_passed"]) == ("passed", "flaky", 3)  # mean 0.75 >= 0.7
    assert {"confirmed": False, **flip["confirmation"]} == {
        "reason": "failed",
        "first_status": "failed",
        "extra_runs": 3,
        "confirmed": False,
    }
    assert never["confirmation"]["confirmed"]  # it failed every one of its re-runs
    assert [run.get("confirmation", False) for run in flip["runs"]] == [False, True, True, True]
    assert (never["status"], never["stability"], len(never["runs"])) == ("failed", "stable-fail", 4)
    assert cases["steady"].get("confirmation") is None and len(cases["steady"]["runs"]) == 1
    assert data["totals"]["confirmed_failures"] == 1 and data["run"]["confirm_failures"] == 3
    assert "1 failed (1 confirmed by re-runs)" in result.stdout and "1 flaky" in result.stdout

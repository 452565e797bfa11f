"""Cost and latency end to end: a real ADK agent whose scripted model reports Gemini token counts; the figures
against the events' own timestamps, a head with one more model call per turn against its base, per-case budgets,
and a model without a price.

The gate runs in this process with the agents (``--workers 0``, ``_gate``): what is measured is the gate's figures
against the agent's own log, not a process boundary, and a process per run would import the gate and ADK again."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import turns
from tests.conftest import gate_in_process, write_json
from tests.runners.scripted import turn, write_agent, write_evalset

pytestmark = pytest.mark.slow  # real agents through the CLI

AGENT = '''
from __future__ import annotations

import asyncio
import json
import os
import time

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.google_llm import Gemini
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

MODEL = "{model}"
EXTRA_CALL = {extra}  # one more model call per turn: a lookup before the weather
TOKENS = {tokens}  # a multiple of the tokens every call reports
LOG = os.path.join(os.path.dirname(__file__), "events.jsonl")


def get_weather(city: str) -> dict:
    """Returns the weather of a city."""
    return {{"city": city, "condition": "sunny"}}


def lookup(city: str) -> dict:
    """Looks a city up."""
    return {{"city": city}}


def _log(**entry):
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\\n")


class Priced({base}):  # BaseLlm: a model class of the user's own (local); Gemini: derived from a provider's
    async def generate_content_async(self, llm_request, stream=False):
        started = time.monotonic()
        await asyncio.sleep(0.02)
        done = {{p.function_response.name for c in llm_request.contents for p in c.parts or [] if p.function_response}}
        prompt = sum(len(p.text or "") for c in llm_request.contents for p in c.parts or [])
        said = [p.text for c in llm_request.contents if c.role == "user" for p in c.parts or [] if p.text]
        asked = said[0]
        city = asked.split()[0]
        if EXTRA_CALL and "lookup" not in done:
            part = types.Part(function_call=types.FunctionCall(name="lookup", args={{"city": city}}))
        elif "get_weather" not in done:
            part = types.Part(function_call=types.FunctionCall(name="get_weather", args={{"city": city}}))
        else:
            part = types.Part(text=f"It is sunny in {{city}}.")
        _log(kind="model", asked=asked, turn=len(said), started=started, ended=time.monotonic())
        yield LlmResponse(
            content=types.Content(role="model", parts=[part]),
            model_version=MODEL,
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=(1000 + 10 * prompt) * TOKENS,
                candidates_token_count=50 * TOKENS,
                cached_content_token_count=200 * TOKENS,
            ),
        )


class Stamps(BasePlugin):
    """Writes each event's timestamp as ADK set it, and when ADK starts and ends each run (a turn)."""

    async def before_run_callback(self, *, invocation_context):
        _log(kind="run_start", invocation=invocation_context.invocation_id, at=time.monotonic())
        return None

    async def on_event_callback(self, *, invocation_context, event):
        _log(kind="event", invocation=event.invocation_id, timestamp=event.timestamp)
        return None

    async def after_run_callback(self, *, invocation_context):
        _log(kind="run_end", invocation=invocation_context.invocation_id, at=time.monotonic())


root_agent = LlmAgent(name="priced", model=Priced(model=MODEL), instruction="Answer.", tools=[lookup, get_weather])
app = App(name="priced", root_agent=root_agent, plugins=[Stamps(name="stamps")])
'''

CITIES = {"paris": "Paris", "tokyo": "Tokyo", "lima": "Lima"}


def _project(  # type: ignore[no-untyped-def]
    repo: Path,
    *,
    model: str = "gemini-2.5-flash",
    extra: bool = False,
    tokens: int = 1,
    config: dict[str, Any] | None = None,
    tour: bool = False,
    base: str = "BaseLlm",
):
    agent = write_agent(repo / "priced", AGENT.format(model=model, extra=extra, tokens=tokens, base=base))
    (agent / "events.jsonl").unlink(missing_ok=True)
    shutil.rmtree(agent / "__pycache__", ignore_errors=True)  # a rewrite within the second of the last keeps its size
    cases = {eval_id: [turn(city, answer=f"It is sunny in {city}.")] for eval_id, city in CITIES.items()}
    cases["long"] = [turn("Lima " + "please " * 40, answer="It is sunny in Lima.")]
    if tour:  # three turns: the weather once, then answers from it
        cases["tour"] = [turn(text, answer="It is sunny in Quito.") for text in ("Quito", "tomorrow?", "and then?")]
    write_evalset(agent / "priced.evalset.json", cases)
    write_json(agent / "test_config.json", config or {"criteria": {"response_match_score": 0.5}})
    return agent


def _gate(monkeypatch: pytest.MonkeyPatch, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``adk-eval-gate run priced ARGS`` in this process, the agent too (``--workers 0``), as _project last wrote it."""
    return gate_in_process(monkeypatch, "run", "priced", "--workers", "0", *args, cwd=repo, fresh=("priced",))


def _results(repo: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((repo / "adk-eval-results" / "results.json").read_text())
    return loaded


ROUNDED = 0.0005  # results.json keeps seconds to 3 decimals


def _stamps(agent: Path) -> tuple[dict[str, list[float]], dict[tuple[str, str], float], dict[tuple[str, int], float]]:
    """What the agent logged: each invocation's event timestamps, when ADK started and ended it, and the time the
    model calls of each turn (by the case's first message and the turn's number) took inside the model."""
    events: dict[str, list[float]] = {}
    runs: dict[tuple[str, str], float] = {}
    in_model: dict[tuple[str, int], float] = {}
    for line in (agent / "events.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry["kind"] == "event":
            events.setdefault(entry["invocation"], []).append(entry["timestamp"])
        elif entry["kind"] == "model":
            key = (entry["asked"], entry["turn"])
            in_model[key] = in_model.get(key, 0.0) + entry["ended"] - entry["started"]
        else:
            runs[(entry["invocation"], entry["kind"])] = entry["at"]
    return events, runs, in_model


def test_turn_times_agree_with_the_events_timestamps_and_counts_with_the_events(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each turn's time covers ADK's run of it and no more: it is at least the time from ADK's start of the turn
    to its end (and the spread of its events), and the middle turn of three at most the time from the end of the
    turn before to the start of the turn after; the model's time covers every model call of the turn. Relations
    between times taken in one run, never a limit in seconds (bench/timeouts.py prints the figures)."""
    agent = _project(repo, tour=True)
    result = _gate(monkeypatch, repo)
    assert result.returncode == 0, result.stdout + result.stderr
    events, runs, in_model = _stamps(agent)
    data = _results(repo)
    for case in data["cases"]:
        record = case["runs"][0]
        asked = record["invocations"][0]["user"]
        ids = [turns.actual(invocation)["invocation_id"] for invocation in record["invocations"]]
        for number, (invocation, usage) in enumerate(zip(ids, record["usage"]["turns"], strict=True), start=1):
            spread = max(events[invocation]) - min(events[invocation])
            adk_run = runs[(invocation, "run_end")] - runs[(invocation, "run_start")]
            assert usage["seconds"] >= max(spread, adk_run - ROUNDED), (case["eval_id"], number, usage, adk_run)
            assert usage["model_seconds"] >= in_model[(asked, number)] - ROUNDED, (case["eval_id"], number, usage)
            calls = (2, 1) if number == 1 else (1, 0)  # the tool call and the answer; later turns answer at once
            assert (usage.get("model_calls", 0), usage.get("tool_calls", 0)) == calls, (case["eval_id"], number)
    tour = next(c for c in data["cases"] if c["eval_id"] == "tour")["runs"][0]
    first, _, last = (turns.actual(invocation)["invocation_id"] for invocation in tour["invocations"])
    between = runs[(last, "run_start")] - runs[(first, "run_end")]
    assert tour["usage"]["turns"][1]["seconds"] <= between + ROUNDED, (tour["usage"]["turns"], between)
    paris = next(c for c in data["cases"] if c["eval_id"] == "paris")["usage"]
    prompt_tokens = paris["run_tokens"][0] - 2 * 50
    flash = data["usage"]["agent"]["models"][0]
    assert flash["model"] == "gemini-2.5-flash" and flash["cached_tokens"] == (4 * 2 + 2 + 1 + 1) * 200
    fresh = prompt_tokens - 2 * 200
    assert paris["cost_usd"] == pytest.approx((fresh * 0.30 + 400 * 0.03 + 100 * 2.50) / 1e6)


def test_one_more_model_call_per_turn_fails_max_cost_increase_and_the_same_agent_flags_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(repo)
    base = _gate(monkeypatch, repo, "--num-runs", "5")
    assert base.returncode == 0, base.stdout + base.stderr
    (repo / "base.json").write_text((repo / "adk-eval-results" / "results.json").read_text())
    budget = ["--baseline", "base.json", "--num-runs", "5", "--max-cost-increase", "20", "--max-latency-increase", "50"]

    same = _gate(monkeypatch, repo, *budget)
    compared = _results(repo)["comparison"]["usage"]
    # Turn times depend on the machine's load between the two commands (the twenty runs below hold it steady): the
    # latency budget must agree with the comparison, whatever the load made of it: it fails on a flagged rise (20% at
    # least) of more than its 50%.
    timed = {c["quantity"]: c for c in compared["suite"] if c["quantity"].endswith("_seconds")}
    p95 = timed["p95_turn_seconds"]
    assert [c["quantity"] for c in compared["suite"] if c["flagged"] and c["quantity"] not in timed] == []
    checks = {b["name"]: b["status"] for b in _results(repo)["budgets"]}
    assert checks["max-cost-increase"] == "passed"
    latency_failed = p95["flagged"] and p95["change_pct"] > 50
    assert (checks["max-latency-increase"] == "failed") == latency_failed, p95
    assert same.returncode == (1 if latency_failed else 0), same.stdout + same.stderr

    _project(repo, extra=True)
    more = _gate(monkeypatch, repo, *budget)
    assert more.returncode == 1, more.stdout + more.stderr
    data = _results(repo)
    cost = next(c for c in data["comparison"]["usage"]["suite"] if c["quantity"] == "cost_usd")
    assert cost["significance"] == "significant" and cost["flagged"] and cost["change_pct"] > 40
    failed = next(b for b in data["budgets"] if b["name"] == "max-cost-increase")
    assert failed["status"] == "failed" and data["status"] == "failed"
    assert (
        failed["reason"].startswith("the cost per pass of the cases both sides ran rose ")
        and "more than --max-cost-increase 20%" in (failed["reason"])
    )
    assert f"Budget failed: {failed['reason']}" in more.stdout
    summary = (repo / "adk-eval-results" / "summary.md").read_text()
    assert "💲 Cost per pass $" in summary and "(base $" in summary and "▲" in summary
    assert "<strong>Cost and latency rose</strong>: 4 cases" in summary and "Cost of one pass per eval file" in summary
    assert data["comparison"]["usage"]["rising_cases"] == 4


def test_case_budgets_fail_exactly_the_cases_over_them(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = {
        "criteria": {"response_match_score": 0.5},
        "budgets": {"max_tokens_per_turn": 5000, "max_model_calls_per_turn": 2},
    }
    _project(repo, config=config)
    result = _gate(monkeypatch, repo)
    assert result.returncode == 1, result.stdout + result.stderr
    statuses = {c["eval_id"]: c["status"] for c in _results(repo)["cases"]}
    assert statuses == {"paris": "passed", "tokyo": "passed", "lima": "passed", "long": "failed"}
    long = next(c for c in _results(repo)["cases"] if c["eval_id"] == "long")
    [tokens, calls] = long["budgets"]
    assert tokens["status"] == "failed" and tokens["reason"].startswith(
        "max_tokens_per_turn 5,000 tokens: turn 1 of run 1 used"
    )
    assert calls["status"] == "passed"
    assert "max_tokens_per_turn 5,000 tokens" in result.stdout


def test_a_bad_budget_is_one_line_naming_the_file_and_field(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(repo, config={"criteria": {"response_match_score": 0.5}, "budgets": {"max_token_per_turn": 10}})
    result = _gate(monkeypatch, repo)
    assert result.returncode == 2, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if "budgets" in line and "test_config.json" in line]
    assert "priced/test_config.json" in line and "budgets.max_token_per_turn" in line
    assert "Traceback" not in result.stdout + result.stderr


def test_a_model_without_a_price_is_said_once_and_fails_only_a_cost_budget(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fine-tune called through ADK's Gemini class (here a class derived from it): not local, so its missing
    price is said, once."""
    _project(repo, model="our-finetune-1", base="Gemini")
    result = _gate(monkeypatch, repo)
    assert result.returncode == 0, result.stdout + result.stderr
    said = [line for line in result.stdout.splitlines() if line.startswith("Cost unknown for model our-finetune-1")]
    assert said == [
        "Cost unknown for model our-finetune-1 (the agent): no price for model our-finetune-1; "
        "add its price with --prices FILE"
    ]
    budget = _gate(monkeypatch, repo, "--max-cost", "1")
    assert budget.returncode == 1
    data = _results(repo)
    assert data["status"] == "error" and data["budgets"][0]["status"] == "unchecked"
    assert "--max-cost $1.00 cannot be checked: cost unknown for model our-finetune-1" in budget.stdout
    prices = write_json(
        repo / "prices.json",
        {
            "source": "ours",
            "date": "2026-11-25",
            "models": [{"pattern": "our-finetune-*", "input": 0.5, "output": 1.0, "cached_input": 0.05}],
        },
    )
    priced = _gate(monkeypatch, repo, "--max-cost", "1", "--prices", str(prices))
    assert priced.returncode == 0, priced.stdout
    assert _results(repo)["usage"]["prices"]["file"] == str(prices)


def test_a_local_model_without_a_price_is_not_asked_for_yet_still_has_no_cost(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trial's noise: "Cost unknown for model scripted-..." on every run of a scripted model. A model class of
    the user's own (a BaseLlm subclass, not derived from one of ADK's) is local (docs/cost.md): no line asks for
    its price, in worker processes or in this one; its cost stays unknown in the reports and for --max-cost."""
    _project(repo, model="scripted-local-1")
    for workers in ("0", "1"):
        result = gate_in_process(monkeypatch, "run", "priced", "--workers", workers, cwd=repo, fresh=("priced",))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Cost unknown for model" not in result.stdout, result.stdout
        assert "Cost per pass: cost unknown for scripted-local-1" in result.stdout
    data = _results(repo)
    assert data["usage"]["agent"]["unpriced_models"] == ["scripted-local-1"]
    budget = _gate(monkeypatch, repo, "--max-cost", "1")
    assert budget.returncode == 1 and _results(repo)["budgets"][0]["status"] == "unchecked"


def test_the_same_agent_never_fails_the_increase_budgets_and_twice_the_tokens_always_does(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trial's false failures: the same agent, run again, failed --max-latency-increase on turn-time jitter.
    Twenty runs of the same agent against one baseline never fail; twenty with twice the tokens always do, on
    cost, and never on a latency rise the comparison does not flag."""
    _project(repo)
    assert _gate(monkeypatch, repo).returncode == 0
    base = _results(repo)
    (repo / "base.json").write_text(json.dumps(base))
    budget = ["--baseline", "base.json", "--max-latency-increase", "20", "--max-cost-increase", "10"]
    same = [(_gate(monkeypatch, repo, *budget).returncode, _results(repo)) for _ in range(20)]
    failures = [
        (
            data["budgets"],
            data["comparison"]["usage"]["suite"],
            [c["usage"]["turn_seconds"] for c in data["cases"]],
            [c["usage"]["turn_seconds"] for c in base["cases"]],
        )
        for code, data in same
        if code != 0
    ]
    assert failures == []
    _project(repo, tokens=2)
    doubled = [(_gate(monkeypatch, repo, *budget).returncode, _results(repo)) for _ in range(20)]
    assert [code for code, _ in doubled] == [1] * 20
    for _, data in doubled:
        checks = {check["name"]: check for check in data["budgets"]}
        assert checks["max-cost-increase"]["status"] == "failed", checks
        tokens = next(c for c in data["comparison"]["usage"]["suite"] if c["quantity"] == "tokens")
        assert tokens["change_pct"] == pytest.approx(100.0) and tokens["flagged"]
        latency = next(c for c in data["comparison"]["usage"]["suite"] if c["quantity"] == "p95_turn_seconds")
        assert (checks["max-latency-increase"]["status"] == "failed") == latency["flagged"]

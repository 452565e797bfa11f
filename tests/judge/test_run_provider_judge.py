"""End to end: ``adk-eval-gate run --runner recorded`` with judges that are not Gemini (ADK's OpenAI integration and
LiteLLM against the fake OpenAI and Anthropic servers): scores, token counts and dollars, the cache, a 429 with a
retry hint, the like-for-like note when the judge's provider changes, and the keys kept out of every output.

The gate runs in this process (``cli_in_process``: LiteLLM and the providers' SDKs are imported once, not by a
process per run), except where a key the provider echoes must stay out of a real process's whole output."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, run_cli, write_json
from tests.fakes.gemini_server import FakeGemini, Reply, SeenRequest
from tests.judge.helpers import rubric_answer, v2_answer
from tests.judge.providers import ANTHROPIC_KEY, OPENAI_KEY, provider_env, provider_servers
from tests.judge.test_run_judge import EVALSET, RUBRIC, history, history_dir, metric

__all__ = ["history", "provider_servers"]
pytestmark = pytest.mark.slow


def config(model: str) -> dict[str, Any]:
    options = {"judge_model": model, "num_samples": 3}
    return {
        "criteria": {
            "final_response_match_v2": {"threshold": 0.5, "judge_model_options": options},
            "rubric_based_final_response_quality_v1": {
                "threshold": 0.5,
                "judge_model_options": options,
                "rubrics": [{"rubric_id": "concise", "rubric_content": {"text_property": RUBRIC["concise"]}}],
            },
        }
    }


def judge_script(request: SeenRequest) -> str | Reply:
    if "is_the_agent_response_valid" in request.prompt:
        return v2_answer("invalid" if "Melbourne" in request.prompt else "valid")
    return rubric_answer({"concise": "no" if "Sydney" in request.prompt else "yes"}, RUBRIC)


@pytest.fixture
def workspace(repo: Path, history: Path) -> Path:
    shutil.copytree(
        EXAMPLES / "weather_agent", repo / "weather_agent", ignore=shutil.ignore_patterns("__pycache__", ".adk")
    )
    shutil.copytree(history, history_dir(repo))
    return repo


Cli = Callable[..., Any]  # run_cli, or the cli_in_process fixture


def run(
    cli: Cli, workspace: Path, servers: dict[str, FakeGemini], model: str, *args: str
) -> tuple[Any, dict[str, Any]]:
    """``cli`` runs the gate on the recorded history with ``model`` judging."""
    write_json(workspace / "weather_agent" / "test_config.json", config(model))
    recorded = ["--runner", "recorded", "--recorded", str(history_dir(workspace))]
    result = cli("run", EVALSET, *recorded, *args, cwd=workspace, env=provider_env(servers))
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    path = workspace / "adk-eval-results" / "results.json"
    return result, json.loads(path.read_text()) if path.exists() else {}


def every_output(workspace: Path, result: Any) -> str:
    files = (workspace / "adk-eval-results").rglob("*")
    return result.stdout + result.stderr + "".join(f.read_text(errors="replace") for f in files if f.is_file())


PRICES = {"openai": (0.15, 0.60), "anthropic": (1.00, 5.00)}  # dollars per million input and output tokens


@pytest.mark.parametrize(("model", "api"), [("gpt-4o-mini", "openai"), ("anthropic/claude-haiku-4-5", "anthropic")])
def test_a_judge_on_another_provider_scores_counts_and_prices_every_call(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Cli, model: str, api: str
) -> None:
    fake, price = provider_servers[api], PRICES[api]
    fake.script = judge_script
    result, data = run(cli_in_process, workspace, provider_servers, model)
    assert result.returncode == 1, result.stdout + result.stderr  # the wrong city fails on purpose
    for case, expected in (("paris_today", 1.0), ("two_cities", 1.0), ("wrong_city_on_purpose", 0.0)):
        for name in ("final_response_match_v2", "rubric_based_final_response_quality_v1"):
            assert metric(data, case, name)["score"] == expected, (case, name)
    assert fake.count == 24 and all(request.model == model.rsplit("/", 1)[-1] for request in fake.requests)
    judge = data["usage"]["judge"]
    assert [entry["model"] for entry in judge["models"]] == [model]
    input_tokens = sum(max(1, len(r.prompt) // 4) for r in fake.requests)
    assert data["judge"]["input_tokens"] == input_tokens
    dollars = (input_tokens * price[0] + data["judge"]["output_tokens"] * price[1]) / 1e6
    assert judge["cost_usd"] == pytest.approx(dollars)
    assert f"{model} (" in result.stdout and "through ADK's model classes" in result.stdout
    assert OPENAI_KEY not in every_output(workspace, result) and ANTHROPIC_KEY not in every_output(workspace, result)


def test_a_rerun_is_answered_from_the_cache_whose_key_names_the_provider(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Cli
) -> None:
    fake = provider_servers["openai"]
    fake.script = judge_script
    cache = str(workspace / ".judge-cache")
    _, first = run(cli_in_process, workspace, provider_servers, "gpt-4o-mini", "--cache-dir", cache)
    assert fake.count == 24
    _, second = run(cli_in_process, workspace, provider_servers, "gpt-4o-mini", "--cache-dir", cache)
    assert fake.count == 24  # nothing new reached the server
    assert second["judge"]["calls"] == 0 and second["judge"]["cached"] == 24
    assert [c["metrics"] for c in second["cases"]] == [c["metrics"] for c in first["cases"]]
    litellm = "openai/gpt-4o-mini"  # LiteLLM this time
    _, third = run(cli_in_process, workspace, provider_servers, litellm, "--cache-dir", cache)
    assert third["judge"]["calls"] == 24 and fake.count == 48


def test_answers_quoting_a_key_are_masked_in_the_cache_folder_and_when_read_back(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Cli
) -> None:
    """results.json was masked, but the cache kept the answers in clear: a fork's run restores that folder."""
    model, fake = "anthropic/claude-haiku-4-5", provider_servers["anthropic"]
    fake.script = lambda request: f"{judge_script(request)}\n(the key was {OPENAI_KEY}, the other {ANTHROPIC_KEY})"
    cache = workspace / ".judge-cache"
    _, first = run(cli_in_process, workspace, provider_servers, model, "--cache-dir", str(cache))
    entries = [path.read_text(encoding="utf-8") for path in cache.rglob("*.json")]
    assert len(entries) == 24 == fake.count
    assert not [entry for entry in entries if OPENAI_KEY in entry or ANTHROPIC_KEY in entry]
    assert all("(the key was ***, the other ***)" in json.loads(entry)["text"] for entry in entries)
    result, second = run(cli_in_process, workspace, provider_servers, model, "--cache-dir", str(cache))
    assert fake.count == 24 and second["judge"]["cached"] == 24  # read back, nothing asked
    assert [c["metrics"] for c in second["cases"]] == [c["metrics"] for c in first["cases"]]
    assert OPENAI_KEY not in every_output(workspace, result) and ANTHROPIC_KEY not in every_output(workspace, result)


def test_negative_output_tokens_are_counted_as_none_flagged_and_never_lower_the_cost(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Cli
) -> None:
    """``completion_tokens: -5000000`` once showed as "-5,000,000 output tokens" and took dollars off the cost."""
    fake = provider_servers["openai"]

    def negative(request: SeenRequest) -> Reply:
        scripted = judge_script(request)
        return Reply(text=scripted if isinstance(scripted, str) else scripted.text, output_tokens=-5_000_000)

    fake.script = negative
    result, data = run(cli_in_process, workspace, provider_servers, "gpt-4o-mini")
    judge = data["judge"]
    assert (judge["output_tokens"], judge["implausible_counts"]) == (0, 24)
    [model] = data["usage"]["judge"]["models"]
    assert model["output_tokens"] == 0 and model["input_tokens"] == judge["input_tokens"] > 0
    assert data["usage"]["judge"]["cost_usd"] == pytest.approx(judge["input_tokens"] * PRICES["openai"][0] / 1e6)
    assert result.stdout.count("the judge gpt-4o-mini reported -5,000,000 output") == 1  # said once
    assert "24 answers with impossible token counts (clamped)" in result.stdout
    summary = (workspace / "adk-eval-results" / "summary.md").read_text()
    assert "24 answers with impossible token counts" in summary and "-5,000,000" not in summary


def test_a_429_with_a_retry_hint_is_waited_out(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Cli
) -> None:
    fake = provider_servers["openai"]
    fake.script = judge_script
    fake.enqueue(Reply.error(429, retry_after="1"))
    result, data = run(cli_in_process, workspace, provider_servers, "openai/gpt-4o-mini", "--judge-parallelism", "1")
    assert "1 retries" in result.stdout and data["judge"]["failed"] == 0
    assert all(m["score"] is not None for case in data["cases"] for m in case["metrics"])
    assert fake.requests[1].arrived - fake.requests[0].arrived >= 0.95  # the hint, not the backoff's 0.5-1 s


def test_a_spent_quota_stops_the_judge_after_one_calls_retries(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Cli
) -> None:
    fake = provider_servers["openai"]
    fake.script = lambda request: Reply.error(429, retry_after="0")
    _, data = run(cli_in_process, workspace, provider_servers, "openai/gpt-4o-mini", "--judge-parallelism", "2")
    assert fake.count <= 10 + 1  # one call's tries, and the first try of the other call under way
    judged = [m for case in data["cases"] for m in case["metrics"] if m["kind"] == "judge"]
    assert judged and all(m["status"] == "not_evaluated" for m in judged)
    assert all("the quota of openai/gpt-4o-mini (" in m["reason"] for m in judged)
    assert sum("not attempted" in m["reason"] for m in judged) >= len(judged) - 2
    assert {case["status"] for case in data["cases"]} == {"not_evaluated"}


def test_a_key_the_provider_echoes_is_masked(workspace: Path, provider_servers: dict[str, FakeGemini]) -> None:
    fake = provider_servers["openai"]
    fake.script = lambda request: Reply(status=400, text=f"Incorrect API key provided: {OPENAI_KEY}")
    result, data = run(run_cli, workspace, provider_servers, "gpt-4o-mini")  # a real process: all it writes
    found = metric(data, "paris_today", "final_response_match_v2")
    assert found["status"] == "not_evaluated" and "HTTP 400" in found["reason"] and "***" in found["reason"]
    assert OPENAI_KEY not in every_output(workspace, result)


def test_the_judge_provider_changing_is_said(
    workspace: Path, provider_servers: dict[str, FakeGemini], cli_in_process: Cli
) -> None:
    provider_servers["openai"].script = judge_script
    _, base = run(cli_in_process, workspace, provider_servers, "openai/gpt-4o-mini")
    write_json(workspace / "base.json", base)
    result, data = run(cli_in_process, workspace, provider_servers, "gpt-4o-mini", "--baseline", "base.json")
    line = (
        "judge model changed for final_response_match_v2: openai/gpt-4o-mini -> gpt-4o-mini, "
        "judge scores are not comparable"
    )
    assert line in [d["message"] for d in data["comparison"]["differences"]] and line in result.stdout

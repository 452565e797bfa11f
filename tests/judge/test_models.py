"""Judge and user simulator models resolved as ADK 2.13 resolves them, and the one line that names what to install
when a model's package is missing (google-adk, openai, anthropic, litellm)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from adk_eval_gate.judge.model_classes import GEMINI, ModelUnavailable, resolve_model
from tests.conftest import EXAMPLES, run_cli, write_json


@pytest.fixture
def without_adk(monkeypatch: pytest.MonkeyPatch) -> None:
    """google-adk cannot be imported (the judge's direct Gemini path needs only google-genai)."""
    monkeypatch.setitem(sys.modules, "google.adk.models", None)


@pytest.mark.parametrize(
    "name", ["gemini-2.5-flash", "models/gemini-2.5-flash", "gemma-4-27b-it", "tunedModels/mine-1", "my-judge"]
)
def test_without_google_adk_gemini_names_keep_the_direct_path(without_adk: None, name: str) -> None:
    assert resolve_model(name).provider == GEMINI


@pytest.mark.parametrize(
    ("name", "package"),
    [("gpt-4o-mini", "openai"), ("o3-mini", "openai"), ("claude-sonnet-4-5", "anthropic"), ("groq/x", "litellm")],
)
def test_without_google_adk_another_provider_names_what_to_install(without_adk: None, name: str, package: str) -> None:
    with pytest.raises(ModelUnavailable) as raised:
        resolve_model(name, role="judge model")
    assert str(raised.value) == (
        f"judge model {name!r} needs google-adk {package}: pip install 'adk-eval-gate[adk]' {package} "
        "(add it to the agent's requirements)"
    )


@pytest.mark.slow  # imports ADK's model classes
@pytest.mark.parametrize(
    ("name", "provider"),
    [
        ("gemini-2.5-flash", GEMINI),
        ("projects/p/locations/l/endpoints/e", GEMINI),
        ("gpt-4o-mini", "OpenAILlm"),
        ("o1-mini", "OpenAILlm"),
        ("openai:gpt-4o", "OpenAILlm"),  # ADK's Class:model form
        ("claude-sonnet-4-5", "Claude"),  # Claude on Vertex AI, as ADK resolves it
        ("openai/gpt-4o-mini", "LiteLlm"),
        ("anthropic/claude-haiku-4-5", "LiteLlm"),
        ("ollama/llama3", "LiteLlm"),
        ("groq/llama-3.1-8b-instant", "LiteLlm"),
        ("my-own-judge", GEMINI),  # unknown to ADK here: google-genai answers (or says it does not know it)
    ],
)
def test_names_resolve_to_adks_classes(name: str, provider: str) -> None:
    assert resolve_model(name).provider == provider


@pytest.mark.slow
def test_a_provider_litellm_does_not_know_is_said() -> None:
    with pytest.raises(ModelUnavailable, match="LiteLLM does not know the provider 'nowhere'"):
        resolve_model("nowhere/some-model")


@pytest.mark.slow
def test_a_provider_before_the_colon_says_adk_does_not_resolve_the_name_and_what_to_write() -> None:
    """ADK 2.13's registry takes a model class before ':' (``claude:``, ``openai:``, ``lite:``), not a provider:
    with anthropic installed, ``anthropic:claude-haiku-4-5`` once said "pip install anthropic"."""
    import anthropic  # installed: the name is what is wrong, not the environment

    assert anthropic
    with pytest.raises(ModelUnavailable) as raised:
        resolve_model("anthropic:claude-haiku-4-5", role="judge model")
    message = str(raised.value)
    assert message.startswith(
        "judge model 'anthropic:claude-haiku-4-5': ADK's model registry does not resolve this name: before ':' it "
        "takes the name of one of its model classes ("
    )
    assert "claude:, " in message and "lite:, " in message and "openai:" in message
    assert message.endswith(
        "and none is called 'anthropic'; write 'anthropic/claude-haiku-4-5' (LiteLLM) or 'claude-haiku-4-5' "
        "(ADK's Claude class, Claude on Vertex AI)"
    )
    assert "pip install" not in message and "\n" not in message
    for written, provider in (("anthropic/claude-haiku-4-5", "LiteLlm"), ("claude-haiku-4-5", "Claude")):
        assert resolve_model(written).provider == provider  # what the message suggests does resolve
    with pytest.raises(
        ModelUnavailable, match=r"none is called 'groq'; write 'groq/llama-3\.1-8b-instant' \(LiteLLM\)$"
    ):
        resolve_model("groq:llama-3.1-8b-instant")


@pytest.mark.slow
def test_a_registered_model_class_is_used() -> None:
    from google.adk.models.registry import LLMRegistry

    from tests.judge.adk_judge import ScriptedJudgeLlm

    LLMRegistry.register(ScriptedJudgeLlm)
    route = resolve_model("scripted-judge-2")
    assert (route.provider, route.llm_class) == ("ScriptedJudgeLlm", ScriptedJudgeLlm)


# ---------------------------------------------------------------------------------------------------------
# A missing package, as the CLI says it: a package folder first on PYTHONPATH whose import fails stands in for a
# package that is not installed.


def blocked(tmp_path: Path, *packages: str) -> dict[str, str]:
    folder = tmp_path / "blocked"
    for package in packages:
        (folder / package).mkdir(parents=True)
        (folder / package / "__init__.py").write_text(f'raise ImportError("No module named {package}")\n')
    return {"PYTHONPATH": str(folder), "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-never-used"}


def weather(repo: Path, config: dict[str, object]) -> Path:
    shutil.copytree(EXAMPLES / "weather_agent", repo / "weather_agent", ignore=shutil.ignore_patterns("__pycache__"))
    write_json(repo / "weather_agent" / "test_config.json", config)
    return repo


def judged_by(model: str) -> dict[str, object]:
    return {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"judge_model": model}}}}


@pytest.mark.slow  # the CLI as a real process
@pytest.mark.parametrize(
    ("model", "package"),
    [("claude-sonnet-4-5", "anthropic"), ("gpt-4o-mini", "openai"), ("openai/gpt-4o-mini", "litellm")],
)
def test_run_stops_before_any_agent_runs_when_a_judge_package_is_missing(
    repo: Path, tmp_path: Path, model: str, package: str
) -> None:
    workspace = weather(repo, judged_by(model))
    result = run_cli("run", "weather_agent", cwd=workspace, env=blocked(tmp_path, "openai", "anthropic", "litellm"))
    line = f"judge model {model!r} needs {package}: pip install {package} (add it to the agent's requirements)"
    assert result.returncode == 2 and line in result.stderr + result.stdout, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "paris_today" not in result.stdout  # no case ran


@pytest.mark.slow
def test_validate_reports_a_missing_judge_or_simulator_package(repo: Path, tmp_path: Path) -> None:
    config = {**judged_by("anthropic/claude-haiku-4-5"), "user_simulator_config": {"model": "claude-haiku-4-5"}}
    workspace = weather(repo, config)
    plan = {"eval_id": "plan", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "x"}}
    scenario = {"eval_set_id": "scenario", "eval_cases": [plan]}
    write_json(workspace / "weather_agent" / "scenario.evalset.json", scenario)
    result = run_cli("validate", "weather_agent", cwd=workspace, env=blocked(tmp_path, "anthropic", "litellm"))
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "judge model 'anthropic/claude-haiku-4-5' needs litellm: pip install litellm" in output
    assert "user simulator model 'claude-haiku-4-5' needs anthropic: pip install anthropic" in output


# ---------------------------------------------------------------------------------------------------------
# The answer as ADK reads it, and the routing of a run that has judges on several providers


def test_the_answer_is_every_text_part_joined_as_adk_reads_it() -> None:
    from google.genai import types

    from adk_eval_gate.judge.adk_models import answer_text

    parts = [types.Part(text="thinking", thought=True), types.Part(text=""), types.Part(text='{"x": 1}')]
    assert answer_text(types.Content(role="model", parts=parts)) == 'thinking\n{"x": 1}'
    assert answer_text(None) == "" and answer_text(types.Content(role="model", parts=[])) == ""


def test_a_gemini_model_without_gemini_credentials_fails_with_the_reason() -> None:
    import asyncio

    from adk_eval_gate.judge.adk_models import AdkModelJudge
    from adk_eval_gate.judge.gemini_client import request_config
    from adk_eval_gate.judge.routing import GeminiUnavailable, RoutedJudge

    routed = RoutedJudge(gemini=None, gemini_unavailable="set GOOGLE_API_KEY", adk=AdkModelJudge())
    assert routed.provider("gemini-2.5-flash") == GEMINI and routed.credentials is None
    ask = routed.generate(model="gemini-2.5-flash", config=request_config(None), prompt="q")
    with pytest.raises(GeminiUnavailable, match="set GOOGLE_API_KEY"):
        asyncio.run(ask)

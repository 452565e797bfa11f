"""Judges on other providers: the fake OpenAI and Anthropic servers as fixtures (the SDKs pointed at them through
their own environment variables, as a user's workflow sets them), and judge services that route by model."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.judge.adk_models import AdkModelJudge
from adk_eval_gate.judge.cache import JudgeCache
from adk_eval_gate.judge.judge_retry import JudgeRetry
from adk_eval_gate.judge.routing import RoutedJudge
from adk_eval_gate.judge.service import JudgeService
from tests.fakes.gemini_server import FakeGemini
from tests.fakes.provider_servers import FakeAnthropic, FakeOpenAI
from tests.judge.helpers import FAST

OPENAI_KEY = "sk-test-openai-key-7f3a9c"
ANTHROPIC_KEY = "sk-ant-test-key-51be0d"
PROVIDER_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_BASE",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_BASE",
)


@dataclass(frozen=True)
class Provider:
    """A judge model name, the ADK class it resolves to, and the fake API it reaches."""

    model: str
    adk_class: str
    api: str  # "openai" or "anthropic"


PROVIDERS = [
    Provider("gpt-4o-mini", "OpenAILlm", "openai"),  # ADK's OpenAI integration
    Provider("openai/gpt-4o-mini", "LiteLlm", "openai"),  # LiteLLM, OpenAI's API
    Provider("anthropic/claude-haiku-4-5", "LiteLlm", "anthropic"),  # LiteLLM, Anthropic's API
]


@pytest.fixture
def provider_servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, FakeGemini]]:
    """Both fakes, started; the SDKs (OpenAI's, Anthropic's, LiteLLM) pointed at them by their variables."""
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    openai = FakeOpenAI(api_key=OPENAI_KEY).start()
    anthropic = FakeAnthropic(api_key=ANTHROPIC_KEY).start()
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{openai.url}/v1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic.url)
    try:
        yield {"openai": openai, "anthropic": anthropic}
    finally:
        openai.stop()
        anthropic.stop()


def provider_env(servers: dict[str, FakeGemini]) -> dict[str, str]:
    """The variables a workflow would set, for a CLI run in a subprocess."""
    return {
        "OPENAI_API_KEY": OPENAI_KEY,
        "OPENAI_BASE_URL": f"{servers['openai'].url}/v1",
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "ANTHROPIC_BASE_URL": servers["anthropic"].url,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


def routed_service(
    *,
    parallelism: int = 8,
    cache_dir: Path | None = None,
    retry: JudgeRetry = FAST,
    timeout: float = 10.0,
    **options: Any,
) -> JudgeService:
    """A judge service for models that are not Gemini (a Gemini model would fail: no credentials); ``options``: the
    service's other settings (``mask``, ``warn``, ``sleep``, ``clock``)."""
    backend = RoutedJudge(
        gemini=None, gemini_unavailable="no Gemini credentials", adk=AdkModelJudge(timeout_seconds=timeout)
    )
    cache = JudgeCache(cache_dir) if cache_dir else None
    return JudgeService(backend=backend, parallelism=parallelism, cache=cache, retry=retry, **options)

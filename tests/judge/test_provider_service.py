"""The judge service with judges on other providers (ADK's OpenAI integration and LiteLLM against the fake OpenAI
and Anthropic servers): the shared rate limit, retries and their hints, failures that are not retried, the token
counts, and a Gemini model in the same run without Gemini credentials."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from adk_eval_gate.judge.service import JudgeFailed, JudgeService
from adk_eval_gate.model.eval_config import JudgeModelOptions
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.providers import ANTHROPIC_KEY, OPENAI_KEY, provider_servers, routed_service

pytestmark = pytest.mark.slow  # ADK's model classes and the provider SDKs
__all__ = ["provider_servers"]
OPENAI = JudgeModelOptions(judge_model="gpt-4o-mini")
LITELLM_OPENAI = JudgeModelOptions(judge_model="openai/gpt-4o-mini")
LITELLM_ANTHROPIC = JudgeModelOptions(judge_model="anthropic/claude-haiku-4-5")


def run(service: JudgeService, work: Callable[[JudgeService], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        try:
            return await work(service)
        finally:
            await service.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("options", [OPENAI, LITELLM_OPENAI], ids=lambda o: o.judge_model)
def test_judge_parallelism_caps_requests_in_flight(
    provider_servers: dict[str, FakeGemini], options: JudgeModelOptions
) -> None:
    fake = provider_servers["openai"]
    fake.script = lambda request: Reply(text="ok", delay=0.2)
    service = routed_service(parallelism=2)

    async def work(s: JudgeService) -> list[str]:
        return list(await asyncio.gather(*(s.ask(options=options, prompt=f"q{i}") for i in range(6))))

    assert run(service, work) == ["ok"] * 6
    assert fake.count == 6 and fake.max_in_flight == 2


@pytest.mark.parametrize(
    ("options", "api", "key"), [(OPENAI, "openai", OPENAI_KEY), (LITELLM_ANTHROPIC, "anthropic", ANTHROPIC_KEY)]
)
def test_a_429_waits_as_told_and_a_5xx_is_retried(
    provider_servers: dict[str, FakeGemini], options: JudgeModelOptions, api: str, key: str
) -> None:
    fake = provider_servers[api]
    fake.enqueue(Reply.error(429, retry_after="0.5"), Reply.error(529 if api == "anthropic" else 503), "fine")
    service = routed_service()
    assert run(service, lambda s: s.ask(options=options, prompt="q")) == "fine"
    assert fake.count == 3 and all(request.api_key == key for request in fake.requests)
    assert fake.requests[1].arrived - fake.requests[0].arrived >= 0.45
    assert (service.counters.calls, service.counters.retries, service.counters.failed) == (3, 2, 0)
    [counted] = service.counters.model_calls
    assert counted.model == options.judge_model and counted.input_tokens == 1 and counted.output_tokens == 1


def test_a_rejected_key_fails_at_once_and_says_what_to_check(provider_servers: dict[str, FakeGemini]) -> None:
    fake = provider_servers["openai"]
    fake.api_key = "another-key"
    with pytest.raises(JudgeFailed, match=r"judge gpt-4o-mini failed after 1 try: HTTP 401 .*check the judge API key"):
        run(routed_service(), lambda s: s.ask(options=OPENAI, prompt="q"))
    assert fake.count == 1


def test_a_gemini_judge_without_credentials_fails_alone(provider_servers: dict[str, FakeGemini]) -> None:
    provider_servers["openai"].script = lambda request: "from openai"
    service = routed_service()

    async def work(s: JudgeService) -> tuple[str, str]:
        answered = await s.ask(options=OPENAI, prompt="q")
        try:
            await s.ask(options=JudgeModelOptions(judge_model="gemini-2.5-flash"), prompt="q")
        except JudgeFailed as failure:
            return answered, str(failure)
        raise AssertionError("the Gemini judge answered without credentials")

    answered, reason = run(service, work)
    assert answered == "from openai" and "no Gemini credentials" in reason

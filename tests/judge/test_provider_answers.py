"""What a judge takes from a provider's server, through each real SDK against the fake servers: google-genai
(Gemini), ADK's OpenAI integration, LiteLLM (OpenAI's and Anthropic's APIs) and the Anthropic SDK (ADK's
``AnthropicLlm``, as a class an agent registers reaches it).

A redirect to another host is not followed (the key would go along), an endless answer is cut at the judge's limit,
a successful answer that is not one of the API says so, token counts that are not counts are clamped and flagged,
and a server that asks for a longer wait than the judge ever makes is not asked again. The waits go through the
service's ``sleep`` and ``clock``: nothing here sleeps for real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from adk_eval_gate.judge.adk_models import AdkModelJudge
from adk_eval_gate.judge.http_guard import MAX_ANSWER_BYTES
from adk_eval_gate.judge.judge_retry import JUDGE_RETRY
from adk_eval_gate.judge.model_classes import ModelRoute
from adk_eval_gate.judge.service import JudgeFailed, JudgeService
from adk_eval_gate.model.eval_config import JudgeModelOptions
from adk_eval_gate.model.tokens import MAX_CALL_TOKENS
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.fakes.provider_servers import FakeAnthropic, FakeOpenAI
from tests.judge.helpers import gemini, judge_service
from tests.judge.providers import provider_servers, routed_service

pytestmark = pytest.mark.slow  # ADK's model classes and the provider SDKs
__all__ = ["gemini", "provider_servers"]


@dataclass(frozen=True)
class Route:
    model: str
    api: str  # the fake that answers: gemini, openai or anthropic
    shown: str  # the API's name in messages
    anthropic_sdk: bool = False  # ADK's AnthropicLlm, not a name ADK resolves by itself

    @property
    def path(self) -> str:
        return {
            "gemini": f"/v1beta/models/{self.model}:generateContent",
            "openai": "/v1/chat/completions",
            "anthropic": "/v1/messages",
        }[self.api]


ROUTES = [
    Route("gemini-2.5-flash", "gemini", "Gemini"),  # google-genai
    Route("gpt-4o-mini", "openai", "OpenAI"),  # ADK's OpenAI integration, the OpenAI SDK
    Route("openai/gpt-4o-mini", "openai", "OpenAI"),  # LiteLLM, OpenAI's API
    Route("anthropic/claude-haiku-4-5", "anthropic", "Anthropic"),  # LiteLLM, Anthropic's API
    Route("claude-haiku-4-5", "anthropic", "Anthropic", anthropic_sdk=True),  # the Anthropic SDK (httpx2)
]
KEY_HEADERS = ("x-goog-api-key", "x-api-key", "authorization", "api-key")


class AnthropicSdkJudge:
    """ADK's ``AnthropicLlm`` for every model: what a judge gets when the agent's module registers that class."""

    def __init__(self) -> None:
        self.adk = AdkModelJudge(timeout_seconds=10.0)

    def provider(self, model: str) -> str:
        return "AnthropicLlm"

    async def generate(self, *, model: str, config: Any, prompt: str) -> Any:
        from google.adk.models.anthropic_llm import AnthropicLlm

        route = ModelRoute(model, "AnthropicLlm", AnthropicLlm)
        return await self.adk.generate(route=route, config=config, prompt=prompt)

    async def aclose(self) -> None:
        await self.adk.aclose()


class FakeTime:
    """The service's clock and sleep: a wait only moves the clock."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def service_for(route: Route, **options: Any) -> JudgeService:
    if route.api == "gemini":
        return judge_service(timeout=10.0, **options)
    if route.anthropic_sdk:
        return JudgeService(backend=AnthropicSdkJudge(), **options)
    return routed_service(**options)


@pytest.fixture
def fakes(gemini: FakeGemini, provider_servers: dict[str, FakeGemini]) -> dict[str, FakeGemini]:
    return {"gemini": gemini, **provider_servers}


@pytest.fixture
def elsewhere(request: pytest.FixtureRequest) -> Iterator[dict[str, FakeGemini]]:
    """A server of each API on other ports, taking any key: where a redirect points."""
    servers = {"gemini": FakeGemini(api_key=None), "openai": FakeOpenAI(api_key=None)}
    servers["anthropic"] = FakeAnthropic(api_key=None)
    for server in servers.values():
        server.script = lambda request: "answered elsewhere"
        server.start()
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


def ask(service: JudgeService, model: str, *prompts: str) -> list[str | JudgeFailed]:
    """Each prompt asked in turn; a question that fails gives its ``JudgeFailed``."""

    async def go() -> list[str | JudgeFailed]:
        answers: list[str | JudgeFailed] = []
        try:
            for prompt in prompts:
                try:
                    answers.append(await service.ask(options=JudgeModelOptions(judge_model=model), prompt=prompt))
                except JudgeFailed as failure:
                    answers.append(failure)
        finally:
            await service.aclose()
        return answers

    return asyncio.run(go())


def host(fake: FakeGemini) -> str:
    return fake.url.removeprefix("http://")


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.model)
def test_a_redirect_to_another_host_is_not_followed_and_the_question_says_why(
    route: Route, fakes: dict[str, FakeGemini], elsewhere: dict[str, FakeGemini]
) -> None:
    fake, target = fakes[route.api], elsewhere[route.api]
    fake.script = lambda request: Reply.redirect(target.url + route.path)
    service = service_for(route)
    [failure] = ask(service, route.model, "q")
    assert isinstance(failure, JudgeFailed), failure
    assert str(failure) == (
        f"judge {route.model} failed after 1 try: the judge at {host(fake)} answered 307 with a redirect to "
        f"{host(target)}, another host: not followed, as the request carries the provider's key"
    )
    assert not failure.infrastructure  # not evaluated: the endpoint is set up wrong, nothing to wait out
    assert fake.count == 1 and fake.requests[0].api_key  # asked once, with the key
    assert target.count == 0  # the other host never saw the request, let alone a key
    assert not [name for seen in target.requests for name in seen.headers if name in KEY_HEADERS]


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.model)
def test_a_redirect_on_the_same_host_is_followed(route: Route, fakes: dict[str, FakeGemini]) -> None:
    fake = fakes[route.api]
    fake.enqueue(Reply.redirect(fake.url + route.path), "after the redirect")
    assert ask(service_for(route), route.model, "q") == ["after the redirect"]
    assert fake.count == 2


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.model)
def test_an_endless_answer_is_cut_at_the_limit_and_its_rest_never_read(
    route: Route, fakes: dict[str, FakeGemini]
) -> None:
    fake = fakes[route.api]
    fake.script = lambda request: Reply.endless_answer()
    [failure] = ask(service_for(route), route.model, "q")
    assert isinstance(failure, JudgeFailed), failure
    assert str(failure) == (
        f"judge {route.model} failed after 1 try: the judge at {host(fake)} sent an answer larger than 8 MiB, the "
        "judge's limit; the rest was not read"
    )
    assert fake.count == 1
    # the client hung up past the limit: what the server wrote before it noticed is the limit and the sockets' buffers
    assert MAX_ANSWER_BYTES < fake.endless_bytes_sent < fake.endless_safety_stop


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.model)
def test_a_successful_answer_in_html_is_not_an_answer_and_says_so(route: Route, fakes: dict[str, FakeGemini]) -> None:
    fake = fakes[route.api]
    fake.script = lambda request: Reply.body(b"<!doctype html><html><body>Sign in to the proxy</body></html>")
    [failure] = ask(service_for(route), route.model, "q")
    assert isinstance(failure, JudgeFailed), failure
    article = "an" if route.shown != "Gemini" else "a"
    assert str(failure) == (
        f"judge {route.model} failed after 1 try: the judge at {host(fake)} answered 200 with a body that is not "
        f"{article} {route.shown} answer (HTML)"
    )
    assert fake.count == 1


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.model)
def test_token_counts_that_are_not_counts_are_clamped_counted_and_said_once(
    route: Route, fakes: dict[str, FakeGemini]
) -> None:
    fake = fakes[route.api]
    fake.script = lambda request: Reply(text="ok", prompt_tokens=10**12, output_tokens=-5_000_000)
    warnings: list[str] = []
    service = service_for(route, warn=warnings.append)
    assert ask(service, route.model, "q1", "q2") == ["ok", "ok"]
    counters = service.counters
    assert (counters.input_tokens, counters.output_tokens) == (2 * MAX_CALL_TOKENS, 0)
    assert counters.implausible_counts == 2
    assert [(call.input_tokens, call.output_tokens) for call in counters.model_calls] == [(MAX_CALL_TOKENS, 0)] * 2
    [warning] = warnings  # once per model
    assert f"the judge {route.model} reported " in warning
    assert "1,000,000,000,000 input" in warning and "-5,000,000 output" in warning


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.model)
def test_a_wait_longer_than_the_judge_makes_gives_the_question_up_at_once(
    route: Route, fakes: dict[str, FakeGemini]
) -> None:
    fake = fakes[route.api]
    fake.script = lambda request: Reply.error(429, retry_after="3600")
    time = FakeTime()
    service = service_for(route, retry=JUDGE_RETRY, sleep=time.sleep, clock=time.clock)
    answers = ask(service, route.model, "q1", "q2", "q3", "q4")
    assert all(isinstance(answer, JudgeFailed) and not answer.infrastructure for answer in answers), answers
    first = str(answers[0])
    assert first.startswith(f"judge {route.model} failed after 1 try: HTTP 429"), first
    assert (
        "; the provider asked to wait 3,600 s, more than the 120 s the judge waits at most, so it was not asked again; "
        f"the quota of {route.model} ("
    ) in first
    assert first.endswith("is spent for this run, so later calls to it are not attempted")
    assert time.slept == []  # not one wait
    assert fake.count == 1  # the quota is spent for the run: the later questions send nothing
    for later in answers[1:]:
        assert str(later).startswith(f"not attempted: the quota of {route.model} ("), later
        assert "ran out earlier in this run (judge" in str(later)


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.model)
def test_a_wait_within_the_cap_is_waited_through_the_services_sleep(route: Route, fakes: dict[str, FakeGemini]) -> None:
    fake = fakes[route.api]
    fake.enqueue(Reply.error(429, retry_after="100"), "after the wait")
    time = FakeTime()
    service = service_for(route, retry=JUDGE_RETRY, sleep=time.sleep, clock=time.clock)
    assert ask(service, route.model, "q") == ["after the wait"]
    assert time.slept == [100.0] and fake.count == 2


def test_claude_on_vertex_ai_asks_through_the_judges_client(
    provider_servers: dict[str, FakeGemini], elsewhere: dict[str, FakeGemini], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ADK's ``Claude`` (``claude-*``) as the judge makes it: the project and region ADK reads, the SDK's retries off,
    and the judge's client under it (the access token, which google-auth would give, is set by hand: no Google
    credentials here)."""
    from google.adk.models.anthropic_llm import Claude
    from google.adk.models.llm_request import LlmRequest
    from google.genai import types

    from adk_eval_gate.judge.http_guard import JudgeAnswerRefused, surfacing_refusals
    from adk_eval_gate.judge.provider_clients import make_model

    fake, target = provider_servers["anthropic"], elsewhere["anthropic"]
    fake.api_key = "vertex-access-token"
    for name, value in (("PROJECT", "proj"), ("LOCATION", "us-east5")):
        monkeypatch.setenv(f"GOOGLE_CLOUD_{name}", value)
    monkeypatch.setenv("ANTHROPIC_VERTEX_BASE_URL", f"{fake.url}/v1")
    vertex_path = "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/claude-haiku-4-5:rawPredict"
    fake.enqueue("from Vertex AI", Reply.redirect(target.url + vertex_path))
    model, clients = make_model(ModelRoute("claude-haiku-4-5", "Claude", Claude), timeout_seconds=10.0)
    assert (model.client.project_id, model.client.region, model.client.max_retries) == ("proj", "us-east5", 0)
    model.client.access_token = "vertex-access-token"
    request = LlmRequest(model="claude-haiku-4-5", contents=[types.Content(role="user", parts=[types.Part(text="q")])])

    async def first_answer() -> str:
        async for response in model.generate_content_async(request):
            return str(response.content.parts[0].text)
        raise AssertionError("no answer")

    async def go() -> tuple[str, str]:
        try:
            answered = await first_answer()
            with pytest.raises(JudgeAnswerRefused) as refused, surfacing_refusals():
                await first_answer()
            return answered, str(refused.value)
        finally:
            for client in clients:
                await client.aclose()

    answered, refusal = asyncio.run(go())
    assert answered == "from Vertex AI" and fake.requests[0].api_key == "vertex-access-token"
    assert f"answered 307 with a redirect to {host(target)}, another host: not followed" in refusal
    assert fake.count == 2 and target.count == 0

"""Shared pieces of the tests of Google's evaluation service: the fake service fixture, the gate's client pointed
at it, scripts that answer by what a request asks (so ADK's requests and the gate's get the same answers whatever
their order), and scoring one run with the service."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adk_eval_gate.judge.judge_retry import JudgeRetry
from adk_eval_gate.judge.platform_access import PlatformAccess
from adk_eval_gate.judge.platform_service import PlatformService
from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricServices
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import eval_config
from adk_eval_gate.support.retry import Backoff
from tests.fakes.agent_platform_server import API_KEY, Answer, FakeAgentPlatform, Raw, SeenRequest
from tests.metrics.decided import Decided

FAST = JudgeRetry(Backoff(attempts=3, initial=0.001, maximum=0.005), rate_limited_attempts=3)
CREDENTIAL_VARIABLES = (
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "STORAGE_EMULATOR_HOST",
)


@pytest.fixture
def platform(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAgentPlatform]:
    """A started fake evaluation service; Cloud Storage (the published metric definitions) is the fake too."""
    for name in CREDENTIAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    fake = FakeAgentPlatform().start()
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", fake.url)
    try:
        yield fake
    finally:
        fake.stop()


class Waits:
    """The service's ``sleep`` and ``clock`` seams: records each wait, which only moves the clock, and yields to the
    loop."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def __call__(self, delay: float) -> None:
        self.seconds.append(delay)
        self.now += delay
        await asyncio.sleep(0)


def service_for(fake: FakeAgentPlatform, *, api_key: str = API_KEY, **options: Any) -> PlatformService:
    options.setdefault("retry", FAST)
    options.setdefault("mask", lambda text: text.replace(api_key, "***"))  # the console's, which holds the key
    access = PlatformAccess(api_key=api_key, base_url=f"{fake.url}/")
    return PlatformService(access=access, **options)


def run_service(service: PlatformService, work: Callable[[PlatformService], Any]) -> Any:
    """``await work(service)`` in a fresh loop, the service closed in it."""

    async def go() -> Any:
        try:
            return await work(service)
        finally:
            await service.aclose()

    return asyncio.run(go())


def score(metric_class: type[Metric], name: str, threshold: float, run: CaseRun, service: PlatformService) -> Decided:
    """One run scored through the service, with the verdict's statuses (``tests/metrics/decided.py``)."""
    criterion = eval_config.LlmAsAJudgeCriterion(threshold=threshold)
    metric = metric_class(name=name, criterion=criterion, services=MetricServices(platform=service))
    return Decided(run_service(service, lambda _: evaluate_metric(metric, run)), threshold=threshold)


def prompt_of(request: SeenRequest) -> str:
    """The text of a row request's prompt ('' for a conversation)."""
    contents = request.body.get("instance", {}).get("prompt", {}).get("contents", {}).get("contents", [])
    return "".join(part.get("text", "") for content in contents for part in content.get("parts", []))


class ByPrompt:
    """Answers a row by its prompt's text and a conversation by its metric's name (thread-safe: the fake calls it
    from its request threads); what nothing matches gets a 500."""

    def __init__(self, answers: dict[str, Answer | Raw]) -> None:
        self.answers = answers
        self._lock = threading.Lock()

    def __call__(self, request: SeenRequest) -> Answer | Raw:
        with self._lock:
            key = prompt_of(request) or request.metric
            return self.answers.get(key, Raw.error(500, message=f"nothing scripted for {key!r}"))


def canonical(bodies: list[dict[str, Any]]) -> list[str]:
    """Request bodies as sorted JSON texts: the same requests sent in any order compare equal."""
    return sorted(json.dumps(body, sort_keys=True) for body in bodies)

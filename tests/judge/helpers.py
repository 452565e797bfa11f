"""Shared pieces of the judge tests: the fake Gemini server fixture, judge services pointed at it, and
scripted judges that answer by what a prompt contains (so ours and ADK's prompts get the same answers)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_eval_gate.judge.cache import JudgeCache
from adk_eval_gate.judge.credentials import JudgeCredentials
from adk_eval_gate.judge.gemini_client import GeminiJudge
from adk_eval_gate.judge.judge_retry import JudgeRetry
from adk_eval_gate.judge.service import JudgeService
from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, MetricServices
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import EvalCase, Invocation
from adk_eval_gate.support.retry import Backoff
from tests.fakes.gemini_server import FakeGemini, Reply, SeenRequest
from tests.metrics.decided import Decided

API_KEY = "test-key-123456"
FAST = JudgeRetry(Backoff(attempts=3, initial=0.01, maximum=0.05, jitter=(0.5, 1.0)))
CREDENTIAL_VARIABLES = (
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
)


@pytest.fixture
def gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    """A started fake Gemini server; google-genai is pointed at it through GOOGLE_GEMINI_BASE_URL."""
    for name in CREDENTIAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    fake = FakeGemini(api_key=API_KEY).start()
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.url)
    try:
        yield fake
    finally:
        fake.stop()


def judge_service(
    *,
    parallelism: int = 8,
    cache_dir: Path | None = None,
    timeout: float = 5.0,
    retry: JudgeRetry = FAST,
    api_key: str = API_KEY,
    **options: Any,
) -> JudgeService:
    """``options``: the service's other settings (``mask``, ``warn``, ``sleep``, ``clock``)."""
    options.setdefault("mask", lambda text: text.replace(api_key, "***"))  # the console's, which holds the key
    backend = GeminiJudge(JudgeCredentials(vertexai=False, api_key=api_key), timeout_seconds=timeout)
    return JudgeService(
        backend=backend,
        parallelism=parallelism,
        cache=JudgeCache(cache_dir) if cache_dir else None,
        retry=retry,
        **options,
    )


def run_of(actual: list[Invocation], expected: list[Invocation] | None = None, case: EvalCase | None = None) -> CaseRun:
    case = case or EvalCase(eval_id="case", conversation=expected if expected is not None else [])
    return CaseRun(eval_case=case, actual=actual, expected=expected, scenario=case.conversation_scenario)


def score(
    metric_class: type[Metric],
    name: str,
    criterion: eval_config.BaseCriterion,
    run: CaseRun,
    service: JudgeService | None = None,
    *,
    lenient_labels: bool = False,
) -> Decided:
    """Scores one run with a fresh judge service (closed in the same event loop), with the verdict's statuses;
    ``lenient_labels``: judge answers read as under --lenient-judge-labels."""
    judge = service if service is not None else judge_service()
    services = MetricServices(judge=judge, lenient_labels=lenient_labels)
    metric = metric_class(name=name, criterion=criterion, services=services)

    async def go() -> MetricOutcome:
        try:
            return await evaluate_metric(metric, run)
        finally:
            await services.aclose()

    return Decided(asyncio.run(go()), threshold=criterion.threshold)


def text(value: str, role: str = "model") -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=value)])


def invocation(user: str, final: str | None, **extra: Any) -> Invocation:
    return Invocation(
        user_content=text(user, "user"), final_response=text(final) if final is not None else None, **extra
    )


def judge_options(num_samples: int = 5, parallelism_limit: int = 1) -> dict[str, Any]:
    return {"judge_model": "scripted-judge", "num_samples": num_samples, "parallelism_limit": parallelism_limit}


# ------------------------------------------------------------------------------------------------------------
# Scripted judges: an answer queue per marker text; a prompt is answered from the queue of the marker found
# last in it (the judged part of every prompt, ours and ADK's, comes after the context).


class MarkerScript:
    """Thread-safe: the fake server calls it from its request threads, ADK's judge from the event loop."""

    def __init__(self, answers: dict[str, list[str | Reply]], *, cycle: bool = False) -> None:
        self.answers = {marker: list(queue) for marker, queue in answers.items()}
        self.cycle = cycle
        self.asked: dict[str, int] = dict.fromkeys(answers, 0)
        self._lock = threading.Lock()

    def marker_for(self, prompt: str) -> str:
        found = [(prompt.rfind(marker), marker) for marker in self.answers if marker in prompt]
        if not found:
            raise AssertionError(f"no scripted marker in the prompt:\n{prompt[-600:]}")
        return max(found)[1]

    def answer(self, prompt: str) -> str | Reply:
        marker = self.marker_for(prompt)
        with self._lock:
            queue = self.answers[marker]
            index = self.asked[marker]
            self.asked[marker] += 1
            if index >= len(queue) and not self.cycle:
                raise AssertionError(f"marker {marker!r} asked {index + 1} times, scripted {len(queue)}")
            return queue[index % len(queue)]

    def __call__(self, request: SeenRequest) -> str | Reply:
        return self.answer(request.prompt)


def v2_answer(label: str) -> str:
    return f'{{\n  "reasoning": "scripted",\n  "is_the_agent_response_valid": "{label}"\n}}'


def is_valid_answer(label: str) -> str:
    return f'{{\n  "reasoning": "scripted",\n  "is_valid": {label}\n}}'


def rubric_answer(verdicts: dict[str, str], texts: dict[str, str]) -> str:
    blocks = [
        f"ID: {rubric_id}\nProperty: {texts[rubric_id]}\nEvidence: scripted\nRationale: scripted {verdict}\n"
        f"Verdict: {verdict}"
        for rubric_id, verdict in verdicts.items()
    ]
    return "\n\n".join(blocks)


def sentences_answer(sentences: list[str]) -> str:
    return "\n".join(f"<sentence>{s}</sentence>" for s in sentences)


def labels_answer(labels: dict[str, str]) -> str:
    return "\n".join(
        f"sentence: {sentence}\nlabel: {label}\nrationale: scripted\nsupporting_excerpt: null\n"
        "contradicting_excerpt: null"
        for sentence, label in labels.items()
    )


Script = Callable[[str], "str | Reply"]


class HallucinationScript:
    """Segmenter prompts: the sentences of the known text the prompt ends with. Validator prompts (they ask
    for ``supporting_excerpt``): a label block for every known sentence among the prompt's ``<sentence>`` tags."""

    def __init__(self, segments: dict[str, list[str]], labels: dict[str, str]) -> None:
        self.segments = segments
        self.labels = labels
        self.segmenter_calls = 0
        self.validator_calls = 0
        self._lock = threading.Lock()

    def answer(self, prompt: str) -> str:
        import re

        if "supporting_excerpt" in prompt:
            with self._lock:
                self.validator_calls += 1
            tagged = dict.fromkeys(re.findall(r"<sentence>(.*?)</sentence>", prompt, flags=re.DOTALL))
            return labels_answer({s: self.labels[s] for s in tagged if s in self.labels})
        with self._lock:
            self.segmenter_calls += 1
        found = [(prompt.rfind(t), len(t), t) for t in self.segments if t in prompt]
        if not found:
            raise AssertionError(f"no known text in the segmenter prompt:\n{prompt[-400:]}")
        return sentences_answer(self.segments[max(found)[2]])

    def __call__(self, request: SeenRequest) -> str:
        return self.answer(request.prompt)

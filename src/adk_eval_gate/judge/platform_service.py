"""Google's evaluation service (Vertex AI / Agent Platform Gen AI evaluation), through Google's own SDK
(google-cloud-aiplatform's ``agentplatform``, the module ADK 2.13 imports), for any of its metrics.

``await service.evaluate(metric=ServiceMetric("SAFETY", "v1"), instances=[...])`` asks the service about each
instance (``platform_instances``) with one ``evaluateInstances`` request, as the SDK's metric handlers do, and
returns each answer as the SDK reads it (``InstanceResult``: the score, the explanation, the rubric verdicts, and
the error the SDK would record). The metric is resolved by the SDK's own loader (``types.PrebuiltMetric``), as in
ADK: a predefined metric of the service by name, others (``COHERENCE``) from Google's published definition.

Around each request, the gate's rules rather than the SDK's evaluate loop: at most ``parallelism`` requests at
once, a timeout, retries of 429, 5xx, timeouts and dropped connections honouring ``Retry-After``
(``judge.judge_retry``), answers of bounded size (``platform_transport``), after three failures in a row no more
requests, once one gave up on a rate limit none in the run (``judge.quota``). A request that still fails raises
``PlatformFailed`` (its reason never carries the API key); an answer the service gave is never a failure. The SDK
is imported on first use only.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import pydantic

from adk_eval_gate.judge.judge_retry import (
    JUDGE_RETRY,
    JudgeRetry,
    describe_error,
    is_retryable,
    status_of,
)
from adk_eval_gate.judge.limiter import JudgeLimiter
from adk_eval_gate.judge.platform_access import INSTALL_HINT, PlatformAccess
from adk_eval_gate.judge.platform_instances import PlatformInstance, sdk_instance
from adk_eval_gate.judge.platform_transport import MAX_ANSWER_BYTES, AnswerTooLarge, CappedTransport, EncodedAnswer
from adk_eval_gate.judge.quota import QuotaBreaker, rate_limited
from adk_eval_gate.judge.retried_calls import retried
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.pydantic_errors import first_error

DEFAULT_TIMEOUT_SECONDS = 180.0  # a multi-turn rubric metric is several model calls on the service's side
MAX_TEXT_CHARS = 10_000  # an explanation, a rubric or an error of the service: a few sentences


@dataclass(frozen=True)
class ServiceMetric:
    """A metric of the service as the SDK names it: ``types.PrebuiltMetric.<name>``, at ``version`` (None: the
    SDK's default for that name)."""

    name: str
    version: str | None = None
    parameters: str | None = None  # metric_spec_parameters as JSON (agents-cli's parameterized built-in metrics)

    def __str__(self) -> str:
        return f"{self.name.lower()}{'@' + self.version if self.version else ''}"


@dataclass(frozen=True)
class RubricVerdict:
    rubric_id: str | None
    description: str | None
    verdict: bool | None
    reasoning: str | None


@dataclass(frozen=True)
class InstanceResult:
    """One instance's answer, as the SDK's handler reads it (``EvalCaseMetricResult``)."""

    score: float | None = None
    explanation: str | None = None
    verdicts: tuple[RubricVerdict, ...] = ()
    error: str | None = None  # the SDK's error_message: the service said it could not score this instance


class PlatformFailed(Exception):
    """No answer after every try (``infrastructure``: the service was down or slow), or the SDK could not be used."""

    def __init__(self, message: str, *, infrastructure: bool = False) -> None:
        super().__init__(message)
        self.infrastructure = infrastructure


@dataclass
class PlatformCounters:
    calls: int = 0  # requests sent, retries included
    retries: int = 0
    failed: int = 0  # instances left without an answer


def _sdk() -> Any:
    try:
        module = importlib.import_module("agentplatform")
        module.types.EvaluationInstance  # noqa: B018  (loads the types and the evals module's dependencies)
        importlib.import_module("agentplatform._genai.evals")
    except ImportError as missing:
        raise PlatformFailed(f"Google's evaluation SDK cannot be imported ({missing}); {INSTALL_HINT}") from None
    return module


def _text(value: object) -> str | None:
    """A text of the answer as results.json can keep it: lone surrogates replaced, at most ``MAX_TEXT_CHARS``."""
    if value is None:
        return None
    text = sanitize.clean_text(str(value))
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - 1] + "…"


def _verdict(item: Any) -> RubricVerdict:
    rubric = getattr(item, "evaluated_rubric", None)
    prop = getattr(getattr(rubric, "content", None), "property", None)
    return RubricVerdict(
        rubric_id=_text(getattr(rubric, "rubric_id", None)),
        description=_text(getattr(prop, "description", None)),
        verdict=getattr(item, "verdict", None),
        reasoning=_text(getattr(item, "reasoning", None)),
    )


def _read_answer(response: Any) -> InstanceResult:
    """The SDK's ``PredefinedMetricHandler.get_metric_result`` (and ``LLMMetricHandler``'s) on an answer; its texts
    made safe to keep (``_text``)."""
    results = getattr(response, "metric_results", None)
    if not results:
        return InstanceResult(error="Metric results missing in API response.")
    first = results[0]
    error = first.error
    return InstanceResult(
        score=first.score,
        explanation=_text(first.explanation),
        verdicts=tuple(_verdict(item) for item in first.rubric_verdicts or ()),
        error=_text(f"Error in metric result: {error}") if error is not None and getattr(error, "code", None) else None,
    )


def _autorater_config(metric: Any) -> dict[str, Any] | None:
    """The SDK's ``_get_autorater_config``: a metric's own judge settings (none for ADK's metrics)."""
    config = {
        key: value
        for key, value in (
            ("autorater_model", getattr(metric, "judge_model", None)),
            ("generation_config", getattr(metric, "judge_model_generation_config", None)),
            ("sampling_count", getattr(metric, "judge_model_sampling_count", None)),
        )
        if value
    }
    return config or None


def _as_is(text: str) -> str:
    return text


_QUOTA = "Google's evaluation service"  # one quota: the project's, whatever the metric


class PlatformService:
    def __init__(  # parameters: the endpoint, credentials, limits and counters, each keyword-only
        self,
        *,
        access: PlatformAccess,
        parallelism: int = 8,
        retry: JudgeRetry = JUDGE_RETRY,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        rng: random.Random | None = None,
        breaker_limit: int = 3,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        mask: Callable[[str], str] = _as_is,
    ) -> None:
        self.access = access
        self.limiter = JudgeLimiter(parallelism, clock=clock, sleep=sleep)
        self.retry = retry
        self.timeout_seconds = timeout_seconds
        self.max_answer_bytes = max_answer_bytes
        self.rng = rng or random.Random()
        self.breaker_limit = breaker_limit
        self.sleep = sleep  # between tries and the shared pauses, on ``clock`` (tests record the waits)
        self.mask = mask  # the console's: a reason could quote the key, and reasons end up in results.json
        self.counters = PlatformCounters()
        self.quota = QuotaBreaker()
        self._clients: dict[asyncio.AbstractEventLoop, tuple[Any, httpx.AsyncClient]] = {}
        self._locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}
        self._metrics: dict[ServiceMetric, Any] = {}
        self._failures_in_a_row = 0
        self._last_failure = PlatformFailed("")

    def describe(self) -> str:
        return f"Google's evaluation service ({self.access.describe()})"

    async def evaluate(self, *, metric: ServiceMetric, instances: Sequence[PlatformInstance]) -> list[InstanceResult]:
        """One answer per instance, in order; ``PlatformFailed`` when any request fails for good, and
        ``platform_instances.MissingInput`` for an instance the SDK refuses before asking."""
        if self.access.problem:
            raise PlatformFailed(self.access.problem)
        client = await self._client()
        resolved = await self._resolve(client, metric)
        types = _client_types()
        template = getattr(resolved, "prompt_template", None)
        try:
            built = [sdk_instance(types, instance, prompt_template=template) for instance in instances]
        except pydantic.ValidationError as error:  # recorded app details the SDK's types do not take
            where, message = first_error(error)
            raise PlatformFailed(f"the request could not be made from the turns: {where}: {message}") from None
        answers = await asyncio.gather(*(self._ask(client, resolved, item) for item in built), return_exceptions=True)
        failure = next((answer for answer in answers if isinstance(answer, BaseException)), None)
        if failure is not None:
            raise failure
        return [answer for answer in answers if isinstance(answer, InstanceResult)]

    def make_client(self) -> tuple[Any, httpx.AsyncClient]:
        """The SDK's client as ADK's facade makes it (an API key, else the project and location), on our HTTP client
        (returned too: the SDK leaves a client it was given open)."""
        sdk = _sdk()
        transport = CappedTransport(httpx.AsyncHTTPTransport(), max_bytes=self.max_answer_bytes)
        http = httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(self.timeout_seconds))
        http_options: dict[str, Any] = {
            "timeout": max(1, round(self.timeout_seconds * 1000)),
            "httpx_async_client": http,
        }
        if self.access.base_url:
            http_options["base_url"] = self.access.base_url
        try:
            if self.access.api_key:
                return sdk.Client(api_key=self.access.api_key, http_options=http_options), http
            client = sdk.Client(project=self.access.project, location=self.access.location, http_options=http_options)
            return client, http
        except Exception as error:  # the SDK checks its arguments here
            reason = self.mask(describe_error(error))
            raise PlatformFailed(f"the evaluation client could not be set up: {reason}") from None

    async def _client(self) -> Any:
        """This loop's client (the SDK's async HTTP client belongs to one loop); the first one is made in a thread,
        as importing the SDK takes seconds the loop's other work should not wait for."""
        loop = asyncio.get_running_loop()
        lock = self._locks.setdefault(loop, asyncio.Lock())
        async with lock:
            if loop not in self._clients:
                self._clients[loop] = await asyncio.to_thread(self.make_client)
        return self._clients[loop][0]

    async def _resolve(self, client: Any, metric: ServiceMetric) -> Any:
        """The SDK's metric for ``metric`` (a published definition is read from Cloud Storage once, in a thread)."""
        if metric not in self._metrics:
            lazy = getattr(_client_types().PrebuiltMetric, metric.name)
            if metric.version:
                lazy = lazy(version=metric.version)
            if metric.parameters:
                lazy = lazy(metric_spec_parameters=json.loads(metric.parameters))
            try:
                self._metrics[metric] = await asyncio.to_thread(lazy.resolve, api_client=client._api_client)
            except Exception as error:
                cause = error.__cause__ or error
                raise PlatformFailed(
                    f"metric {metric} could not be resolved: {self.mask(describe_error(cause))}",
                    infrastructure=is_retryable(cause),
                ) from None
        return self._metrics[metric]

    async def _ask(self, client: Any, metric: Any, instance: Any) -> InstanceResult:
        if self._failures_in_a_row >= self.breaker_limit:
            self.counters.failed += 1
            raise PlatformFailed(
                f"{self._last_failure} (no more requests after {self._failures_in_a_row} failures in a row)",
                infrastructure=self._last_failure.infrastructure,
            )
        request = {"metrics": [metric], "instance": instance, "autorater_config": _autorater_config(metric)}
        response = await retried(
            self,
            lambda: asyncio.wait_for(
                client.aio.evals.evaluate_instances(metric_config=request), timeout=self.timeout_seconds + 5
            ),
            quota=_QUOTA,
            give_up=self._failed,
            spent=PlatformFailed,
            final=(AnswerTooLarge, EncodedAnswer),
        )
        self._failures_in_a_row = 0
        return _read_answer(response)

    def _failed(self, tries: int, error: BaseException, refused_wait: str | None) -> PlatformFailed:
        """The request is given up: ``refused_wait`` says why when the service asked for a longer wait than the gate
        makes. Given up on a rate limit, the metric is not evaluated (a quota, not an outage) and the quota is spent
        for the run (``judge.quota``)."""
        self.counters.failed += 1
        transient = is_retryable(error) and not isinstance(error, (AnswerTooLarge, EncodedAnswer))
        what = _what(error)
        if status_of(error) in {401, 403}:
            what += " (check the API key, or the project's permissions and Application Default Credentials)"
        reason = f"the evaluation service failed after {tries} {'try' if tries == 1 else 'tries'}: {self.mask(what)}"
        if refused_wait:
            reason += f"; {refused_wait}, so it was not asked again"
        limited = transient and rate_limited(status_of(error), refused_wait)
        if limited:
            reason += self.quota.open(_QUOTA, reason)
        failure = PlatformFailed(reason, infrastructure=transient and not limited)
        if transient or status_of(error) in {401, 403, 404}:  # not caused by this instance
            self._failures_in_a_row += 1
            self._last_failure = failure
        return failure

    async def aclose(self) -> None:
        """Closes the client of the running loop (and forgets the clients of loops that are gone)."""
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        self._locks.pop(loop, None)
        self._clients = {other: c for other, c in self._clients.items() if not other.is_closed()}
        if client is not None:
            sdk_client, http = client
            await sdk_client.aio.aclose()
            await http.aclose()
            del client, sdk_client  # google-genai's client closes itself again when collected, in a task of the
            await asyncio.sleep(0)  # running loop: let that task run in this loop rather than be left pending


def _client_types() -> Any:
    return _sdk().types


def _what(error: BaseException) -> str:
    """One line about a failed request; an answer that is not the service's JSON said as such."""
    if isinstance(error, (AnswerTooLarge, EncodedAnswer)):
        return str(error)
    if isinstance(error, json.JSONDecodeError):
        return f"its answer is not JSON ({error.msg} at character {error.pos})"
    if isinstance(error, pydantic.ValidationError):
        where, message = first_error(error)
        return f"its answer does not have the service's shape ({where}: {message})"
    return describe_error(error)

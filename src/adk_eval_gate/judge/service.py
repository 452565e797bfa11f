"""The judge as the metrics see it: ask a question, get an answer text, with the run's shared rate limit,
retries, cache and counters behind it.

``ask`` either returns the model's text (possibly one that cannot be parsed: the metric decides) or raises
``JudgeFailed`` once the fixed number of tries is used up; a failure never becomes an answer.

An answer is masked (``mask``: the console's, every secret of the environment) as soon as it arrives and again as it
comes from the cache: a judge can quote a key it saw, and the cache folder is restored where no secret is (a fork's
pull request). Its token counts are held to ``model.tokens.token_count``, and an answer whose counts were not counts
is counted and said once per model (``warn``). The waits between tries go through ``sleep`` and ``clock``.
"""

from __future__ import annotations

import asyncio
import contextvars
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from google.genai import types as genai_types

from adk_eval_gate.judge.cache import JudgeCache, cache_key
from adk_eval_gate.judge.gemini_client import ModelAnswer, config_fingerprint, request_config
from adk_eval_gate.judge.http_guard import JudgeAnswerRefused
from adk_eval_gate.judge.judge_retry import (
    JUDGE_RETRY,
    JudgeRetry,
    describe_error,
    is_retryable,
    status_of,
)
from adk_eval_gate.judge.limiter import JudgeLimiter
from adk_eval_gate.judge.quota import QuotaBreaker, rate_limited
from adk_eval_gate.judge.retried_calls import retried
from adk_eval_gate.model.eval_config import JudgeModelOptions
from adk_eval_gate.model.tokens import MAX_CALL_TOKENS, Tokens, call_counts, plausible_usage, tokens_of


class JudgeFailed(Exception):
    """The judge gave no answer after every try; the message says why.

    ``infrastructure``: the judge service failed (5xx, timeouts, dropped connections after every retry), as opposed
    to a problem of the configuration (a bad key, an unknown model, a bad request) or a spent quota (``judge.quota``).
    """

    def __init__(self, message: str, *, infrastructure: bool = False) -> None:
        super().__init__(message)
        self.infrastructure = infrastructure


SCORED_RUN: contextvars.ContextVar[int] = contextvars.ContextVar("scored_run", default=1)
"""The run of the case being scored (``execute`` sets it): part of the cache key, so that a re-run
(``--num-runs``, ``--confirm-failures``) gets fresh judge samples instead of the answers of run 1, while the same
run of a later command is still answered from the cache."""


class JudgeBackend(Protocol):
    async def generate(self, *, model: str, config: genai_types.GenerateContentConfig, prompt: str) -> ModelAnswer:
        """One request, no retries."""
        ...

    async def aclose(self) -> None: ...


@dataclass
class JudgeCounters:
    calls: int = 0  # requests sent to the model, retries included
    cached: int = 0  # answers served from the cache
    failed: int = 0  # questions left without an answer (tries used up, or the judge already known down)
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    implausible_counts: int = 0  # answers whose token counts were not counts (negative, or beyond any model)
    model_calls: list[Tokens] = field(default_factory=list)  # every answered request's counts, for the cost


def _as_is(text: str) -> str:
    return text


class JudgeService:
    def __init__(  # parameters: the model, credentials, limits, cache and counters, each keyword-only
        self,
        *,
        backend: JudgeBackend | None,
        unavailable: str | None = None,
        parallelism: int = 8,
        cache: JudgeCache | None = None,
        retry: JudgeRetry = JUDGE_RETRY,
        rng: random.Random | None = None,
        description: str = "",
        breaker_limit: int = 3,
        mask: Callable[[str], str] = _as_is,
        warn: Callable[[str], None] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if backend is None and unavailable is None:
            raise ValueError("a judge service needs a backend or the reason it has none")
        self.backend = backend
        self.unavailable = unavailable
        self.limiter = JudgeLimiter(parallelism, clock=clock, sleep=sleep)
        self.cache = cache
        self.retry = retry
        self.rng = rng or random.Random()
        self.description = description
        self.counters = JudgeCounters()
        self.quota = QuotaBreaker()
        self.breaker_limit = breaker_limit
        self.mask = mask
        self.warn = warn
        self.sleep = sleep
        self._failures_in_a_row = 0
        self._last_failure = ""
        self._last_failure_infrastructure = False
        self._pending: dict[str, asyncio.Future[str]] = {}
        self._implausible_said: set[str] = set()

    async def ask(self, *, options: JudgeModelOptions, prompt: str, sample: int = 0) -> str:
        if self.backend is None:
            raise JudgeFailed(self.unavailable or "no judge")
        config = request_config(options.judge_model_config)
        if self.cache is None:
            return (await self._call(model=options.judge_model, config=config, prompt=prompt)).text
        key = cache_key(
            provider=self._provider(options.judge_model),
            model=options.judge_model,
            config=config_fingerprint(config),
            prompt=prompt,
            sample=sample,
            run=SCORED_RUN.get(),
        )
        hit = self.cache.get(key)
        if hit is not None:
            self.counters.cached += 1
            return self.mask(hit.text)  # an entry written elsewhere (or by an older version) may hold a secret
        pending = self._pending.get(key)
        if pending is not None:  # the same question is on its way: share its answer
            text = await asyncio.shield(pending)
            self.counters.cached += 1
            return text
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            answer = await self._call(model=options.judge_model, config=config, prompt=prompt)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as error:
            future.set_exception(error)
            future.exception()  # retrieved here, so an unshared failure is not logged as unhandled
            raise
        finally:
            self._pending.pop(key, None)
        if answer.text:
            self.cache.put(key, answer)
        future.set_result(answer.text)
        return answer.text

    def _provider(self, model: str) -> str:
        """Who answers ``model``: ``gemini`` for google-genai, else ADK's class (part of the cache key)."""
        provider = getattr(self.backend, "provider", None)
        return str(provider(model)) if callable(provider) else "gemini"

    async def _call(self, *, model: str, config: genai_types.GenerateContentConfig, prompt: str) -> ModelAnswer:
        backend = self.backend
        assert backend is not None
        quota = f"{model} ({self._provider(model)})"
        if self._failures_in_a_row >= self.breaker_limit:
            self.counters.failed += 1
            raise JudgeFailed(
                f"{self._last_failure} (no more judge calls after {self._failures_in_a_row} failures in a row)",
                infrastructure=self._last_failure_infrastructure,
            )
        answer = await retried(
            self,
            lambda: backend.generate(model=model, config=config, prompt=prompt),
            quota=quota,
            give_up=lambda tries, error, refused_wait: self._failed(model, tries, error, refused_wait, quota=quota),
            spent=JudgeFailed,
        )
        self._failures_in_a_row = 0
        return self._counted(model, answer)

    def _counted(self, model: str, answer: ModelAnswer) -> ModelAnswer:
        """``answer`` masked, with counts that are counts; its counts added to the run's."""
        usage, implausible = plausible_usage(answer.usage)
        if implausible:
            self.counters.implausible_counts += 1
            if self.warn is not None and model not in self._implausible_said:
                self._implausible_said.add(model)
                self.warn(
                    f"the judge {model} reported {', '.join(implausible)} tokens for an answer: impossible for one "
                    f"call (0 to {MAX_CALL_TOKENS:,}), so clamped to that; results.json counts such answers "
                    "(judge.implausible_counts)"
                )
            input_tokens, output_tokens = call_counts(usage)
            answer = replace(answer, input_tokens=input_tokens, output_tokens=output_tokens, usage=usage)
        self.counters.input_tokens += answer.input_tokens
        self.counters.output_tokens += answer.output_tokens
        self.counters.model_calls.append(tokens_of(model, answer.usage))
        return replace(answer, text=self.mask(answer.text))

    def _failed(
        self, model: str, tries: int, error: BaseException, refused_wait: str | None, *, quota: str
    ) -> JudgeFailed:
        """The question is given up: ``refused_wait`` says why when the server asked for a longer wait than the judge
        makes. Given up on a rate limit, the question is not evaluated (a quota, not an outage) and the quota is
        spent for the run (``judge.quota``)."""
        self.counters.failed += 1
        reason = self._failure(model, tries, error)
        if refused_wait:
            reason += f"; {refused_wait}, so it was not asked again"
        limited = is_retryable(error) and rate_limited(_status(error), refused_wait)
        if limited:
            reason += self.quota.open(quota, reason)
        infrastructure = is_retryable(error) and not limited
        # not caused by this prompt: the server's state, the key, the model name, the endpoint
        if is_retryable(error) or _status(error) in {401, 403, 404} or isinstance(error, JudgeAnswerRefused):
            self._failures_in_a_row += 1
            self._last_failure = reason
            self._last_failure_infrastructure = infrastructure
        return JudgeFailed(reason, infrastructure=infrastructure)

    def _failure(self, model: str, tries: int, error: BaseException) -> str:
        what = self.mask(describe_error(error))
        if _status(error) in {401, 403}:
            what += " (check the judge API key or project permissions)"
        elif _status(error) == 404:
            what += f" (is {model!r} a model the judge backend offers?)"
        plural = "try" if tries == 1 else "tries"
        return f"judge {model} failed after {tries} {plural}: {what}"

    async def aclose(self) -> None:
        if self.backend is not None:
            await self.backend.aclose()


_status = status_of

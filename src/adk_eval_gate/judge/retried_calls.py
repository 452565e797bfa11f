"""One retry loop for the services that judge (the LLM judge, Google's evaluation service): each call waits its
turn behind a rate limit another call is retrying (``quota``), takes a slot of the shared limit, and a transient
failure is tried again after ``JudgeRetry``'s wait, a rate limit or a server's ``Retry-After`` pausing every call;
a call given up is the service's own failure (``give_up``)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from adk_eval_gate.judge.judge_retry import JudgeRetry, server_delay, status_of
from adk_eval_gate.judge.limiter import JudgeLimiter
from adk_eval_gate.judge.quota import QuotaBreaker

Answer = TypeVar("Answer")


class CallCounts(Protocol):
    calls: int
    retries: int
    failed: int


class RetriedService(Protocol):
    """What the loop reads on the service at each call (tests may replace its ``limiter``)."""

    limiter: JudgeLimiter
    retry: JudgeRetry
    quota: QuotaBreaker
    rng: random.Random
    sleep: Callable[[float], Awaitable[None]]

    @property
    def counters(self) -> CallCounts: ...


async def retried(
    service: RetriedService,
    send: Callable[[], Awaitable[Answer]],
    *,
    quota: str,
    give_up: Callable[[int, Exception, str | None], Exception],
    spent: Callable[[str], Exception],
    final: tuple[type[Exception], ...] = (),
) -> Answer:
    """``send``'s answer, tried again while ``service.retry`` allows. ``give_up``: the failure raised with the
    tries made, the last error and why a wait the server asked for was refused; ``spent``: the failure raised when
    ``quota`` is spent for the run; ``final``: errors never tried again."""
    tries = 0
    retrying: asyncio.Lock | None = None  # held while this call retries a rate limit: the others wait for it
    try:
        while True:
            if retrying is None:
                await service.quota.wait_turn(quota)
            if reason := service.quota.spent(quota):
                service.counters.failed += 1
                raise spent(reason)
            try:
                async with service.limiter.slot():
                    if retrying is None and service.quota.busy(quota):  # it waited for a slot meanwhile
                        continue
                    tries += 1
                    service.counters.calls += 1
                    answer = await send()
            except Exception as error:
                stop, refused_wait = service.retry.give_up(error, tries)
                if stop or isinstance(error, final):
                    raise give_up(tries, error, refused_wait) from None
                if retrying is None and status_of(error) == 429:
                    retrying = await service.quota.retrying(quota)
                    if service.quota.spent(quota):  # the call it waited for gave up: so does this one
                        continue
                delay = service.retry.delay(error, tries, service.rng)
                if server_delay(error) is not None or status_of(error) == 429:
                    service.limiter.pause(delay)  # the quota is shared: every call waits it out
                service.counters.retries += 1
                await service.sleep(delay)
                continue
            return answer
    finally:
        if retrying is not None:
            retrying.release()

"""One rate limit for every judge call of a run: at most N requests in flight, and a shared pause.

When the server answers 429 with a wait, every caller waits it out before its next request, not only the
one that got the 429 (the quota is shared, so the others would get 429 too). Its time and its waits are the
service's (``clock``, ``sleep``), so tests drive them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager


class JudgeLimiter:
    def __init__(
        self,
        parallelism: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if parallelism < 1:
            raise ValueError("judge parallelism must be at least 1")
        self.parallelism = parallelism
        self.clock = clock
        self.sleep = sleep
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._resume_at = 0.0
        self.in_flight = 0
        self.max_in_flight = 0

    def _slots(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:  # a new asyncio.run gets fresh slots
            self._semaphore = asyncio.Semaphore(self.parallelism)
            self._loop = loop
        return self._semaphore

    def pause(self, seconds: float) -> None:
        """Nobody starts a request for ``seconds`` from now (extends, never shortens, a pause)."""
        self._resume_at = max(self._resume_at, self.clock() + max(seconds, 0.0))

    async def _wait_for_pause(self) -> None:
        while (remaining := self._resume_at - self.clock()) > 0:
            await self.sleep(remaining)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Held for the duration of one HTTP request (not while backing off)."""
        await self._wait_for_pause()
        async with self._slots():
            await self._wait_for_pause()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                yield
            finally:
                self.in_flight -= 1

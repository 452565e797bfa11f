"""A spent quota is spent for the run: the circuit breaker of the judge and of Google's evaluation service.

Once a call gives up on a rate limit (429 or RESOURCE_EXHAUSTED after every try, or a wait asked beyond what the
gate waits), later calls to the same provider and model fail at once with that reason and send nothing. While one
call is retrying a rate limit, the other calls to the same provider and model wait for its outcome rather than
retry on their own: a run against an exhausted quota ends within one call's retry budget (and the first tries that
were already under way), however many cases and samples it has.

One breaker per service, and one service per run (``runners/services.py``): every judge call of a run is made in
the gate's own process, never in a worker process, so the breaker holds for the whole run.
"""

from __future__ import annotations

import asyncio


class QuotaBreaker:
    def __init__(self) -> None:
        self._spent: dict[str, str] = {}
        self._turns: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Lock] = {}

    def spent(self, key: str) -> str | None:
        """Why a call to ``key`` (a provider and model) is not attempted, or None while its quota may still answer."""
        reason = self._spent.get(key)
        if reason is None:
            return None
        return f"not attempted: the quota of {key} ran out earlier in this run ({reason})"

    def open(self, key: str, reason: str) -> str:
        """Records that ``key``'s quota is spent because of ``reason`` (the call that gave up); returns what that
        call's reason adds."""
        self._spent.setdefault(key, reason)
        return f"; the quota of {key} is spent for this run, so later calls to it are not attempted"

    def _turn(self, key: str) -> asyncio.Lock:
        loop = asyncio.get_running_loop()  # an asyncio lock belongs to one loop (pytest can bring several)
        return self._turns.setdefault((loop, key), asyncio.Lock())

    def busy(self, key: str) -> bool:
        """Whether a call is retrying a rate limit of ``key`` (then the others send nothing until it is done)."""
        return self._turn(key).locked()

    async def wait_turn(self, key: str) -> None:
        """Returns once no call is retrying a rate limit of ``key``."""
        turn = self._turn(key)
        if turn.locked():
            async with turn:
                pass

    async def retrying(self, key: str) -> asyncio.Lock:
        """The right to retry a rate limit of ``key`` (waits while another call holds it); release it when done."""
        turn = self._turn(key)
        await turn.acquire()
        return turn


def rate_limited(status: int | None, refused_wait: str | None) -> bool:
    """Whether a call that was given up was given up on the quota: a 429 after every try, or a wait refused."""
    return status == 429 or refused_wait is not None

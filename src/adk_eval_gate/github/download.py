"""The error of a GitHub call, and what downloads share: the budget of the optional ones (one deadline for all of
them together and a minimum rate for each), and reading a body as it arrives, capped in size."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import requests

from adk_eval_gate.support.errors import GateError

OPTIONAL_DEADLINE = 30.0  # seconds for every optional download of a lookup together
MIN_OPTIONAL_RATE = 16 * 1024.0  # bytes per second an optional download must average once RATE_GRACE passed
RATE_GRACE = 5.0  # seconds of a download before its rate counts: a connection's slow start is no trickle


class GitHubError(GateError):
    """A GitHub API call failed (after retries)."""

    status: int | None = None


class ArtifactTooLarge(GitHubError):
    """An artifact is larger than allowed: what it holds cannot be used, whoever asks again."""


class OptionalDownloadStopped(GitHubError):
    """An optional download was given up: too slow, or the time of the optional downloads is spent."""


@dataclass
class DownloadBudget:
    """Downloads the caller can do without: ``seconds`` for all of them together, from the first one on, and at
    least ``min_rate`` bytes per second for each once ``grace`` seconds of it passed."""

    seconds: float
    min_rate: float
    grace: float
    clock: Callable[[], float]
    started: float | None = None

    def remaining(self) -> float:
        now = self.clock()
        if self.started is None:
            self.started = now
        return self.seconds - (now - self.started)

    def spent(self) -> OptionalDownloadStopped:
        return OptionalDownloadStopped(f"not downloaded: optional downloads have {self.seconds:g} s in all, now spent")

    def check_rate(self, received: int, *, since: float) -> None:
        """Raises ``OptionalDownloadStopped`` when the download that began at ``since`` is slower than allowed."""
        elapsed = self.clock() - since
        if elapsed >= self.grace and received < self.min_rate * elapsed:
            raise OptionalDownloadStopped(
                f"the download averaged {received / elapsed:,.0f} bytes/s over {elapsed:.0f} s, under the "
                f"{self.min_rate:,.0f} bytes/s an optional download must keep"
            )


def read_capped(
    response: requests.Response, *, max_bytes: int, stop: threading.Event, budget: DownloadBudget | None
) -> bytes:
    """The body, read as it arrives (one network read per call, so ``stop`` is seen soon), at most ``max_bytes``;
    at the budget's minimum rate, if any."""
    read1 = getattr(response.raw, "read1", None)  # urllib3 2; 1.x reads through iter_content
    chunks = iter(lambda: read1(1 << 16, decode_content=True) or b"", b"") if read1 else response.iter_content(1 << 16)
    received, total = [], 0
    since = budget.clock() if budget is not None else 0.0
    for chunk in chunks:
        if stop.is_set():
            raise GitHubError("the artifact download was abandoned")
        total += len(chunk)
        if total > max_bytes:
            raise ArtifactTooLarge(f"the artifact is more than the {max_bytes} bytes allowed")
        received.append(chunk)
        if budget is not None:
            budget.check_rate(total, since=since)
    return b"".join(received)

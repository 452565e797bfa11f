"""A thin GitHub REST client on ``requests``: timeouts, pagination, retries, and errors that say what to do.

Retries (``GITHUB_RETRY``): transient answers (``retry.transient_status``) and connection failures with
exponential backoff; primary rate limits (``x-ratelimit-
remaining: 0``) until ``x-ratelimit-reset``; secondary rate limits (403/429 with ``Retry-After`` or GitHub's
"secondary rate limit" message) after ``Retry-After`` (60 s when absent, as GitHub's docs advise). All waiting
together is capped (``max_wait``): past it the call fails with the rate-limit error instead of stalling CI.

A download the caller can do without (an older run's results) goes under a ``DownloadBudget``: one deadline for
all such downloads together and a minimum rate for each, so that a storage host that trickles costs seconds of
the run, not minutes.

401, 403 and 404 become ``GitHubError`` lines naming the permission the workflow needs. The token is sent
only to the API host; it is never logged (``Console`` masks it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pydantic
import requests
import urllib3

from adk_eval_gate import __version__
from adk_eval_gate.github.api_models import Answer
from adk_eval_gate.github.download import (
    MIN_OPTIONAL_RATE,
    OPTIONAL_DEADLINE,
    RATE_GRACE,
    ArtifactTooLarge,
    DownloadBudget,
    GitHubError,
    OptionalDownloadStopped,
    read_capped,
)
from adk_eval_gate.report import limits
from adk_eval_gate.support.pydantic_errors import first_error
from adk_eval_gate.support.retry import Backoff, retry_after_seconds, transient_status

API_VERSION = "2022-11-28"
GITHUB_RETRY = Backoff(attempts=4, initial=1.0, maximum=30.0)
AnswerT = TypeVar("AnswerT", bound=Answer)
RATE_LIMIT_WAIT = limits.SECONDARY_RATE_LIMIT_WAIT
DOWNLOAD_DEADLINE = 120.0  # seconds for a whole artifact download, its retries included (not per read)


class GitHubPermissionError(GitHubError):
    """401 or 403: the token is missing, invalid, or may not do this (e.g. a fork's read-only token)."""


class GitHubNotFound(GitHubError):
    """404: the repository, pull request or artifact does not exist, or the token cannot see it."""


class RateLimited(GitHubError):
    """Waiting for the rate limit would take longer than allowed."""


class _Bearer(requests.auth.AuthBase):
    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self._token}"
        return request


def _error_message(response: requests.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.reason or ""
    return str(data.get("message", "")) if isinstance(data, dict) else ""


class GitHubClient:
    def __init__(  # parameters: the endpoint, token, limits and transport, each keyword-only
        self,
        *,
        api_url: str,
        token: str,
        timeout: float = 30.0,
        retry: Backoff = GITHUB_RETRY,
        max_wait: float = 120.0,
        download_deadline: float = DOWNLOAD_DEADLINE,
        optional_deadline: float = OPTIONAL_DEADLINE,
        min_optional_rate: float = MIN_OPTIONAL_RATE,
        rate_grace: float = RATE_GRACE,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout
        self.retry = retry
        self.max_wait = max_wait
        self.download_deadline = download_deadline
        self.optional_deadline = optional_deadline
        self.min_optional_rate = min_optional_rate
        self.rate_grace = rate_grace
        self.waited = 0.0
        self._sleep = sleep
        self._clock = clock
        self._session = session or requests.Session()  # proxies from the environment still apply
        self._auth = _Bearer(token)  # an explicit auth: a ~/.netrc entry can never replace the token
        self._headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"adk-eval-gate/{__version__}",
        }

    def close(self) -> None:
        self._session.close()

    # -- calls: each answer is validated into the model the caller names ------------------------------------
    def get(
        self, path: str, answer: type[AnswerT], *, params: dict[str, Any] | None = None, permission: str | None = None
    ) -> AnswerT:
        return self._answer(self.request("GET", path, params=params, permission=permission), answer)

    def post(self, path: str, answer: type[AnswerT], *, json: dict[str, Any], permission: str | None = None) -> AnswerT:
        return self._answer(self.request("POST", path, json=json, permission=permission), answer)

    def patch(
        self, path: str, answer: type[AnswerT], *, json: dict[str, Any], permission: str | None = None
    ) -> AnswerT:
        return self._answer(self.request("PATCH", path, json=json, permission=permission), answer)

    def paginate(
        self,
        path: str,
        answer: type[AnswerT],
        *,
        params: dict[str, Any] | None = None,
        key: str | None = None,
        permission: str | None = None,
        max_pages: int = 50,
    ) -> Iterator[AnswerT]:
        """Every item of a list endpoint, following ``Link: rel="next"`` (``key``: the list inside an object).

        An item of another shape is skipped: one odd entry must not hide the others.
        """
        url: str | None = path
        query: dict[str, Any] | None = {"per_page": 100, **(params or {})}
        for _ in range(max_pages):
            if url is None:
                return
            response = self.request("GET", url, params=query, permission=permission)
            data = self._json(response)
            items = data.get(key, []) if key and isinstance(data, dict) else data
            for item in items if isinstance(items, list) else []:
                try:
                    yield answer.model_validate(item)
                except pydantic.ValidationError:
                    continue
            url = response.links.get("next", {}).get("url")
            query = None  # the next link carries the query

    def redirect_location(self, path: str, *, permission: str | None = None) -> str:
        """The ``Location`` of a 302 answer (artifact downloads), without following it."""
        response = self.request("GET", path, permission=permission, allow_redirects=False)
        location = response.headers.get("Location")
        if response.status_code not in (301, 302, 303, 307, 308) or not location:
            raise GitHubError(f"GitHub answered {response.status_code} without a download location for {path}")
        return location

    def optional_downloads(self) -> DownloadBudget:
        """A budget for the downloads of one lookup that the caller can do without (``download(budget=...)``)."""
        return DownloadBudget(self.optional_deadline, self.min_optional_rate, self.rate_grace, self._clock)

    def download(self, url: str, *, max_bytes: int, budget: DownloadBudget | None = None) -> bytes:
        """GET a pre-signed storage URL WITHOUT our token (it must not leak to the storage host), capped in size
        and in time: the whole download, retries included, ends within ``download_deadline`` seconds, and an
        optional one (``budget``) within what is left of its budget and at its minimum rate."""
        if not url.startswith(("https://", "http://")):
            raise GitHubError("the artifact download location is not an http(s) URL")
        deadline = self.download_deadline
        if budget is not None:
            remaining = budget.remaining()
            if remaining <= 0:
                raise budget.spent()
            deadline = min(deadline, remaining)
        outcome: list[bytes | BaseException] = []
        stop = threading.Event()

        def fetch() -> None:
            try:
                outcome.append(self._fetch(url, max_bytes=max_bytes, stop=stop, budget=budget))
            except BaseException as error:  # handed to the caller's thread
                outcome.append(error)

        worker = threading.Thread(target=fetch, name="adk-eval-gate-download", daemon=True)
        worker.start()
        worker.join(deadline)
        if not outcome:
            stop.set()  # the thread gives up at its next read
            if budget is not None and deadline < self.download_deadline:
                raise OptionalDownloadStopped(
                    f"the download did not finish within the {budget.seconds:g} s optional downloads have in all"
                )
            raise GitHubError(f"the artifact download did not finish within {deadline:g} s")
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        return outcome[0]

    def _fetch(self, url: str, *, max_bytes: int, stop: threading.Event, budget: DownloadBudget | None) -> bytes:
        for attempt in range(1, self.retry.attempts + 1):
            try:
                with requests.get(
                    url, stream=True, timeout=self.timeout, headers={"User-Agent": "adk-eval-gate"}
                ) as got:
                    if transient_status(got.status_code) and attempt < self.retry.attempts:
                        self._wait(self.retry.delay(attempt), reason="artifact download", response=got)
                        continue
                    if got.status_code != 200:
                        raise GitHubError(f"the artifact storage answered {got.status_code}")
                    declared = got.headers.get("Content-Length")
                    if declared and declared.isdigit() and int(declared) > max_bytes:
                        raise ArtifactTooLarge(
                            f"the artifact is {int(declared)} bytes, more than the {max_bytes} allowed"
                        )
                    return read_capped(got, max_bytes=max_bytes, stop=stop, budget=budget)
            except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as error:
                if attempt >= self.retry.attempts or stop.is_set():
                    raise GitHubError(f"cannot download the artifact: {type(error).__name__}") from None
                self._wait(self.retry.delay(attempt), reason="artifact download")
        raise GitHubError("cannot download the artifact")

    # -- the one place requests are sent -------------------------------------------------------------------
    def url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else f"{self.api_url}/{path.lstrip('/')}"

    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: dict[str, Any] | None = None,
        permission: str | None = None,
        allow_redirects: bool = True,
    ) -> requests.Response:
        url = self.url(path)
        if not url.startswith(self.api_url + "/"):
            raise GitHubError(f"refusing to send the token to {url.split('?')[0]}: it is not the API at {self.api_url}")
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    json=json,
                    headers=self._headers,
                    auth=self._auth,
                    timeout=self.timeout,
                    allow_redirects=allow_redirects,
                )
            except requests.RequestException as error:
                if attempt >= self.retry.attempts:
                    raise GitHubError(f"cannot reach GitHub at {self.api_url}: {type(error).__name__}") from None
                self._wait(self.retry.delay(attempt), reason=f"{method} {path}")
                continue
            delay = self._retry_delay(response, attempt)
            if delay is None:
                break
            self._wait(delay, reason=f"{method} {path}", response=response)
        if response.status_code >= 400:
            raise self._failure(method, path, response, permission)
        return response

    def _retry_delay(self, response: requests.Response, attempt: int) -> float | None:
        status = response.status_code
        if status not in (403, 429):
            return self.retry.delay(attempt) if transient_status(status) and attempt < self.retry.attempts else None
        if response.headers.get("Retry-After") is not None:
            asked = retry_after_seconds(response.headers)
            return RATE_LIMIT_WAIT if asked is None else asked
        if response.headers.get("x-ratelimit-remaining") == "0":
            reset = response.headers.get("x-ratelimit-reset")
            try:
                return max(0.0, float(reset or 0) - self._clock()) + 1.0
            except ValueError:
                return RATE_LIMIT_WAIT
        if "secondary rate limit" in _error_message(response).lower() or status == 429:
            return RATE_LIMIT_WAIT
        return None

    def _wait(self, seconds: float, *, reason: str, response: requests.Response | None = None) -> None:
        if self.waited + seconds > self.max_wait:
            if response is None:
                raise GitHubError(f"cannot reach GitHub at {self.api_url} ({reason})")
            if response.status_code in (403, 429):
                raise RateLimited(
                    f"GitHub's rate limit did not clear within {self.max_wait:.0f} s ({reason})",
                    hint="retry later, or run fewer jobs against the API at once",
                )
            raise GitHubError(f"GitHub answered {response.status_code} repeatedly to {reason}")
        self.waited += seconds
        self._sleep(seconds)

    def _failure(self, method: str, path: str, response: requests.Response, permission: str | None) -> GitHubError:
        status = response.status_code
        where = f"{method} {path.split('?', maxsplit=1)[0].replace(self.api_url, '')}"
        message = _error_message(response)
        detail = f": {message}" if message else ""
        hint: str | None
        if status in (401, 403):
            if status == 401:
                hint = "the token is missing, expired or invalid; pass github-token or set GITHUB_TOKEN"
            elif permission:
                hint = (
                    f"the workflow needs 'permissions: {permission}' (pull requests from forks get a read-only token)"
                )
            else:
                hint = "the token may not do this"
            error: GitHubError = GitHubPermissionError(f"GitHub refused {where} ({status}{detail})", hint=hint)
        elif status == 404:
            hint = f"or the token cannot see it; the workflow needs 'permissions: {permission}'" if permission else None
            error = GitHubNotFound(f"GitHub has no {where} (404{detail})", hint=hint)
        else:
            error = GitHubError(f"GitHub answered {status} to {where}{detail}")
        error.status = status
        return error

    def _answer(self, response: requests.Response, answer: type[AnswerT]) -> AnswerT:
        try:
            return answer.model_validate(self._json(response) or {})
        except pydantic.ValidationError as error:
            where, message = first_error(error)
            raise GitHubError(
                f"GitHub's answer to {response.request.method} {response.url} has an unexpected shape "
                f"({where}: {message})"
            ) from None

    @staticmethod
    def _json(response: requests.Response) -> Any:
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise GitHubError(
                f"GitHub sent an answer that is not JSON for {response.request.method} {response.url}"
            ) from None

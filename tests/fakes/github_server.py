"""A local fake of GitHub's REST API over real HTTP, checked against GitHub's OpenAPI description.

Every request the fake receives and every answer it gives is checked with openapi-core against
``github-rest-subset.openapi.json``; a mismatch is recorded in ``violations`` (and answered 422 when the request
itself is wrong), and the pytest fixture fails the test on any. Answers GitHub gives on every endpoint but
that the description does not list (a 502 from the gateway, a rate limit, a missing token) are injected as
"platform" answers: their requests are still checked.

Identity, as on github.com: a token starting with ``ghs_`` (the workflow's GITHUB_TOKEN, an installation token)
posts as ``github-actions[bot]`` and gets 403 from ``GET /user``; any other token is the user ``login``.

Command-line mode (for the container test)::

    python -m tests.fakes.github_server --port-file PATH --requests-log PATH \
        [--repository OWNER/NAME] [--pull-request N] [--login NAME]

binds 127.0.0.1 on a free port, writes the port to ``--port-file`` when ready and then prints
``listening on 127.0.0.1:PORT`` (what a caller that reads its output waits for), appends one JSON line per request
(``method``, ``path``, ``query``, ``body``, ``status``, ``violations``) to ``--requests-log``, and serves until
SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.fakes.github_objects import Artifact, Comment, Pull, WorkflowRun
from tests.fakes.github_openapi import Exchange, request_errors, response_errors
from tests.fakes.github_routes import (
    Answer,
    Context,
    Routes,
    api_handler,
    error,
    json_or_none,
    storage_handler,
    token_of,
)


@dataclass
class Fault:
    method: str
    path: re.Pattern[str]
    status: int
    headers: dict[str, str]
    body: dict[str, Any]
    times: int


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int
    authorization: str | None
    violations: list[str]

    def log_line(self) -> str:
        keys = ("method", "path", "query", "body", "status", "violations")
        return json.dumps({key: getattr(self, key) for key in keys}, sort_keys=True)


class FakeGitHub(Routes):
    """State and routes; ``start()`` serves the API (and a separate "storage" host for artifact zips)."""

    def __init__(
        self,
        *,
        repository: str = "octo/repo",
        pull_request: int = 7,
        base_ref: str = "main",
        head_sha: str = "c0ffee" * 6 + "c0ff",
        fork: bool = False,
        login: str = "octocat",
        base_path: str = "",
        requests_log: Path | None = None,
    ) -> None:
        self.repository = repository
        self.login = login
        self.base_path = base_path.rstrip("/")
        self.writable = True
        self.branch_filter_ignored = False  # list every branch's runs, whatever ?branch= asks for
        self.workflow_filter_ignored = False  # list every workflow's runs, whatever workflow the path names
        self.page_size_ignored = False  # answer every item in one page, whatever ?per_page= asks for
        self.requests_log = requests_log
        self.pulls: dict[int, Pull] = {}
        self.comments: dict[int, Comment] = {}
        self.runs: list[WorkflowRun] = []
        self.artifacts: dict[int, Artifact] = {}
        self.requests: list[Recorded] = []
        self.storage_requests: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self._ids = itertools.count(1001)
        self._clock = itertools.count(1)
        self._lock = threading.RLock()
        self._servers: list[ThreadingHTTPServer] = []
        self.add_pull_request(pull_request, base_ref=base_ref, head_sha=head_sha, fork=fork)

    # -- seeding -------------------------------------------------------------------------------------------
    def add_pull_request(self, number: int, *, base_ref: str = "main", head_sha: str, fork: bool = False) -> None:
        owner = "contributor" if fork else self.repository.split("/")[0]
        head_repo = f"{owner}/{self.repository.split('/')[1]}"
        self.pulls[number] = Pull(number=number, base_ref=base_ref, head_sha=head_sha, head_repo=head_repo)

    def add_comment(self, body: str, *, login: str, issue: int | None = None) -> int:
        with self._lock:
            comment_id = next(self._ids)
            issue_number = issue if issue is not None else next(iter(self.pulls))
            now = self._now()
            self.comments[comment_id] = Comment(comment_id, issue_number, body, login, created=now, updated=now)
            return comment_id

    def add_workflow_run(
        self,
        *,
        workflow: str = "eval.yml",
        branch: str = "main",
        event: str = "push",
        conclusion: str | None = "success",
        head_sha: str = "ba5e" + "0" * 36,
        artifacts: list[tuple[str, bytes]] | None = None,
        declared_sizes: dict[str, int] | None = None,
        pull_requests: list[int] | None = None,
        head_repository: str | None = None,
        head_repository_deleted: bool = False,
    ) -> int:
        with self._lock:
            run = WorkflowRun(
                id=next(self._ids),
                workflow=workflow,
                branch=branch,
                event=event,
                conclusion=conclusion,
                head_sha=head_sha,
                created=self._now(),
                pull_requests=pull_requests or [],
                head_repository=head_repository,
                head_repository_deleted=head_repository_deleted,
            )
            self.runs.append(run)
            for name, data in artifacts or []:
                size = (declared_sizes or {}).get(name, len(data))
                artifact = Artifact(id=next(self._ids), run_id=run.id, name=name, data=data, declared_size=size)
                self.artifacts[artifact.id] = artifact
            return run.id

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        *,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` and the ``path`` regex with ``status``."""
        message = body or {"message": f"injected {status}", "documentation_url": "https://docs.github.com/rest"}
        self.faults.append(Fault(method.upper(), re.compile(path), status, headers or {}, message, times))

    # -- observation ---------------------------------------------------------------------------------------
    def comments_on(self, issue: int) -> list[Comment]:
        with self._lock:
            return [c for c in self.comments.values() if c.issue == issue]

    def calls(self, method: str, pattern: str = "") -> list[Recorded]:
        return [r for r in self.requests if r.method == method.upper() and re.search(pattern, r.path)]

    def assert_clean(self) -> None:
        assert not self.violations, "GitHub OpenAPI mismatches:\n" + "\n".join(self.violations)

    # -- server --------------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._servers[0].server_address[1]}{self.base_path}"

    @property
    def storage_url(self) -> str:
        return f"http://127.0.0.1:{self._servers[1].server_address[1]}"

    @property
    def port(self) -> int:
        return int(self._servers[0].server_address[1])

    def start(self) -> FakeGitHub:
        for handler in (api_handler(self), storage_handler(self)):
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            server.daemon_threads = True
            # shutdown() waits for the loop's next poll: a short one keeps each test's teardown short
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.005}, daemon=True).start()
            self._servers.append(server)
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling ----------------------------------------------------------------------------------
    def _now(self) -> int:
        return next(self._clock)

    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: bytes, host: str) -> Answer:
        split = urlsplit(raw_path)
        path = split.path
        if self.base_path and path.startswith(self.base_path):
            path = path[len(self.base_path) :] or "/"
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        with self._lock:
            checked = Exchange(method, path, query, body, 0, b"", {})
            problems = request_errors(checked)
            if problems:
                answer = Answer(422, {"message": "Validation Failed", "documentation_url": "fake"}, platform=True)
            else:
                answer = self._answer(method, path, query=query, headers=headers, body=body, host=host)
            exchange = Exchange(
                method=method,
                path=path,
                query=query,
                body=body,
                status=answer.status,
                response_body=b"" if answer.body is None else json.dumps(answer.body).encode(),
                response_headers=answer.headers,
                off_description=answer.platform,
            )
            problems += response_errors(exchange)
            self.violations.extend(problems)
            record = Recorded(
                method=method,
                path=path,
                query=query,
                body=json_or_none(body),
                status=answer.status,
                authorization=headers.get("authorization"),
                violations=problems,
            )
            self.requests.append(record)
            if self.requests_log:
                with self.requests_log.open("a", encoding="utf-8") as log:
                    log.write(record.log_line() + "\n")
        return answer

    def _answer(
        self, method: str, path: str, *, query: dict[str, str], headers: dict[str, str], body: bytes, host: str
    ) -> Answer:
        for fault in self.faults:
            if fault.times > 0 and fault.method == method and fault.path.search(path):
                fault.times -= 1
                return Answer(fault.status, fault.body, dict(fault.headers), platform=True)
        token = token_of(headers.get("authorization"))
        if token is None:
            return Answer(401, error("Requires authentication"), platform=True)
        for route_method, pattern, handler in self._routes():
            match = pattern.fullmatch(path)
            if match and route_method == method:
                context = Context(query=query, body=json_or_none(body), token=token, host=host, path=path)
                return handler(context, **match.groupdict())
        return Answer(404, error("Not Found"), platform=True)

    # -- storage host ----------------------------------------------------------------------------------------
    def serve_blob(self, path: str, authorization: str | None) -> tuple[int, bytes | None]:
        """The status and the zip (None: an endless one) for a storage request."""
        with self._lock:
            self.storage_requests.append({"path": path, "authorization": authorization})
            match = re.fullmatch(r"/blobs/(\d+)\.zip", urlsplit(path).path)
            artifact = self.artifacts.get(int(match.group(1))) if match else None
            if artifact is None:
                return 404, b"no such blob"
            if authorization:  # like Azure blob storage: a signed URL plus a bearer token is an error
                return 400, b"<Error><Code>InvalidAuthenticationInfo</Code></Error>"
            return 200, None if artifact.endless else artifact.data


@dataclass
class _Stop:
    event: threading.Event = field(default_factory=threading.Event)

    def __call__(self, *_: object) -> None:
        self.event.set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.github_server", description=__doc__.split("\n")[0])
    parser.add_argument("--port-file", required=True, type=Path)
    parser.add_argument("--requests-log", required=True, type=Path)
    parser.add_argument("--repository", default="octo/repo")
    parser.add_argument("--pull-request", type=int, default=7)
    parser.add_argument("--login", default="octocat", help="the user a non-ghs_ token belongs to")
    args = parser.parse_args(argv)
    stop = _Stop()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    fake = FakeGitHub(
        repository=args.repository, pull_request=args.pull_request, login=args.login, requests_log=args.requests_log
    )
    args.requests_log.parent.mkdir(parents=True, exist_ok=True)
    args.requests_log.touch()
    with fake:
        partial = args.port_file.with_name(args.port_file.name + ".partial")
        partial.write_text(str(fake.port), encoding="utf-8")
        partial.replace(args.port_file)
        print(f"listening on 127.0.0.1:{fake.port}", flush=True)
        stop.event.wait()
    return 0


def iter_log(path: Path) -> Iterator[dict[str, Any]]:
    """The lines of a ``--requests-log`` file, parsed."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


if __name__ == "__main__":
    raise SystemExit(main())

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

binds 127.0.0.1 on a free port, writes the port to ``--port-file`` when ready, appends one JSON line per request
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from tests.fakes import github_objects as objects
from tests.fakes.github_objects import BOT_LOGIN, Artifact, Comment, Pull, WorkflowRun
from tests.fakes.github_openapi import Exchange, request_errors, response_errors


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


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    platform: bool = False


class FakeGitHub:
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
        for handler in (_api_handler(self), _storage_handler(self)):
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
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
                body=_json_or_none(body),
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
        token = _token(headers.get("authorization"))
        if token is None:
            return Answer(401, _error("Requires authentication"), platform=True)
        for route_method, pattern, handler in self._routes():
            match = pattern.fullmatch(path)
            if match and route_method == method:
                context = _Context(query=query, body=_json_or_none(body), token=token, host=host, path=path)
                return handler(context, **match.groupdict())
        return Answer(404, _error("Not Found"), platform=True)

    def _routes(self) -> list[tuple[str, re.Pattern[str], Callable[..., Answer]]]:
        repo = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
        table: list[tuple[str, str, Callable[..., Answer]]] = [
            ("GET", r"/user", self._get_user),
            ("GET", repo + r"/issues/(?P<number>\d+)/comments", self._list_comments),
            ("POST", repo + r"/issues/(?P<number>\d+)/comments", self._create_comment),
            ("PATCH", repo + r"/issues/comments/(?P<comment_id>\d+)", self._update_comment),
            ("GET", repo + r"/pulls/(?P<number>\d+)", self._get_pull),
            ("GET", repo + r"/actions/workflows/(?P<workflow>[^/]+)/runs", self._list_runs),
            ("GET", repo + r"/actions/runs/(?P<run_id>\d+)/artifacts", self._list_artifacts),
            ("GET", repo + r"/actions/artifacts/(?P<artifact_id>\d+)/(?P<archive>[^/]+)", self._download),
        ]
        return [(m, re.compile(p), h) for m, p, h in table]

    # -- routes --------------------------------------------------------------------------------------------
    def _known_repo(self, owner: str, name: str) -> bool:
        return f"{owner}/{name}".lower() == self.repository.lower()

    def _identity(self, token: str) -> str:
        return BOT_LOGIN if token.startswith("ghs_") else self.login

    def _get_user(self, ctx: _Context) -> Answer:
        if ctx.token.startswith("ghs_"):
            return Answer(403, _error("Resource not accessible by integration"))
        return Answer(200, objects.user(self.login))

    def _list_comments(self, ctx: _Context, owner: str, name: str, number: str) -> Answer:
        if not self._known_repo(owner, name) or int(number) not in self.pulls:
            return Answer(404, _error("Not Found"))
        items = [self._comment(c, ctx) for c in self.comments_on(int(number))]
        return self._page(items, ctx, lambda chunk: chunk)

    def _create_comment(self, ctx: _Context, owner: str, name: str, number: str) -> Answer:
        if not self._known_repo(owner, name) or int(number) not in self.pulls:
            return Answer(404, _error("Not Found"))
        if not self.writable:
            return Answer(403, _error("Resource not accessible by integration"))
        body = ctx.body if isinstance(ctx.body, dict) else {}
        comment_id = self.add_comment(str(body.get("body", "")), login=self._identity(ctx.token), issue=int(number))
        comment = self._comment(self.comments[comment_id], ctx)
        return Answer(201, comment, {"Location": comment["url"]})

    def _update_comment(self, ctx: _Context, owner: str, name: str, comment_id: str) -> Answer:
        stored = self.comments.get(int(comment_id))
        if not self._known_repo(owner, name) or stored is None:
            return Answer(404, _error("Not Found"), platform=True)
        if not self.writable:  # GitHub lets a token with write access edit anybody's comment: so does the fake
            return Answer(403, _error("Resource not accessible by integration"), platform=True)
        body = ctx.body if isinstance(ctx.body, dict) else {}
        stored.body = str(body.get("body", ""))
        stored.updated = self._now()
        return Answer(200, self._comment(stored, ctx))

    def _get_pull(self, ctx: _Context, owner: str, name: str, number: str) -> Answer:
        pull = self.pulls.get(int(number))
        if not self._known_repo(owner, name) or pull is None:
            return Answer(404, _error("Not Found"))
        obj = objects.pull_request(pull, repository=self.repository, api=ctx.api)
        return Answer(200, obj)

    def _list_runs(self, ctx: _Context, owner: str, name: str, workflow: str) -> Answer:
        if not self._known_repo(owner, name):
            return Answer(404, _error("Not Found"), platform=True)
        q = ctx.query
        runs = [
            run
            for run in sorted(self.runs, key=lambda r: r.created, reverse=True)
            if workflow in (run.workflow, str(run.id))
            and q.get("branch", run.branch) == run.branch
            and q.get("event", run.event) == run.event
            and q.get("head_sha", run.head_sha) == run.head_sha
            and q.get("status", run.status) in (run.status, run.conclusion)
        ]
        items = [
            objects.workflow_run(
                run,
                pulls=[self.pulls[n] for n in run.pull_requests if n in self.pulls],
                repository=self.repository,
                api=ctx.api,
            )
            for run in runs
        ]
        return self._page(items, ctx, lambda chunk: {"total_count": len(items), "workflow_runs": chunk})

    def _list_artifacts(self, ctx: _Context, owner: str, name: str, run_id: str) -> Answer:
        if not self._known_repo(owner, name):
            return Answer(404, _error("Not Found"), platform=True)
        wanted = ctx.query.get("name")
        found = [a for a in self.artifacts.values() if a.run_id == int(run_id) and wanted in (None, a.name)]
        items = [objects.artifact(a, repository=self.repository, api=ctx.api) for a in found]
        return self._page(items, ctx, lambda chunk: {"total_count": len(items), "artifacts": chunk})

    def _download(self, ctx: _Context, owner: str, name: str, artifact_id: str, archive: str) -> Answer:
        artifact = self.artifacts.get(int(artifact_id))
        if not self._known_repo(owner, name) or artifact is None or archive != "zip":
            return Answer(404, _error("Not Found"), platform=True)
        if artifact.expired:
            return Answer(410, _error("Artifact has expired"))
        location = f"{self.storage_url}/blobs/{artifact.id}.zip?sig=fake-signature"
        return Answer(302, None, {"Location": location})

    def _comment(self, comment: Comment, ctx: _Context) -> dict[str, Any]:
        return objects.comment(comment, repository=self.repository, api=ctx.api)

    def _page(self, items: list[Any], ctx: _Context, wrap: Callable[[list[Any]], Any]) -> Answer:
        per_page = max(1, min(100, int(ctx.query.get("per_page") or 30)))
        page = max(1, int(ctx.query.get("page") or 1))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        rels = [("next", page + 1), ("last", last)] if page < last else []
        rels += [("prev", page - 1), ("first", 1)] if page > 1 else []
        links = ", ".join(f'<{ctx.page_url(number)}>; rel="{rel}"' for rel, number in rels)
        headers = {"Link": links} if links else {}
        return Answer(200, wrap(chunk), headers)

    # -- storage host ----------------------------------------------------------------------------------------
    def serve_blob(self, path: str, authorization: str | None) -> tuple[int, bytes]:
        with self._lock:
            self.storage_requests.append({"path": path, "authorization": authorization})
            match = re.fullmatch(r"/blobs/(\d+)\.zip", urlsplit(path).path)
            artifact = self.artifacts.get(int(match.group(1))) if match else None
            if artifact is None:
                return 404, b"no such blob"
            if authorization:  # like Azure blob storage: a signed URL plus a bearer token is an error
                return 400, b"<Error><Code>InvalidAuthenticationInfo</Code></Error>"
            return 200, artifact.data


@dataclass
class _Context:
    query: dict[str, str]
    body: Any
    token: str
    host: str
    path: str

    @property
    def api(self) -> str:
        return f"http://{self.host}"

    def page_url(self, page: int) -> str:
        return f"{self.api}{self.path}?" + urlencode({**self.query, "page": str(page)})


def _token(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() in {"bearer", "token"} and value.strip() else None


def _error(message: str) -> dict[str, str]:
    return {"message": message, "documentation_url": "https://docs.github.com/rest"}


def _json_or_none(body: bytes) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")


def _api_handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            host = f"127.0.0.1:{fake.port}{fake.base_path}"
            answer = fake.handle(self.command, self.path, headers, body, host)
            payload = b"" if answer.body is None else json.dumps(answer.body).encode()
            self.send_response(answer.status)
            for key, value in answer.headers.items():
                self.send_header(key, value)
            if payload:
                self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def do_PATCH(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _storage_handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, data = fake.serve_blob(self.path, self.headers.get("Authorization"))
            self.send_response(status)
            self.send_header("Content-Type", "application/zip" if status == 200 else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


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
        stop.event.wait()
    return 0


def iter_log(path: Path) -> Iterator[dict[str, Any]]:
    """The lines of a ``--requests-log`` file, parsed."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


if __name__ == "__main__":
    raise SystemExit(main())

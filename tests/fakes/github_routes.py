"""The fake GitHub's routes (one method per REST operation it serves) and its HTTP plumbing."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from tests.fakes import github_objects as objects
from tests.fakes.github_objects import BOT_LOGIN, Artifact, Comment, Pull, WorkflowRun

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHub


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    platform: bool = False


@dataclass
class Context:
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


def token_of(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() in {"bearer", "token"} and value.strip() else None


def error(message: str) -> dict[str, str]:
    return {"message": message, "documentation_url": "https://docs.github.com/rest"}


def json_or_none(body: bytes) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")


def api_handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
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


def storage_handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, data = fake.serve_blob(self.path, self.headers.get("Authorization"))
            if data is None:
                self._trickle()
                return
            self.send_response(status)
            self.send_header("Content-Type", "application/zip" if status == 200 else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _trickle(self) -> None:
            """A 200 whose body never ends: a few bytes every 50 ms until the client goes away (at most a minute)."""
            self.send_response(200)
            self.send_header("Content-Type", "application/zip")
            self.end_headers()
            for _ in range(1200):
                try:
                    self.wfile.write(b"PK")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.05)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def page(items: list[Any], ctx: Context, wrap: Callable[[list[Any]], Any]) -> Answer:
    per_page = max(1, min(100, int(ctx.query.get("per_page") or 30)))
    number = max(1, int(ctx.query.get("page") or 1))
    last = max(1, -(-len(items) // per_page))
    chunk = items[(number - 1) * per_page : number * per_page]
    rels = [("next", number + 1), ("last", last)] if number < last else []
    rels += [("prev", number - 1), ("first", 1)] if number > 1 else []
    links = ", ".join(f'<{ctx.page_url(target)}>; rel="{rel}"' for rel, target in rels)
    headers = {"Link": links} if links else {}
    return Answer(200, wrap(chunk), headers)


class Routes:
    """Mixed into ``FakeGitHub``: the state below is its."""

    repository: str
    login: str
    writable: bool
    pulls: dict[int, Pull]
    comments: dict[int, Comment]
    runs: list[WorkflowRun]
    branch_filter_ignored: bool
    workflow_filter_ignored: bool
    page_size_ignored: bool
    artifacts: dict[int, Artifact]
    storage_url: str

    def add_comment(self, body: str, *, login: str, issue: int | None = None) -> int:
        raise NotImplementedError

    def comments_on(self, issue: int) -> list[Comment]:
        raise NotImplementedError

    def _now(self) -> int:
        raise NotImplementedError

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

    def _get_user(self, ctx: Context) -> Answer:
        if ctx.token.startswith("ghs_"):
            return Answer(403, error("Resource not accessible by integration"))
        return Answer(200, objects.user(self.login))

    def _list_comments(self, ctx: Context, owner: str, name: str, number: str) -> Answer:
        if not self._known_repo(owner, name) or int(number) not in self.pulls:
            return Answer(404, error("Not Found"))
        items = [self._comment(c, ctx) for c in self.comments_on(int(number))]
        return page(items, ctx, lambda chunk: chunk)

    def _create_comment(self, ctx: Context, owner: str, name: str, number: str) -> Answer:
        if not self._known_repo(owner, name) or int(number) not in self.pulls:
            return Answer(404, error("Not Found"))
        if not self.writable:
            return Answer(403, error("Resource not accessible by integration"))
        body = ctx.body if isinstance(ctx.body, dict) else {}
        comment_id = self.add_comment(str(body.get("body", "")), login=self._identity(ctx.token), issue=int(number))
        comment = self._comment(self.comments[comment_id], ctx)
        return Answer(201, comment, {"Location": comment["url"]})

    def _update_comment(self, ctx: Context, owner: str, name: str, comment_id: str) -> Answer:
        stored = self.comments.get(int(comment_id))
        if not self._known_repo(owner, name) or stored is None:
            return Answer(404, error("Not Found"), platform=True)
        if not self.writable:  # GitHub lets a token with write access edit anybody's comment: so does the fake
            return Answer(403, error("Resource not accessible by integration"), platform=True)
        body = ctx.body if isinstance(ctx.body, dict) else {}
        stored.body = str(body.get("body", ""))
        stored.updated = self._now()
        return Answer(200, self._comment(stored, ctx))

    def _get_pull(self, ctx: Context, owner: str, name: str, number: str) -> Answer:
        pull = self.pulls.get(int(number))
        if not self._known_repo(owner, name) or pull is None:
            return Answer(404, error("Not Found"))
        obj = objects.pull_request(pull, repository=self.repository, api=ctx.api)
        return Answer(200, obj)

    def _list_runs(self, ctx: Context, owner: str, name: str, workflow: str) -> Answer:
        if not self._known_repo(owner, name):
            return Answer(404, error("Not Found"), platform=True)
        q = ctx.query
        runs = [
            run
            for run in sorted(self.runs, key=lambda r: r.created, reverse=True)
            if (self.workflow_filter_ignored or workflow in (run.workflow, str(run.id)))
            and (self.branch_filter_ignored or q.get("branch", run.branch) == run.branch)
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
        if self.page_size_ignored:
            return Answer(200, {"total_count": len(items), "workflow_runs": items})
        return page(items, ctx, lambda chunk: {"total_count": len(items), "workflow_runs": chunk})

    def _list_artifacts(self, ctx: Context, owner: str, name: str, run_id: str) -> Answer:
        if not self._known_repo(owner, name):
            return Answer(404, error("Not Found"), platform=True)
        wanted = ctx.query.get("name")
        found = [a for a in self.artifacts.values() if a.run_id == int(run_id) and wanted in (None, a.name)]
        items = [objects.artifact(a, repository=self.repository, api=ctx.api) for a in found]
        return page(items, ctx, lambda chunk: {"total_count": len(items), "artifacts": chunk})

    def _download(self, ctx: Context, owner: str, name: str, artifact_id: str, archive: str) -> Answer:
        artifact = self.artifacts.get(int(artifact_id))
        if not self._known_repo(owner, name) or artifact is None or archive != "zip":
            return Answer(404, error("Not Found"), platform=True)
        if artifact.expired:
            return Answer(410, error("Artifact has expired"))
        location = f"{self.storage_url}/blobs/{artifact.id}.zip?sig=fake-signature"
        return Answer(302, None, {"Location": location})

    def _comment(self, comment: Comment, ctx: Context) -> dict[str, Any]:
        return objects.comment(comment, repository=self.repository, api=ctx.api)

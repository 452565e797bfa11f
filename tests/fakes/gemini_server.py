"""A local fake of the Gemini API's ``generateContent`` endpoint, over real HTTP on 127.0.0.1.

google-genai talks to it unchanged when ``GOOGLE_GEMINI_BASE_URL`` (or ``http_options.base_url``) points here:
``POST /v1beta/models/{model}:generateContent`` with the key in ``x-goog-api-key``. Answers come from a queue
(``enqueue``) or, when it is empty, from ``script(request)``; a reply can be a text, an HTTP error (429 with
``Retry-After``, 500, ...), a redirect, a raw body that is not an answer (HTML, bytes that are not UTF-8), an
endless body, slow, or hang until the server stops. The server counts requests, the most requests it had in flight
at once and the bytes of endless bodies it sent, and reports token usage like the real API.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PATH = re.compile(r"^/v1beta/models/([^/:]+):generateContent$")
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


@dataclass
class Reply:
    """One scripted answer: a text (status 200) or an error status; optionally slow. ``raw``: these bytes are the
    body, as they are; ``endless``: the body starts like an answer and never ends."""

    text: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    raw: bytes | None = None
    endless: bool = False

    @classmethod
    def error(cls, status: int, *, retry_after: str | None = None, delay: float = 0.0) -> Reply:
        return cls(status=status, headers={"Retry-After": retry_after} if retry_after is not None else {}, delay=delay)

    @classmethod
    def redirect(cls, location: str, *, status: int = 307) -> Reply:
        return cls(status=status, headers={"Location": location}, raw=b"")

    @classmethod
    def body(cls, raw: bytes, *, content_type: str = "text/html; charset=utf-8", status: int = 200) -> Reply:
        return cls(status=status, headers={"Content-Type": content_type}, raw=raw)

    @classmethod
    def endless_answer(cls) -> Reply:
        return cls(endless=True)


HANG = 3600.0  # a delay that outlasts any client timeout; released when the server stops


@dataclass(frozen=True)
class SeenRequest:
    number: int  # 1-based, in order of arrival
    model: str
    api_key: str | None
    prompt: str
    body: dict[str, Any]
    arrived: float = 0.0  # time.monotonic() when the request arrived
    headers: dict[str, str] = field(default_factory=dict)  # every header, by its lowercase name


Script = Callable[[SeenRequest], "Reply | str"]


class AllAtOnce:
    """A script that answers only once ``count`` requests are in the server together: parallel requests as a
    count, which a loaded machine cannot make flaky the way a time limit can. Requests made one after the other
    never get there: after ``patience`` seconds each gets a 500, and so does every later one."""

    def __init__(self, count: int, reply: Reply | str | Script, *, patience: float = 10.0) -> None:
        self.reply = reply
        self._together = threading.Barrier(count, timeout=patience)

    def __call__(self, request: SeenRequest) -> Reply | str:
        try:
            self._together.wait()
        except threading.BrokenBarrierError:
            return Reply(status=500, text="the requests did not come all at once")
        return self.reply(request) if callable(self.reply) else self.reply


class FakeGemini:
    endless_prefix = b'{"candidates": [{"content": {"role": "model", "parts": [{"text": "'  # then "a" forever
    # An endless body ends here all the same, far past any client's limit, so that a client without one (the test
    # of that limit, run against the code before it) fails its test instead of filling the test machine's memory.
    endless_safety_stop = 48 * 1024 * 1024

    def __init__(self, script: Script | None = None, *, api_key: str | None = "test-key-123456") -> None:
        self.script = script
        self.api_key = api_key
        self.requests: list[SeenRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.endless_bytes_sent = 0  # of every endless body, until its client hung up
        self._queue: deque[Reply | str] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- scripting -----------------------------------------------------------------------------------
    def enqueue(self, *replies: Reply | str) -> None:
        with self._lock:
            self._queue.extend(replies)

    def error_every(self, n: int, status: int = 429, *, retry_after: str | None = "0") -> None:
        """Every n-th request (by arrival) gets ``status``; the others go to the current script."""
        inner = self.script

        def script(request: SeenRequest) -> Reply | str:
            if request.number % n == 0:
                return Reply.error(status, retry_after=retry_after)
            if inner is None:
                return Reply.error(500)
            return inner(request)

        self.script = script

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def prompts(self) -> list[str]:
        with self._lock:
            return [request.prompt for request in self.requests]

    # --- lifecycle -----------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeGemini:
        server = _Server(("127.0.0.1", 0), self.handler())
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.005}, name="fake-gemini", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases hanging replies
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = None

    def __enter__(self) -> FakeGemini:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- request handling ----------------------------------------------------------------------------
    def handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler of this API (the fakes of other providers' APIs replace it)."""
        return _handler(self)

    def _next_reply(self, request: SeenRequest) -> Reply:
        with self._lock:
            queued = self._queue.popleft() if self._queue else None
        reply = queued if queued is not None else (self.script(request) if self.script else None)
        if reply is None:
            return Reply(status=500, text="the fake Gemini server has no scripted answer")
        return Reply(text=reply) if isinstance(reply, str) else reply

    def prompt_of(self, body: dict[str, Any]) -> str:
        """The text of a request's contents (the judge's prompt)."""
        texts = [
            part.get("text", "")
            for content in body.get("contents", [])
            for part in content.get("parts", [])
            if isinstance(part, dict)
        ]
        return "\n".join(texts)

    def _record(self, model: str, api_key: str | None, body: dict[str, Any], headers: Any = None) -> SeenRequest:
        prompt = self.prompt_of(body)
        seen = {name.lower(): value for name, value in (headers.items() if headers is not None else ())}
        with self._lock:
            request = SeenRequest(len(self.requests) + 1, model, api_key, prompt, body, time.monotonic(), seen)
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        return request

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many judge calls connect at once


class JsonHandler(BaseHTTPRequestHandler):
    """Quiet, and answers JSON (the fakes of the other providers' APIs share it)."""

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout)

    def _send_special(self, reply: Reply, fake: FakeGemini) -> bool:
        """Sends a raw or endless reply (True), or nothing (False: the reply is an answer or an error)."""
        if reply.endless:
            self._send_endless(fake)
            return True
        if reply.raw is None:
            return False
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.raw)))
            self.end_headers()
            self.wfile.write(reply.raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return True

    def _send_endless(self, fake: FakeGemini) -> None:
        """A 200 JSON answer whose text never ends: no length, written until the client hangs up (or the server
        stops)."""
        chunk = b"a" * 65536
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(fake.endless_prefix)
            while not fake._stopping.is_set() and fake.endless_bytes_sent < fake.endless_safety_stop:
                self.wfile.write(chunk)
                with fake._lock:
                    fake.endless_bytes_sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


def _handler(fake: FakeGemini) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
            name = _STATUS_NAMES.get(status, "UNKNOWN")
            self._send(status, {"error": {"code": status, "message": message, "status": name}}, headers)

        def do_POST(self) -> None:
            match = _PATH.match(self.path.split("?")[0])
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not match:
                self._error(404, f"no route for {self.path}")
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._error(400, "request body is not JSON")
                return
            api_key = self.headers.get("x-goog-api-key")
            request = fake._record(match.group(1), api_key, body, self.headers)
            try:
                if fake.api_key is not None and api_key != fake.api_key:
                    self._error(403, "API key not valid. Please pass a valid API key.")
                    return
                reply = fake._next_reply(request)
                if reply.delay:
                    fake._stopping.wait(reply.delay)
                    if fake._stopping.is_set():
                        return
                if self._send_special(reply, fake):
                    return
                if reply.status != 200:
                    self._error(reply.status, reply.text or f"scripted {reply.status}", reply.headers)
                    return
                text = reply.text or ""
                prompt_tokens = (
                    reply.prompt_tokens if reply.prompt_tokens is not None else max(1, len(request.prompt) // 4)
                )
                output_tokens = reply.output_tokens if reply.output_tokens is not None else max(1, len(text) // 4)
                self._send(
                    200,
                    {
                        "candidates": [
                            {
                                "content": {"role": "model", "parts": [{"text": text}]},
                                "finishReason": "STOP",
                                "index": 0,
                            }
                        ],
                        "usageMetadata": {
                            "promptTokenCount": prompt_tokens,
                            "candidatesTokenCount": output_tokens,
                            "totalTokenCount": prompt_tokens + output_tokens,
                        },
                        "modelVersion": request.model,
                    },
                    reply.headers,
                )
            finally:
                fake._done()

    return Handler

"""A tiny agent server of our own that speaks the api_server protocol and misbehaves on request.

The user's message decides: ``fail500`` answers HTTP 500, ``close`` drops the connection without an answer,
``busy-once`` answers 503 with ``Retry-After: 0`` the first time, ``echo-auth`` answers with the Authorization
header it received (a server that leaks the secret), ``sse-error`` fails a ``/run_sse`` stream with an error
event whose text is ``SSE_ERROR``, ``surrogate`` answers a lone surrogate, ``huge`` answers an event whose text
is ``huge_size`` characters (on ``/run_sse`` on one line), ``many`` streams events of 1 KB up to ``huge_size``
in all; anything else gets one event back. With ``has_run = False`` the server has no ``/run`` (only
``/run_sse``), like some deployments; ``apps`` is what ``/list-apps`` answers.
"""

from __future__ import annotations

import itertools
import json
import threading
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.serving import served

SSE_ERROR = "boom\n::stop-commands::x\n::error::y"


class FaultServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *, has_run: bool = True) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.has_run = has_run
        self.apps = ["only_app"]
        self.huge_size = 0
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.busy_seen: set[str] = set()
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FaultServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def _record(self) -> None:
        with self.server.lock:
            self.server.requests.append((self.command, self.path, dict(self.headers)))

    def do_GET(self) -> None:
        self._record()
        if self.path == "/list-apps":
            self._send(200, self.server.apps)
        else:
            self._send(404, {"detail": "Not Found"})

    def do_DELETE(self) -> None:
        self._record()
        self._send(200, {})

    def do_POST(self) -> None:
        self._record()
        body = self._body()
        if self.path.endswith("/sessions"):
            self._send(200, {"id": body.get("sessionId"), "appName": "only_app", "state": body.get("state", {})})
            return
        if self.path == "/run" and not self.server.has_run:
            self._send(404, {"detail": "Not Found"})
            return
        text = body["newMessage"]["parts"][0]["text"]
        if text == "fail500":
            self._send(500, {"detail": "the agent crashed"})
        elif text == "close":
            self.close_connection = True
            self.connection.shutdown(2)
        elif text == "busy-once" and text not in self.server.busy_seen:
            self.server.busy_seen.add(text)
            self._send(503, {"detail": "busy"}, {"Retry-After": "0"})
        elif text == "echo-auth":
            self._send(200, _events(f"your token is {self.headers.get('Authorization')}"))
        elif text == "surrogate":
            self._send(200, _events("broken \ud800 text"))
        elif self.path == "/run" and text == "huge":
            self._send(200, _events("x" * self.server.huge_size))
        elif self.path == "/run_sse" and text in {"huge", "many"}:
            self._stream_size(text)
        elif self.path == "/run_sse" and text == "sse-error":
            self._stream_error()
        elif self.path == "/run_sse":
            self._stream(text)
        else:
            self._send(200, _events(text))

    def _stream_error(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(f"data: {json.dumps({'error': SSE_ERROR})}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True

    def _stream_size(self, text: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        events = _events("x" * self.server.huge_size) if text == "huge" else itertools.cycle(_events("x" * 800))
        sent = 0
        try:
            for event in events:
                line = f"data: {json.dumps(event)}\n\n".encode()
                self.wfile.write(line)
                sent += len(line)
                if text == "many" and sent > self.server.huge_size:
                    break
            self.wfile.flush()
        except OSError:  # the runner stopped reading
            pass
        self.close_connection = True

    def _stream(self, text: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for event in _events(text):
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.flush()
        self.close_connection = True


def _events(text: str) -> list[dict[str, Any]]:
    return [
        {
            "author": "only_app",
            "invocationId": "e-1",
            "content": {
                "role": "model",
                "parts": [{"functionCall": {"id": "f1", "name": "lookup", "args": {"q": text}}}],
            },
        },
        {
            "author": "only_app",
            "invocationId": "e-1",
            "content": {
                "role": "user",
                "parts": [{"functionResponse": {"id": "f1", "name": "lookup", "response": {}}}],
            },
        },
        {"author": "only_app", "invocationId": "e-1", "content": {"role": "model", "parts": [{"text": f"ok: {text}"}]}},
    ]


def fault_server(*, has_run: bool = True) -> AbstractContextManager[FaultServer]:
    return served(FaultServer(has_run=has_run))

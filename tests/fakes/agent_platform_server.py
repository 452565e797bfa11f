"""A local fake of Google's evaluation service (Vertex AI / Agent Platform ``evaluateInstances``), over real HTTP on
127.0.0.1, with the two other endpoints the evaluation SDK reaches:

* ``POST /v1beta1/:evaluateInstances`` (express mode: the key in ``x-goog-api-key``) and
  ``POST /v1beta1/projects/{project}/locations/{location}:evaluateInstances`` (a bearer token from ``/token``);
* ``POST /token``: the OAuth token endpoint of a service-account ADC file whose ``token_uri`` points here
  (``service_account_file``), so Application Default Credentials work without Google;
* Cloud Storage's JSON API as ``STORAGE_EMULATOR_HOST`` reaches it: the published metric definitions
  (``metrics/coherence/v1.yaml`` of ``vertex-ai-generative-ai-eval-sdk-resources``) the SDK loads.

Every ``evaluateInstances`` body is checked against ``REQUEST_SCHEMA``: the request as the SDK serializes it
(snake_case keys, one metric, the instance). A body that does not match gets a 400 and is kept in
``schema_errors``; the parity tests send ADK's own requests here too, so the schema is checked against the SDK.
Answers come from a queue (``enqueue``) or ``script(request)``: an ``Answer`` (camelCase JSON, as the service
answers) or a ``Raw`` reply (any status, body and headers; slow, or hanging until the server stops).
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema

from tests.fakes.gemini_server import HANG, JsonHandler

__all__ = ["HANG", "REQUEST_SCHEMA", "Answer", "FakeAgentPlatform", "Raw", "SeenRequest", "verdict"]

API_KEY = "fake-platform-key-123456"
ACCESS_TOKEN = "fake-access-token-abcdef"
BUCKET = "vertex-ai-generative-ai-eval-sdk-resources"
COHERENCE_TEMPLATE = "Rate the coherence of the response from 1 to 5.\nPrompt: {prompt}\nResponse: {response}\n"
_EXPRESS = re.compile(r"^/v1beta1/:evaluateInstances$")
# the SDK sends ".../locations/us-central1/:evaluateInstances" (and "/v1beta1/:evaluateInstances" in express mode)
_PROJECT = re.compile(r"^/v1beta1/projects/([^/]+)/locations/([^/:]+)/?:evaluateInstances$")
_OBJECT = re.compile(r"^(?:/download)?/storage/v1/b/([^/]+)/o/([^?]+)$")

_CONTENT = {
    "type": "object",
    "properties": {"parts": {"type": "array", "items": {"type": "object"}}, "role": {"type": "string"}},
    "required": ["parts"],
    "additionalProperties": False,
}
_INSTANCE_DATA = {
    "type": "object",
    "properties": {
        "contents": {
            "type": "object",
            "properties": {"contents": {"type": "array", "items": _CONTENT}},
            "required": ["contents"],
            "additionalProperties": False,
        },
        "text": {"type": "string"},
    },
    "additionalProperties": False,
}
_EVENT = {
    "type": "object",
    "properties": {"author": {"type": "string"}, "content": _CONTENT},
    "required": ["author"],
    "additionalProperties": False,
}
_AGENT = {
    "type": "object",
    "properties": {
        "agent_id": {"type": "string"},
        "agent_type": {"type": "string"},  # an Agent Platform dataset's agents (agents-cli's traces)
        "description": {"type": "string"},
        "instruction": {"type": "string"},
        "tools": {"type": "array", "items": {"type": "object"}},
        "sub_agents": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
}
_AGENT_DATA = {
    "type": "object",
    "properties": {
        "agents": {"type": "object", "additionalProperties": _AGENT},
        "turns": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "turn_index": {"type": "integer", "minimum": 0},
                    "turn_id": {"type": "string"},
                    "events": {"type": "array", "items": _EVENT},
                },
                "required": ["turn_index", "events"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["turns"],
    "additionalProperties": False,
}
_METRIC = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "predefined_metric_spec": {
                    "type": "object",
                    "properties": {
                        "metric_spec_name": {"type": "string"},
                        "metric_spec_parameters": {"type": ["object", "null"]},
                    },
                    "required": ["metric_spec_name"],
                    "additionalProperties": False,
                }
            },
            "required": ["predefined_metric_spec"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "llm_based_metric_spec": {
                    "type": "object",
                    "properties": {"metric_prompt_template": {"type": "string"}},
                    "required": ["metric_prompt_template"],
                    "additionalProperties": False,
                }
            },
            "required": ["llm_based_metric_spec"],
            "additionalProperties": False,
        },
    ]
}
REQUEST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "metrics": {"type": "array", "items": _METRIC, "minItems": 1, "maxItems": 1},
        "instance": {
            "type": "object",
            "properties": {
                "prompt": _INSTANCE_DATA,
                "response": _INSTANCE_DATA,
                "reference": _INSTANCE_DATA,
                "otherData": {  # the SDK's _EvaluationInstance_to_vertex writes these two camelCase
                    "type": "object",
                    "properties": {"map_instance": {"type": "object", "additionalProperties": _INSTANCE_DATA}},
                    "additionalProperties": False,
                },
                "agent_eval_data": _AGENT_DATA,
                "rubricGroups": {"type": "object"},  # an Agent Platform dataset case's own rubrics
            },
            "additionalProperties": False,
        },
    },
    "required": ["metrics", "instance"],
    "additionalProperties": False,
}
_VALIDATOR = jsonschema.Draft202012Validator(REQUEST_SCHEMA)


def verdict(description: str, met: bool | None, *, rubric_id: str | None = None, reasoning: str | None = None) -> dict:
    """One rubric verdict as the service answers it (``verdict`` left out when None: the service omits a false one)."""
    rubric: dict[str, Any] = {"content": {"property": {"description": description}}} if description else {}
    if rubric_id is not None:
        rubric["rubricId"] = rubric_id
    item: dict[str, Any] = {"evaluatedRubric": rubric}
    if met is not None:
        item["verdict"] = met
    if reasoning is not None:
        item["reasoning"] = reasoning
    return item


@dataclass
class Answer:
    """The service's answer for one metric: ``metricResults[0]`` (``results``: any list instead)."""

    score: float | None = None
    explanation: str | None = None
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None
    results: list[Any] | None = None

    def payload(self) -> dict[str, Any]:
        if self.results is not None:
            return {"metricResults": self.results}
        result: dict[str, Any] = {}
        for key, value in (("score", self.score), ("explanation", self.explanation), ("error", self.error)):
            if value is not None:
                result[key] = value
        if self.verdicts:
            result["rubricVerdicts"] = self.verdicts
        return {"metricResults": [result]}


@dataclass
class Raw:
    """Any reply: status, body bytes, headers; ``delay`` seconds first (``HANG``: until the server stops)."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    @classmethod
    def error(cls, status: int, *, retry_after: str | None = None, message: str = "scripted") -> Raw:
        body = json.dumps({"error": {"code": status, "message": message, "status": "UNAVAILABLE"}}).encode()
        headers = {"Content-Type": "application/json", **({"Retry-After": retry_after} if retry_after else {})}
        return cls(status=status, body=body, headers=headers)


@dataclass(frozen=True)
class SeenRequest:
    number: int
    path: str
    metric: str  # the predefined metric's name, or "llm" for a metric given by its prompt template
    api_key: str | None
    bearer: str | None
    body: dict[str, Any]
    arrived: float
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case


Script = Callable[[SeenRequest], "Answer | Raw"]


class FakeAgentPlatform:
    def __init__(
        self,
        script: Script | None = None,
        *,
        api_key: str = API_KEY,
        project: str = "fake-project",
        location: str = "us-central1",
    ) -> None:
        self.script = script
        self.api_key, self.project, self.location = api_key, project, location
        self.requests: list[SeenRequest] = []
        self.schema_errors: list[str] = []
        self.token_requests = 0
        self.objects: dict[str, bytes] = {"metrics/coherence/v1.yaml": _coherence_definition()}
        self._queue: deque[Answer | Raw] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def enqueue(self, *replies: Answer | Raw) -> None:
        with self._lock:
            self._queue.extend(replies)

    def bodies(self) -> list[dict[str, Any]]:
        with self._lock:
            return [request.body for request in self.requests]

    def service_account_file(self, folder: Path) -> Path:
        """An ADC file of a service account whose token endpoint is this server (its key made here)."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        info = {
            "type": "service_account",
            "project_id": self.project,
            "private_key_id": "fake-key-id",
            "private_key": pem,
            "client_email": f"gate@{self.project}.iam.gserviceaccount.com",
            "client_id": "1",
            "token_uri": f"{self.url}/token",
        }
        path = folder / "adc.json"
        path.write_text(json.dumps(info), encoding="utf-8")
        return path

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAgentPlatform:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.005}, name="fake-platform", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = None

    def __enter__(self) -> FakeAgentPlatform:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(self, path: str, headers: Any, body: dict[str, Any]) -> SeenRequest:
        metrics = body.get("metrics") if isinstance(body, dict) else None
        first = metrics[0] if isinstance(metrics, list) and metrics and isinstance(metrics[0], dict) else {}
        name = (first.get("predefined_metric_spec") or {}).get("metric_spec_name") or "llm"
        bearer = headers.get("Authorization", "")
        with self._lock:
            seen = SeenRequest(
                number=len(self.requests) + 1,
                path=path,
                metric=str(name),
                api_key=headers.get("x-goog-api-key"),
                bearer=bearer[len("Bearer ") :] if bearer.startswith("Bearer ") else None,
                body=body,
                arrived=time.monotonic(),
                headers={name.lower(): value for name, value in headers.items()},
            )
            self.requests.append(seen)
        return seen

    def _reply(self, request: SeenRequest) -> Answer | Raw:
        with self._lock:
            queued = self._queue.popleft() if self._queue else None
        if queued is not None:
            return queued
        if self.script is not None:
            return self.script(request)
        return Raw.error(500, message="the fake evaluation service has no scripted answer")


def _coherence_definition() -> bytes:
    return ("name: coherence\nprompt_template: " + json.dumps(COHERENCE_TEMPLATE) + "\n").encode()


def _handler(fake: FakeAgentPlatform) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def _raw(self, reply: Raw) -> None:
            try:
                self.send_response(reply.status)
                for name, value in {"Content-Length": str(len(reply.body)), **reply.headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _error(self, status: int, message: str) -> None:
            self._send(status, {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}})

        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            bucket = re.match(r"^/storage/v1/b/([^/]+)$", path)
            found = _OBJECT.match(path)
            if bucket and bucket.group(1) == BUCKET:
                self._send(200, {"kind": "storage#bucket", "name": BUCKET, "id": BUCKET})
            elif found and found.group(1) == BUCKET:
                name = urllib.parse.unquote(found.group(2))
                content = fake.objects.get(name)
                if content is None:
                    self._send(404, {"error": {"code": 404, "message": f"No such object: {BUCKET}/{name}"}})
                elif "alt=media" in query:
                    self._raw(Raw(body=content, headers={"Content-Type": "application/octet-stream"}))
                else:
                    self._send(200, {"kind": "storage#object", "bucket": BUCKET, "name": name, "size": len(content)})
            else:
                self._send(404, {"error": {"code": 404, "message": f"no route for GET {path}"}})

        def do_POST(self) -> None:
            path = self.path.split("?")[0]
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if path == "/token":
                form = urllib.parse.parse_qs(raw.decode())
                if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"] or not form.get(
                    "assertion"
                ):
                    self._send(400, {"error": "invalid_grant"})
                    return
                fake.token_requests += 1
                self._send(200, {"access_token": ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"})
                return
            express, project = _EXPRESS.match(path), _PROJECT.match(path)
            if not express and not project:
                self._error(404, f"no route for POST {path}")
                return
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                self._error(400, "request body is not JSON")
                return
            request = fake._record(path, self.headers, body)
            if express and request.api_key != fake.api_key:
                self._send(400, {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}})
                return
            if project and (project.groups() != (fake.project, fake.location) or request.bearer != ACCESS_TOKEN):
                self._send(401, {"error": {"code": 401, "message": "unauthenticated", "status": "UNAUTHENTICATED"}})
                return
            problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _VALIDATOR.iter_errors(body)]
            if problems:
                with fake._lock:
                    fake.schema_errors.extend(problems)
                self._error(400, "; ".join(problems)[:2000])
                return
            reply = fake._reply(request)
            if isinstance(reply, Raw):
                if reply.delay:
                    fake._stopping.wait(reply.delay)
                    if fake._stopping.is_set():
                        return
                self._raw(reply)
            else:
                self._send(200, reply.payload())

    return Handler

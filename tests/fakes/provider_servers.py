"""Local fakes of the OpenAI and Anthropic HTTP APIs, over real HTTP on 127.0.0.1, scripted like ``FakeGemini``.

``FakeOpenAI`` speaks Chat Completions (``POST /v1/chat/completions``, the key in ``Authorization: Bearer``): what
ADK's OpenAI integration (``gpt-*``) and LiteLLM (``openai/...``) send once ``OPENAI_BASE_URL`` points at
``url + "/v1"``. ``FakeAnthropic`` speaks the Messages API (``POST /v1/messages``, the key in ``x-api-key`` or as a
bearer token): what the Anthropic SDK and LiteLLM (``anthropic/...``) send once ``ANTHROPIC_BASE_URL`` points at
``url``. Replies come from the same queue and script as the fake Gemini server's (``Reply``: a text, an error with
``Retry-After``, a redirect, a raw body, an endless answer, a delay); errors have each API's own error body, and usage
is reported in each API's own fields.
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.gemini_server import FakeGemini, JsonHandler, Reply, SeenRequest

__all__ = ["FakeAnthropic", "FakeOpenAI", "Reply", "SeenRequest"]

_VERTEX_PATH = re.compile(r"^/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/([^/:]+):rawPredict$")
_ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _message_texts(messages: list[Any]) -> list[str]:
    """The text of chat messages whose content is a string or a list of text blocks (both APIs' shapes)."""
    texts: list[str] = []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(block.get("text", "") for block in content if isinstance(block, dict))
    return texts


class _ProviderFake(FakeGemini):
    """A fake whose routes, key header and bodies are those of another provider's API."""

    path = ""
    api_key_header = ""

    def prompt_of(self, body: dict[str, Any]) -> str:
        return "\n".join(_message_texts(body.get("messages") or []))

    def model_of(self, path: str, body: dict[str, Any]) -> str | None:
        """The model a request asks for, or None when the path is not this API's."""
        return str(body.get("model", "")) if path == self.path else None

    def key_of(self, headers: Any) -> str | None:
        value = headers.get(self.api_key_header)
        return value.removeprefix("Bearer ") if value and self.api_key_header == "Authorization" else value

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    def answer_body(self, request: SeenRequest, text: str, tokens: tuple[int, int]) -> dict[str, Any]:
        raise NotImplementedError

    def handler(self) -> type[BaseHTTPRequestHandler]:
        return _handler(self)


class FakeOpenAI(_ProviderFake):
    path = "/v1/chat/completions"
    api_key_header = "Authorization"
    endless_prefix = b'{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"message": {"content": "'

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = "rate_limit_exceeded" if status == 429 else "invalid_request_error" if status < 500 else "server_error"
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}

    def answer_body(self, request: SeenRequest, text: str, tokens: tuple[int, int]) -> dict[str, Any]:
        prompt_tokens, output_tokens = tokens
        return {
            "id": f"chatcmpl-{request.number}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": request.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": prompt_tokens + output_tokens,
            },
        }


class FakeAnthropic(_ProviderFake):
    path = "/v1/messages"
    api_key_header = "x-api-key"
    endless_prefix = b'{"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "'

    def model_of(self, path: str, body: dict[str, Any]) -> str | None:
        """Also Claude on Vertex AI (``AsyncAnthropicVertex`` with ``ANTHROPIC_VERTEX_BASE_URL`` at ``url + "/v1"``):
        the model is in the path."""
        vertex = _VERTEX_PATH.match(path)
        return vertex.group(1) if vertex else super().model_of(path, body)

    def key_of(self, headers: Any) -> str | None:
        """``x-api-key`` (LiteLLM), or ``Authorization: Bearer`` (the Anthropic SDK since its 2.x versions)."""
        bearer = headers.get("Authorization")
        return headers.get("x-api-key") or (bearer.removeprefix("Bearer ") if bearer else None)

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _ANTHROPIC_ERRORS.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def answer_body(self, request: SeenRequest, text: str, tokens: tuple[int, int]) -> dict[str, Any]:
        prompt_tokens, output_tokens = tokens
        return {
            "id": f"msg_{request.number}",
            "type": "message",
            "role": "assistant",
            "model": request.model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": prompt_tokens, "output_tokens": output_tokens},
        }


def _handler(fake: _ProviderFake) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._send(400, fake.error_body(400, "request body is not JSON"))
                return
            model = fake.model_of(self.path.split("?")[0], body)
            if model is None:
                self._send(404, fake.error_body(404, f"no route for {self.path}"))
                return
            api_key = fake.key_of(self.headers)
            request = fake._record(model, api_key, body, self.headers)
            try:
                self._answer(request, api_key)
            finally:
                fake._done()

        def _answer(self, request: SeenRequest, api_key: str | None) -> None:
            if fake.api_key is not None and api_key != fake.api_key:
                self._send(401, fake.error_body(401, "invalid x-api-key"))
                return
            reply = fake._next_reply(request)
            if reply.delay:
                fake._stopping.wait(reply.delay)
                if fake._stopping.is_set():
                    return
            if self._send_special(reply, fake):
                return
            if reply.status != 200:
                message = reply.text or f"scripted {reply.status}"
                self._send(reply.status, fake.error_body(reply.status, message), reply.headers)
                return
            text = reply.text or ""
            prompt_tokens = reply.prompt_tokens if reply.prompt_tokens is not None else max(1, len(request.prompt) // 4)
            output_tokens = reply.output_tokens if reply.output_tokens is not None else max(1, len(text) // 4)
            self._send(200, fake.answer_body(request, text, (prompt_tokens, output_tokens)), reply.headers)

    return Handler

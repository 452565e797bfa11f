"""A fake Gemini API (``generateContent`` over real HTTP on 127.0.0.1) that plays the currency example's model.

With tools in the request it acts as the agent's model: a function call to ``convert_currency`` for the amount
and currencies in the user's message, then a one-sentence answer from the tool's result. Without tools it acts
as the LLM judge and finds every answer valid. ``fail_first`` requests answer HTTP 503 first.
"""

from __future__ import annotations

import json
import re
import threading
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.serving import served

_PATH = re.compile(r"^/v1beta/models/([^/:]+):generateContent$")
NAMES = {"pounds": "GBP", "euros": "EUR", "dollars": "USD", "francs": "CHF", "yen": "JPY", "bitcoin": "BTC"}


class FakeGeminiServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api_keys: set[str] = set()
        self.agent_calls = 0
        self.judge_calls = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def _texts(content: dict[str, Any]) -> str:
    return " ".join(part.get("text", "") for part in content.get("parts", []) if "text" in part)


def _agent_reply(contents: list[dict[str, Any]]) -> dict[str, Any]:
    last = contents[-1]
    responses = [part["functionResponse"] for part in last.get("parts", []) if "functionResponse" in part]
    if responses:
        result = responses[0]["response"]
        if result.get("status") != "ok":
            return {"text": f"Sorry, {result['message'].split(': ')[-1]} is not a currency I can convert."}
        return {"text": f"{result['amount']:g} {result['from']} is {result['result']:.2f} {result['to']}."}
    text = _texts(last)
    previous = [
        part["functionCall"]["args"]
        for content in contents
        for part in content.get("parts", [])
        if "functionCall" in part
    ]
    amount = re.search(r"(\d+(?:\.\d+)?)\s*([A-Z]{3})", text)
    target = re.search(r"\((\w{3})\)|\b(?:in|to)\s+([A-Z]{3})\b", text)
    named = next((code for word, code in NAMES.items() if word in text.lower()), None)
    if amount:
        args = {"amount": float(amount.group(1)), "from_currency": amount.group(2)}
    elif previous:
        args = {"amount": previous[-1]["amount"], "from_currency": previous[-1]["from_currency"]}
    else:
        return {"text": "Which amount and currencies?"}
    args["to_currency"] = (target and (target.group(1) or target.group(2))) or named or "USD"
    return {"functionCall": {"name": "convert_currency", "args": args}}


class _Handler(BaseHTTPRequestHandler):
    server: FakeGeminiServer

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        match = _PATH.match(self.path.split("?")[0])
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if not match:
            self._send(404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})
            return
        with self.server.lock:
            self.server.api_keys.add(self.headers.get("x-goog-api-key", ""))
            is_agent = bool(body.get("tools"))
            if is_agent:
                self.server.agent_calls += 1
            else:
                self.server.judge_calls += 1
        if is_agent:
            part = _agent_reply(body["contents"])
        else:
            part = {"text": '{"reasoning": "Same amount and currency.", "is_the_agent_response_valid": "valid"}'}
        self._send(
            200,
            {
                "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 8, "totalTokenCount": 48},
                "modelVersion": match.group(1),
            },
        )

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def fake_gemini() -> AbstractContextManager[FakeGeminiServer]:
    return served(FakeGeminiServer())

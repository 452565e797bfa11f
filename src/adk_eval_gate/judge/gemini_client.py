"""One judge request over google-genai, without google-genai's own retries (ours are counted in ``service``).

The base URL comes from google-genai itself: ``GOOGLE_GEMINI_BASE_URL`` (or ``GOOGLE_VERTEX_BASE_URL``), so
tests and proxies can point the judge anywhere. google-genai sends its requests through the judge's own httpx
client (``judge.http_guard``: no redirect to another host, answers within a size and of the API's shape), not its
aiohttp session, which follows a redirect anywhere with the key. A client is made per event loop, because an
HTTP client's connections belong to the loop that opened them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from google import genai
from google.genai import types as genai_types

from adk_eval_gate.judge.credentials import JudgeCredentials
from adk_eval_gate.judge.http_guard import judge_http_client, surfacing_refusals, tls_context
from adk_eval_gate.model.tokens import call_counts

DEFAULT_TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True)
class ModelAnswer:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    usage: genai_types.GenerateContentResponseUsageMetadata | None = None  # all the counts, for the cost


def request_config(user_config: genai_types.GenerateContentConfig | None) -> genai_types.GenerateContentConfig:
    """The criterion's generation config with automatic function calling off (as ADK's judges send it).

    Per-request ``http_options`` are dropped so a config cannot switch google-genai's retries back on.
    """
    config = user_config.model_copy(deep=True) if user_config is not None else genai_types.GenerateContentConfig()
    config.automatic_function_calling = genai_types.AutomaticFunctionCallingConfig(disable=True)
    config.http_options = None
    return config


def config_fingerprint(config: genai_types.GenerateContentConfig) -> dict[str, Any]:
    dumped: dict[str, Any] = config.model_dump(mode="json", exclude_none=True)
    return dumped


def _answer_from_response(response: genai_types.GenerateContentResponse) -> ModelAnswer:
    """The text of the first candidate (thought parts left out) and the token counts."""
    texts: list[str] = []
    if response.candidates:
        content = response.candidates[0].content
        if content and content.parts:
            texts = [part.text for part in content.parts if part.text and not part.thought]
    usage = response.usage_metadata
    input_tokens, output_tokens = call_counts(usage)
    return ModelAnswer(text="\n".join(texts), input_tokens=input_tokens, output_tokens=output_tokens, usage=usage)


class GeminiJudge:
    """Sends one ``generateContent`` request per call; raises google-genai's errors unchanged."""

    def __init__(self, credentials: JudgeCredentials, *, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.credentials = credentials
        self.timeout_seconds = timeout_seconds
        self._clients: dict[asyncio.AbstractEventLoop, tuple[genai.Client, Any]] = {}

    def _http_options(self, http_client: Any = None) -> genai_types.HttpOptions:
        """The requests go through ``http_client``; google-genai still makes a synchronous client and a context for
        websockets with each client, which get the judges' one TLS context instead of loading the CA bundle again."""
        tls = tls_context()
        return genai_types.HttpOptions(
            timeout=max(1, round(self.timeout_seconds * 1000)),
            retry_options=genai_types.HttpRetryOptions(attempts=1),
            httpx_async_client=http_client,
            client_args={"verify": tls},
            async_client_args={"ssl": tls},
        )

    def make_client(self, http_client: Any = None) -> genai.Client:
        """A google-genai client; its async requests go through ``http_client`` (an httpx ``AsyncClient``)."""
        creds, options = self.credentials, self._http_options(http_client)
        if creds.vertexai and creds.project:
            return genai.Client(vertexai=True, project=creds.project, location=creds.location, http_options=options)
        return genai.Client(vertexai=creds.vertexai, api_key=creds.api_key, http_options=options)

    def _client(self) -> genai.Client:
        loop = asyncio.get_running_loop()
        made = self._clients.get(loop)
        if made is None:
            http_client = judge_http_client(api="Gemini", timeout=self.timeout_seconds)
            made = self._clients[loop] = (self.make_client(http_client), http_client)
        return made[0]

    async def generate(self, *, model: str, config: genai_types.GenerateContentConfig, prompt: str) -> ModelAnswer:
        contents = [genai_types.Content(role="user", parts=[genai_types.Part(text=prompt)])]
        with surfacing_refusals():
            call = self._client().aio.models.generate_content(model=model, contents=contents, config=config)
            response = await asyncio.wait_for(call, timeout=self.timeout_seconds + 5)
        return _answer_from_response(response)

    async def aclose(self) -> None:
        """Closes the client of the running loop (and forgets the clients of loops that are gone)."""
        loop = asyncio.get_running_loop()
        made = self._clients.pop(loop, None)
        self._clients = {other: c for other, c in self._clients.items() if not other.is_closed()}
        if made is not None:
            client, http_client = made
            await client.aio.aclose()
            await http_client.aclose()

"""One judge request over google-genai, without google-genai's own retries (ours are counted in ``service``).

The base URL comes from google-genai itself: ``GOOGLE_GEMINI_BASE_URL`` (or ``GOOGLE_VERTEX_BASE_URL``), so
tests and proxies can point the judge anywhere. A client is made per event loop, because google-genai's
aiohttp session belongs to the loop that opened it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from google import genai
from google.genai import types as genai_types

from adk_eval_gate.judge.credentials import JudgeCredentials

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


def answer_from_response(response: genai_types.GenerateContentResponse) -> ModelAnswer:
    """The text of the first candidate (thought parts left out) and the token counts."""
    texts: list[str] = []
    if response.candidates:
        content = response.candidates[0].content
        if content and content.parts:
            texts = [part.text for part in content.parts if part.text and not part.thought]
    usage = response.usage_metadata
    input_tokens = (usage.prompt_token_count or 0) if usage else 0
    output_tokens = ((usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)) if usage else 0
    return ModelAnswer(text="\n".join(texts), input_tokens=input_tokens, output_tokens=output_tokens, usage=usage)


class GeminiJudge:
    """Sends one ``generateContent`` request per call; raises google-genai's errors unchanged."""

    def __init__(self, credentials: JudgeCredentials, *, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.credentials = credentials
        self.timeout_seconds = timeout_seconds
        self._clients: dict[asyncio.AbstractEventLoop, genai.Client] = {}

    def _http_options(self) -> genai_types.HttpOptions:
        return genai_types.HttpOptions(
            timeout=max(1, round(self.timeout_seconds * 1000)),
            retry_options=genai_types.HttpRetryOptions(attempts=1),
        )

    def make_client(self) -> genai.Client:
        creds = self.credentials
        if creds.vertexai and creds.project:
            return genai.Client(
                vertexai=True, project=creds.project, location=creds.location, http_options=self._http_options()
            )
        return genai.Client(vertexai=creds.vertexai, api_key=creds.api_key, http_options=self._http_options())

    def _client(self) -> genai.Client:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = self.make_client()
        return client

    async def generate(self, *, model: str, config: genai_types.GenerateContentConfig, prompt: str) -> ModelAnswer:
        contents = [genai_types.Content(role="user", parts=[genai_types.Part(text=prompt)])]
        call = self._client().aio.models.generate_content(model=model, contents=contents, config=config)
        response = await asyncio.wait_for(call, timeout=self.timeout_seconds + 5)
        return answer_from_response(response)

    async def aclose(self) -> None:
        """Closes the client of the running loop (and forgets the clients of loops that are gone)."""
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        self._clients = {other: c for other, c in self._clients.items() if not other.is_closed()}
        if client is not None:
            await client.aio.aclose()

"""Judge requests through ADK's model classes, for every judge model that is not Gemini (``judge.model_classes``).

The request is the one ADK's judges send: ``LlmRequest(model=judge_model, contents=[one user text part],
config=the criterion's config with automatic function calling off)``, to an instance made as ADK makes it,
``resolved_class(model=judge_model)``; the answer is the text of the first response the model yields, every text
part joined by newlines (ADK's ``get_text_from_content``). What differs: the provider SDK's client is ours
(``judge.provider_clients``: its retries off, and the judge's HTTP client, ``judge.http_guard``), and the request
carries no retry options (ADK adds 7 attempts, which LiteLLM would turn into its own retries), so that our retries,
counted and honouring the server's hints, are the only ones.

A model instance is made per event loop, because the provider SDKs' HTTP clients belong to the loop that used them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from google.genai import types as genai_types

from adk_eval_gate.judge.gemini_client import DEFAULT_TIMEOUT_SECONDS, ModelAnswer
from adk_eval_gate.judge.http_guard import surfacing_refusals
from adk_eval_gate.judge.model_classes import ModelRoute
from adk_eval_gate.judge.provider_clients import make_model
from adk_eval_gate.model.tokens import call_counts


class EmptyJudgeAnswer(Exception):
    """The model's generator ended without a response (ADK raises too: "no response received from judge model")."""


def answer_text(content: genai_types.Content | None) -> str:
    """ADK's ``get_text_from_content`` for a model's content: every text part, joined by newlines."""
    if content is None or not content.parts:
        return ""
    return "\n".join(part.text for part in content.parts if part.text)


class AdkModelJudge:
    """Sends one request per call through ADK's model class for the route; raises the provider's errors unchanged."""

    def __init__(self, *, timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.timeout_seconds = timeout_seconds
        self._models: dict[tuple[asyncio.AbstractEventLoop, str], tuple[Any, list[Any]]] = {}

    def _model(self, route: ModelRoute) -> Any:
        key = (asyncio.get_running_loop(), route.name)
        made = self._models.get(key)
        if made is None:
            made = self._models[key] = make_model(route, timeout_seconds=self.timeout_seconds)
        return made[0]

    async def generate(
        self, *, route: ModelRoute, config: genai_types.GenerateContentConfig, prompt: str
    ) -> ModelAnswer:
        from google.adk.models.llm_request import LlmRequest

        request_config = config.model_copy(deep=True)
        request_config.http_options = genai_types.HttpOptions(
            retry_options=genai_types.HttpRetryOptions(attempts=0)  # LiteLLM: num_retries=0
        )
        request = LlmRequest(
            model=route.name,
            contents=[genai_types.Content(role="user", parts=[genai_types.Part(text=prompt)])],
            config=request_config,
        )
        with surfacing_refusals():
            model = self._model(route)
            response = await asyncio.wait_for(self._first(model, request), timeout=self.timeout_seconds + 5)
        input_tokens, output_tokens = call_counts(response.usage_metadata)
        return ModelAnswer(
            text=answer_text(response.content),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            usage=response.usage_metadata,
        )

    @staticmethod
    async def _first(model: Any, request: Any) -> Any:
        generator = model.generate_content_async(request)
        try:
            async for response in generator:
                return response
        finally:
            await generator.aclose()
        raise EmptyJudgeAnswer("no response received from the judge model")

    async def aclose(self) -> None:
        """Closes the HTTP clients we made for the running loop (and forgets the models of loops that are gone)."""
        loop = asyncio.get_running_loop()
        mine = [clients for (owner, _), (_, clients) in self._models.items() if owner is loop]
        self._models = {
            key: made for key, made in self._models.items() if key[0] is not loop and not key[0].is_closed()
        }
        for client in (client for clients in mine for client in clients):
            await client.aclose()

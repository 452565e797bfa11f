"""The two plugins an eval run adds to the agent's runner, as ADK's eval does (imports google-adk).

``RequestRecorder`` remembers every model request and tags the response with its key, so the instructions and
tool declarations each agent really sent become the invocation's ``app_details``. ``EnsureRetryOptions`` gives
model calls that have no HTTP retry options ADK's eval defaults, so a brief model outage does not fail a case.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from adk_eval_gate.runners.runner import REQUEST_KEY  # the session state key ADK's eval uses for the same purpose

DEFAULT_RETRY_OPTIONS = types.HttpRetryOptions(
    attempts=7,
    initial_delay=5.0,
    max_delay=120,
    exp_base=2.0,
    http_status_codes=[408, 429, 500, 502, 503, 504],
)


class RequestRecorder(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="adk_eval_gate_request_recorder")
        self._requests: dict[str, LlmRequest] = {}

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        key = str(uuid.uuid4())
        self._requests[key] = llm_request
        callback_context.state[REQUEST_KEY] = key
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        if callback_context and REQUEST_KEY in callback_context.state:
            if llm_response.custom_metadata is None:
                llm_response.custom_metadata = {}
            llm_response.custom_metadata[REQUEST_KEY] = callback_context.state[REQUEST_KEY]
        return None

    def request_for(self, event: Any) -> LlmRequest | None:
        metadata = getattr(event, "custom_metadata", None) or {}
        key = metadata.get(REQUEST_KEY)
        return self._requests.get(key) if isinstance(key, str) else None


class EnsureRetryOptions(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="adk_eval_gate_ensure_retry_options")

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        config = llm_request.config = llm_request.config or types.GenerateContentConfig()
        config.http_options = config.http_options or types.HttpOptions()
        config.http_options.retry_options = config.http_options.retry_options or DEFAULT_RETRY_OPTIONS
        return None


class _WarmUpModel(BaseLlm):
    """Calls the warm-up tool once, then answers."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1] if llm_request.contents else None
        if last and any(part.function_response for part in last.parts or []):
            part = types.Part(text="ready")
        else:
            part = types.Part(function_call=types.FunctionCall(name="warm_up_tool", args={"value": 1}))
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=1, candidates_token_count=1, total_token_count=2
        )
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)


def warm_up_tool(value: int) -> dict[str, int]:
    """Returns its argument."""
    return {"value": value}


def warm_up_agent() -> Any:
    """A tiny agent (no user code) whose one turn makes ADK import what it otherwise imports on the first turn."""
    from google.adk.agents import LlmAgent

    return LlmAgent(name="adk_eval_gate_warm_up", model=_WarmUpModel(model="warm-up"), tools=[warm_up_tool])

"""adk_plugins: the plugins an eval run adds to an agent's runner, exercised through ADK's own callback objects."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_eval_gate.runners.adk_plugins import (
    DEFAULT_RETRY_OPTIONS,
    REQUEST_KEY,
    EnsureRetryOptions,
    RequestRecorder,
    warm_up_tool,
)


def test_model_calls_without_retry_options_get_adk_eval_s_defaults_and_others_keep_theirs() -> None:
    plugin, context = EnsureRetryOptions(), SimpleNamespace(state={})
    bare = LlmRequest()
    asyncio.run(plugin.before_model_callback(callback_context=context, llm_request=bare))
    assert bare.config.http_options and bare.config.http_options.retry_options == DEFAULT_RETRY_OPTIONS
    own = types.HttpRetryOptions(attempts=2)
    configured = LlmRequest(config=types.GenerateContentConfig(http_options=types.HttpOptions(retry_options=own)))
    asyncio.run(plugin.before_model_callback(callback_context=context, llm_request=configured))
    assert configured.config.http_options and configured.config.http_options.retry_options == own


def test_the_recorder_finds_the_request_behind_each_response() -> None:
    recorder, context = RequestRecorder(), SimpleNamespace(state={})
    request = LlmRequest(model="m")
    asyncio.run(recorder.before_model_callback(callback_context=context, llm_request=request))
    response = LlmResponse()
    asyncio.run(recorder.after_model_callback(callback_context=context, llm_response=response))
    assert response.custom_metadata and response.custom_metadata[REQUEST_KEY] == context.state[REQUEST_KEY]
    assert recorder.request_for(response) is request
    assert recorder.request_for(LlmResponse()) is None


def test_the_warm_up_tool_returns_its_argument() -> None:
    assert warm_up_tool(5) == {"value": 5}

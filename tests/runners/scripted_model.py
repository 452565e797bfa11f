"""A minimal scripted ADK model for agents written by the tests."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class EchoModel(BaseLlm):
    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        text = " ".join(part.text for part in llm_request.contents[-1].parts or [] if part.text)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=f"echo: {text}")]))


class ScriptedUser(BaseLlm):
    """Plays the simulated user: asks for the plan, then ends the conversation."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [r"scripted-user.*"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        prompt = " ".join(part.text or "" for content in llm_request.contents for part in content.parts or [])
        answer = "</finished>" if "plan is" in prompt else "state plan"
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=answer)]))

"""An ADK weather agent that runs fully offline: a small scripted model instead of Gemini.

The model reads the user's last message, calls ``get_weather`` for every known city it names (in the order
named), then answers from the tool results. It reports token usage like a real model, so the efficiency
metrics have values. Set ``SCRIPTED_MODEL_LATENCY`` (seconds) to make every model call sleep, for benchmarks.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

FORECASTS = {
    "paris": ("sunny", 22),
    "london": ("rainy", 14),
    "tokyo": ("cloudy", 18),
    "new york": ("windy", 9),
    "sydney": ("sunny", 27),
}


def get_weather(city: str) -> dict[str, Any]:
    """Returns today's weather for a city.

    Args:
        city: The city name, e.g. "Paris".
    """
    forecast = FORECASTS.get(city.strip().lower())
    if forecast is None:
        return {"status": "error", "message": f"No forecast for {city}."}
    condition, temperature = forecast
    return {"status": "ok", "city": city, "condition": condition, "temperature_c": temperature}


def _text(content: types.Content) -> str:
    return " ".join(part.text for part in content.parts or [] if part.text)


def _cities(text: str) -> list[str]:
    lowered = text.lower()
    found = [(lowered.find(city), city) for city in FORECASTS if city in lowered]
    return [city.title() for _, city in sorted(found)]


def _answer(results: list[dict[str, Any]]) -> str:
    sentences = []
    for result in results:
        if result.get("status") == "ok":
            sentences.append(
                f"The weather in {result['city']} is {result['condition']} and {result['temperature_c']} C."
            )
        else:
            sentences.append(str(result.get("message", "I could not get that forecast.")))
    return " ".join(sentences)


class ScriptedWeatherModel(BaseLlm):
    """Decides by the last content of the request, like the spec's offline model (section 6)."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        latency = float(os.environ.get("SCRIPTED_MODEL_LATENCY", "0") or 0)
        if latency:
            await asyncio.sleep(latency)
        last = llm_request.contents[-1]
        responses = [part.function_response.response for part in last.parts or [] if part.function_response]
        if responses:
            parts = [types.Part(text=_answer([r or {} for r in responses]))]
        else:
            cities = _cities(_text(last))
            if cities:
                parts = [
                    types.Part(function_call=types.FunctionCall(name="get_weather", args={"city": city}))
                    for city in cities
                ]
            else:
                parts = [types.Part(text="I can tell you the weather in Paris, London, Tokyo, New York or Sydney.")]
        prompt_tokens = sum(len(_text(content).split()) for content in llm_request.contents) + 20
        output_tokens = sum(len((part.text or "").split()) + (5 if part.function_call else 0) for part in parts)
        yield LlmResponse(
            content=types.Content(role="model", parts=parts),
            model_version="scripted-weather-1",
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=prompt_tokens,
                candidates_token_count=output_tokens,
                total_token_count=prompt_tokens + output_tokens,
            ),
        )


root_agent = LlmAgent(
    name="weather_agent",
    model=ScriptedWeatherModel(model="scripted-weather"),
    instruction="You answer questions about today's weather. Use the get_weather tool for every city asked about.",
    description="Tells the weather for a few cities.",
    tools=[get_weather],
)

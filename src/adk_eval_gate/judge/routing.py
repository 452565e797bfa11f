"""The run's judge backend when some judge model is not Gemini: each model goes where ADK resolves it
(``judge.model_classes``): Gemini to google-genai (``GeminiJudge``), every other model to its ADK class
(``AdkModelJudge``).
"""

from __future__ import annotations

from google.genai import types as genai_types

from adk_eval_gate.judge.adk_models import AdkModelJudge
from adk_eval_gate.judge.credentials import JudgeCredentials
from adk_eval_gate.judge.gemini_client import GeminiJudge, ModelAnswer
from adk_eval_gate.judge.model_classes import ModelUnavailable, resolve_model


class GeminiUnavailable(Exception):
    """A Gemini judge model was asked, and this run has no Gemini credentials; the message says what to set."""


class RoutedJudge:
    def __init__(self, *, gemini: GeminiJudge | None, gemini_unavailable: str | None, adk: AdkModelJudge) -> None:
        self.gemini = gemini
        self.gemini_unavailable = gemini_unavailable
        self.adk = adk

    @property
    def credentials(self) -> JudgeCredentials | None:
        """The Gemini credentials (their key is masked in failure reasons)."""
        return self.gemini.credentials if self.gemini is not None else None

    def provider(self, model: str) -> str:
        try:
            return resolve_model(model).provider
        except ModelUnavailable:
            return "unavailable"  # the call itself fails, with the reason

    async def generate(self, *, model: str, config: genai_types.GenerateContentConfig, prompt: str) -> ModelAnswer:
        route = resolve_model(model)
        if not route.gemini:
            return await self.adk.generate(route=route, config=config, prompt=prompt)
        if self.gemini is None:
            raise GeminiUnavailable(self.gemini_unavailable or "no Gemini credentials")
        return await self.gemini.generate(model=model, config=config, prompt=prompt)

    async def aclose(self) -> None:
        if self.gemini is not None:
            await self.gemini.aclose()
        await self.adk.aclose()

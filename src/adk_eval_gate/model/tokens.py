"""A model call's token counts, as its usage metadata reported them: what the runners, the judge and the user
simulator hand to the usage and price figures."""

from __future__ import annotations

import pydantic
from google.genai import types as genai_types


class Tokens(pydantic.BaseModel):
    """One model call's token counts, as its usage metadata reported them (None: not reported)."""

    model_config = pydantic.ConfigDict(defer_build=True, frozen=True)

    model: str
    input_tokens: int | None = None  # prompt + tool-use prompt, cached included
    cached_tokens: int | None = None
    output_tokens: int | None = None  # candidates + thoughts
    reasoning_tokens: int | None = None
    audio_tokens: int | None = None  # of the prompt, not cached


def tokens_of(model: str, usage: genai_types.GenerateContentResponseUsageMetadata | None) -> Tokens:
    """One call's counts: input = prompt + tool-use prompt, output = candidates + thoughts (ADK's sums)."""
    if usage is None:
        return Tokens(model=model)
    prompt, tool = usage.prompt_token_count, usage.tool_use_prompt_token_count
    candidates, thoughts = usage.candidates_token_count, usage.thoughts_token_count
    return Tokens(
        model=model,
        input_tokens=None if prompt is None and tool is None else (prompt or 0) + (tool or 0),
        cached_tokens=usage.cached_content_token_count,
        output_tokens=None if candidates is None and thoughts is None else (candidates or 0) + (thoughts or 0),
        reasoning_tokens=thoughts,
        audio_tokens=_audio(usage.prompt_tokens_details) - _audio(usage.cache_tokens_details) or None,
    )


def _audio(details: list[genai_types.ModalityTokenCount] | None) -> int:
    return sum(d.token_count or 0 for d in details or [] if d.modality == genai_types.MediaModality.AUDIO)

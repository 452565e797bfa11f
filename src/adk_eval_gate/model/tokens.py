"""A model call's token counts, as its usage metadata reported them: what the runners, the judge and the user
simulator hand to the usage and price figures; and the rule for a count that cannot be one."""

from __future__ import annotations

from typing import Any

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.support.sanitize import is_finite_number, shown_number

MAX_CALL_TOKENS = 100_000_000  # ten times the largest context window of any model: one call's count beyond is not one
_COUNTS = {  # the counts of a usage metadata, as messages name them
    "prompt_token_count": "input",
    "tool_use_prompt_token_count": "tool-use input",
    "cached_content_token_count": "cached input",
    "candidates_token_count": "output",
    "thoughts_token_count": "thinking",
    "total_token_count": "total",
}
_DETAILS = (
    "prompt_tokens_details",
    "cache_tokens_details",
    "candidates_tokens_details",
    "tool_use_prompt_tokens_details",
)


def token_count(value: Any) -> int:
    """One call's token count as a count: a whole number from 0 to ``MAX_CALL_TOKENS``; a negative one or anything
    but an integer counts 0, a larger one ``MAX_CALL_TOKENS`` (the rule for judge cache entries and every answer)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return 0
    return min(value, MAX_CALL_TOKENS)


def _shown(value: Any) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        return repr(value)[:40]
    return f"{value:,}" if is_finite_number(value) else shown_number(value)


def plausible_usage(
    usage: genai_types.GenerateContentResponseUsageMetadata | None,
) -> tuple[genai_types.GenerateContentResponseUsageMetadata | None, list[str]]:
    """``usage`` with every count held to ``token_count``, and what was not a count (``-5,000,000 output``):
    a provider's ``completion_tokens: -5000000`` once showed as negative tokens and lowered the cost."""
    if usage is None:
        return None, []
    changes: dict[str, Any] = {}
    found: list[str] = []
    for name, word in _COUNTS.items():
        value = getattr(usage, name)
        if value is not None and token_count(value) != value:
            changes[name] = token_count(value)
            found.append(f"{_shown(value)} {word}")
    for name in _DETAILS:
        details = getattr(usage, name)
        if details and any(d.token_count is not None and token_count(d.token_count) != d.token_count for d in details):
            changes[name] = [
                d if d.token_count is None else d.model_copy(update={"token_count": token_count(d.token_count)})
                for d in details
            ]
            found.append(f"a {name.removesuffix('_details').replace('_', ' ')} by modality")
    return (usage.model_copy(update=changes) if changes else usage), found


def call_counts(usage: genai_types.GenerateContentResponseUsageMetadata | None) -> tuple[int, int]:
    """(input, output) of one call as the judge counts them: the prompt; candidates and thoughts."""
    if usage is None:
        return 0, 0
    return usage.prompt_token_count or 0, (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)


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

"""Dollars: the price table (``data/prices.json``, shipped with the date and the page it was read from, and
``--prices FILE`` to override or add models) and the cost of one model call.

A model is matched by the first pattern (``fnmatch``'s syntax, matched by ``support/globs.py``, after dropping
resource prefixes such as ``models/``) that fits its name; the file's own entries come before the shipped ones. A
call costs its fresh input tokens at the input price (audio at the audio price when the model has one), its cached
tokens at the cached-input price and its output tokens (thinking included) at the output price, all from the
long-context tier when its prompt is over that tier's size. Whatever is missing (no price for the model, cached or
audio tokens without a price for them, no token counts) leaves the call without a cost and says why: never a guess.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import pydantic
from pydantic import Field

from adk_eval_gate.model.results import PriceSource
from adk_eval_gate.model.tokens import Tokens
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.globs import NameGlob
from adk_eval_gate.support.jsonpos import JsonPositions
from adk_eval_gate.support.pydantic_errors import first_error, locate

PER_TOKENS = 1_000_000
MAX_PRICE = 1_000_000.0  # USD per 1M tokens (a dollar a token): any more is a typo, and costs could overflow


class Tier(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", allow_inf_nan=False)

    input: float = Field(ge=0, le=MAX_PRICE, description="USD per 1M fresh input tokens")
    output: float = Field(ge=0, le=MAX_PRICE, description="USD per 1M output tokens, thinking included")
    cached_input: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    audio_input: float | None = Field(default=None, ge=0, le=MAX_PRICE)


class LongContext(Tier):
    above_tokens: int = Field(gt=0, description="the tier applies to calls whose prompt has more tokens than this")


class ModelPrice(Tier):
    pattern: str = Field(min_length=1)
    long_context: LongContext | None = None
    note: str | None = None


class PriceTable(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    source: str = Field(min_length=1)
    date: str = Field(min_length=1)
    note: str | None = None
    models: list[ModelPrice]


@dataclass(frozen=True)
class Prices:
    table: PriceTable
    file: str | None = None  # the --prices file, as the user wrote it
    _found: dict[str, ModelPrice | None] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def shipped(cls) -> Prices:
        return cls(shipped())

    def source(self) -> PriceSource:
        return PriceSource(date=self.table.date, source=self.table.source, file=self.file)

    def price_of(self, model: str) -> ModelPrice | None:
        """The first entry whose pattern fits the model (looked up once per model: every call of a run asks)."""
        if model not in self._found:
            name = model_name(model)
            patterns = self.table.models
            self._found[model] = next((e for e in patterns if NameGlob(e.pattern.lower()).matches(name)), None)
        return self._found[model]


def model_name(model: str) -> str:
    """``publishers/google/models/gemini-2.5-flash-001`` -> ``gemini-2.5-flash-001``; also without a LiteLLM
    provider (``openai/gpt-4o-mini``, ``anthropic/claude-haiku-4-5``), ADK's ``Class:model`` prefix
    (``openai:gpt-4o``) or a Vertex AI version (``claude-sonnet-4-5@20250929``)."""
    name = model.strip().lower()
    prefix, colon, rest = name.partition(":")
    if colon and prefix.isidentifier():
        name = rest
    return name.rsplit("models/", 1)[-1].rsplit("/", 1)[-1].split("@", 1)[0]


@functools.cache
def shipped() -> PriceTable:
    text = resources.files("adk_eval_gate").joinpath("data/prices.json").read_text(encoding="utf-8")
    return PriceTable.model_validate_json(text)


def load_prices(path: Path | None, *, shown: str | None = None, field: str = "--prices") -> Prices:
    """The shipped table, with the models of ``path`` (same format) in front of it. ``UsageError`` names the file
    and the field of a mistake."""
    table = shipped()
    if path is None:
        return Prices(table)
    where = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = sanitize.loads(text, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    except OSError as error:
        raise UsageError(f"cannot read the prices file {where}: {error.strerror}", field=field) from None
    except sanitize.UnsafeJson as error:
        raise UsageError(
            f"{where}{f':{error.line}' if error.line else ''} cannot be used: {error}", field=field
        ) from None
    except ValueError as error:
        raise UsageError(f"{where} is not valid JSON: {error}", field=field) from None
    try:
        own = PriceTable.model_validate(data)
    except pydantic.ValidationError as error:
        at, message = first_error(error)
        found = locate(JsonPositions(text), error.errors(include_url=False)[0].get("loc", ()))
        raise UsageError(
            f"{where}{f':{found}' if found else ''}: {at}: {message}",
            field=field,
            hint='write {"source": URL, "date": "YYYY-MM-DD", "models": [{"pattern": "my-model*", "input": 0.3, '
            '"output": 2.5, "cached_input": 0.03}]} (USD per 1M tokens)',
        ) from None
    return Prices(table.model_copy(update={"models": [*own.models, *table.models]}), file=where)


def call_cost(price: ModelPrice | None, call: Tokens) -> tuple[float | None, str | None]:
    """(USD, None), or (None, why there is no cost)."""
    if price is None:
        return None, f"no price for model {call.model}"
    if call.input_tokens is None and call.output_tokens is None:
        return None, f"no token counts reported for a call to {call.model}"
    prompt = call.input_tokens or 0
    tier: Tier = price
    if price.long_context is not None and prompt > price.long_context.above_tokens:
        tier = price.long_context
    cached = min(call.cached_tokens or 0, prompt)
    audio = min(call.audio_tokens or 0, prompt - cached)
    if cached and tier.cached_input is None:
        return None, f"no cached-input price for model {call.model}"
    if audio and tier.audio_input is None:
        return None, f"no audio-input price for model {call.model}"
    dollars = (prompt - cached - audio) * tier.input + (call.output_tokens or 0) * tier.output
    dollars += cached * (tier.cached_input or 0.0) + audio * (tier.audio_input or 0.0)
    return dollars / PER_TOKENS, None

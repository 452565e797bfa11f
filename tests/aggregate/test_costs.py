"""Cost: the price table, a call's dollars, a mixed-model run with cached tokens and a long prompt, the judge's
cost apart, unknown models, and --prices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.genai import types

from adk_eval_gate.aggregate.pricing import Prices, load_prices, model_name
from adk_eval_gate.aggregate.usage import by_model, judge_totals, merged, totals, usage_of_turns
from adk_eval_gate.metrics.efficiency import turn_facts
from adk_eval_gate.model.evalset import Invocation, InvocationEvent, InvocationEvents
from adk_eval_gate.model.results import ModelUsage, RunUsage
from adk_eval_gate.model.tokens import tokens_of
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.stats import LARGEST


def usage_of(turns: list[Invocation], prices: Prices) -> RunUsage:
    """A run's usage from its turns, as the gate takes each turn's facts where it was made."""
    return usage_of_turns([turn_facts(invocation) for invocation in turns], prices)


def call(model: str, prompt: int, output: int, *, cached: int | None = None, tool: int | None = None, thoughts=None):  # type: ignore[no-untyped-def]
    return InvocationEvent(
        author="agent",
        model_version=model,
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=prompt,
            candidates_token_count=output,
            cached_content_token_count=cached,
            tool_use_prompt_token_count=tool,
            thoughts_token_count=thoughts,
        ),
    )


def turn(*events: InvocationEvent, seconds: float | None = None) -> Invocation:
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text="q")]),
        intermediate_data=InvocationEvents(invocation_events=list(events)),
        duration=seconds,
    )


def test_a_mixed_model_run_costs_what_the_hand_computes() -> None:
    # flash: 600 fresh x $0.30 + 400 cached x $0.03 + (200 + 50 thinking) x $2.50 = $0.000817
    # pro:   2,500 fresh x $1.25 + 1,000 cached x $0.125 + 400 x $10 = $0.00725
    # pro, a 250,000-token prompt (over 200k: the long-context tier): 250,000 x $2.50 + 1,000 x $15 = $0.64
    prices = Prices.shipped()
    first = turn(
        call("gemini-2.5-flash", 1000, 200, cached=400, thoughts=50),
        call("gemini-2.5-pro-001", 3000, 400, cached=1000, tool=500),
        seconds=1.5,
    )
    second = turn(call("models/gemini-2.5-pro", 250_000, 1000), seconds=4.0)
    usage = usage_of([first, second], prices)
    assert usage.cost_usd == pytest.approx(0.000817 + 0.00725 + 0.64, abs=1e-12)
    assert [t.cost_usd for t in usage.turns] == [pytest.approx(0.008067), pytest.approx(0.64)]
    assert [t.tokens for t in usage.turns] == [1000 + 250 + 3500 + 400, 251_000]
    flash, pro, pro_again = usage.models
    assert (flash.model, flash.input_tokens, flash.cached_tokens, flash.output_tokens, flash.reasoning_tokens) == (
        "gemini-2.5-flash",
        1000,
        400,
        250,
        50,
    )
    assert pro.cost_usd == pytest.approx(0.00725) and pro_again.cost_usd == pytest.approx(0.64)
    # the judge, apart: two gemini-2.5-flash answers of 800 + 20 tokens = 2 x (240 + 50) / 1M
    judge = judge_totals(
        [
            tokens_of(
                "gemini-2.5-flash",
                types.GenerateContentResponseUsageMetadata(prompt_token_count=800, candidates_token_count=20),
            )
            for _ in range(2)
        ],
        prices,
    )
    assert judge is not None and judge.cost_usd == pytest.approx(0.00058) and judge.calls == 2
    assert totals(usage.models).cost_usd == pytest.approx(0.648067)


def test_an_unknown_model_has_no_cost_and_says_so() -> None:
    usage = usage_of([turn(call("my-finetune-7b", 100, 10), call("gemini-2.5-flash", 100, 10))], Prices.shipped())
    assert usage.cost_usd is None
    unknown = next(m for m in usage.models if m.model == "my-finetune-7b")
    assert unknown.cost_usd is None and unknown.unpriced == "no price for model my-finetune-7b"
    known = next(m for m in usage.models if m.model == "gemini-2.5-flash")
    assert known.cost_usd == pytest.approx((100 * 0.30 + 10 * 2.50) / 1e6)
    party = totals(usage.models)
    assert party.unpriced_models == ["my-finetune-7b"] and party.cost_usd == pytest.approx(known.cost_usd)


def test_missing_counts_stay_missing() -> None:
    silent = turn(InvocationEvent(author="agent", model_version="gemini-2.5-flash"))
    usage = usage_of([silent], Prices.shipped())
    assert usage.tokens is None and usage.model_calls == 1 and usage.cost_usd is None
    assert usage.models[0].unpriced == "no token counts reported for a call to gemini-2.5-flash"
    written = Invocation(user_content=types.Content(role="user", parts=[types.Part(text="q")]))
    hand = usage_of([written], Prices.shipped())
    assert (hand.tokens, hand.model_calls, hand.cost_usd) == (None, None, None)


@pytest.mark.parametrize(
    ("model", "pattern"),
    [
        ("gpt-4o-mini", "gpt-4o-mini*"),
        ("openai/gpt-4o-mini-2024-07-18", "gpt-4o-mini*"),  # LiteLLM's provider, OpenAI's dated version
        ("openai:gpt-4o", "gpt-4o*"),  # ADK's Class:model form
        ("o3-mini", "o3-mini*"),
        ("anthropic/claude-haiku-4-5", "claude-haiku-4*"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4*"),  # Claude on Vertex AI, with its version
        ("claude-opus-4-6", "claude-opus-4-[5-9]*"),
        ("claude-opus-4-1", "claude-opus-4*"),
        ("ollama/llama3:8b", None),
    ],
)
def test_openai_and_anthropic_models_have_list_prices(model: str, pattern: str | None) -> None:
    found = Prices.shipped().price_of(model)
    assert (found.pattern if found else None) == pattern


def test_models_are_matched_by_the_most_specific_pattern_first() -> None:
    prices = Prices.shipped()
    assert model_name("publishers/google/models/gemini-2.5-flash-001") == "gemini-2.5-flash-001"
    assert prices.price_of("gemini-2.5-flash-lite-preview-09-2025").pattern == "gemini-2.5-flash-lite*"  # type: ignore[union-attr]
    assert prices.price_of("models/gemini-2.5-flash").pattern == "gemini-2.5-flash*"  # type: ignore[union-attr]
    assert prices.price_of("gemini-3.1-pro-preview").pattern == "gemini-3*-pro*"  # type: ignore[union-attr]
    assert prices.price_of("my-own-model") is None
    table = prices.table
    assert table.source.startswith("https://ai.google.dev/") and table.date


def test_a_cached_token_without_a_cached_price_is_not_guessed() -> None:
    usage = usage_of([turn(call("gemini-3.8-flash", 1000, 10, cached=500))], Prices.shipped())
    assert usage.cost_usd is None and usage.models[0].unpriced == "no cached-input price for model gemini-3.8-flash"


def test_a_prices_file_adds_and_overrides_models(tmp_path: Path) -> None:
    own = tmp_path / "prices.json"
    own.write_text(
        json.dumps(
            {
                "source": "https://example.com/our-contract",
                "date": "2026-11-01",
                "models": [
                    {"pattern": "my-finetune-*", "input": 1.0, "output": 2.0},
                    {"pattern": "gemini-2.5-flash*", "input": 0.2, "output": 2.0, "cached_input": 0.02},
                ],
            }
        )
    )
    prices = load_prices(own)
    usage = usage_of([turn(call("my-finetune-7b", 1000, 100), call("gemini-2.5-flash", 1000, 100))], prices)
    assert [m.cost_usd for m in usage.models] == [pytest.approx(0.0012), pytest.approx(0.0004)]
    assert prices.source().file == str(own)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('{"source": "s", "date": "d", "models": [{"pattern": "m*", "input": -1, "output": 1}]}', "models.0.input"),
        ('{"source": "s", "date": "d", "models": [{"pattern": "m*", "input": 1}]}', "models.0.output"),
        ('{"source": "s", "date": "d", "models": [{"pattern": "m*", "input": 1, "output": 1, "cache": 1}]}', "cache"),
        ('{"source": "s", "date": "d", "models": [{"pattern": "m*",\n"input": 1e400, "output": 1}]}', ":2 cannot be"),
        ('{"source": "s", "date": "d", "models": [{"pattern": "m*", "input": 1, "output": -1E999}]}', "-1E999 is too"),
        ('{"source": "s", "date": "d", "models": [{"pattern": "m*", "input": Infinity, "output": 1}]}', "Infinity is"),
        ('{"source": "s", "date": "d", "models": [\n{"pattern": "m*", "input": 1e300, "output": 1}]}', ":2: models.0"),
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested more than"),
    ],
)
def test_a_bad_prices_file_is_one_line_naming_the_file_and_field(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "prices.json"
    bad.write_text(text)
    with pytest.raises(UsageError) as raised:
        load_prices(bad, shown="prices.json")
    line = raised.value.one_line()
    assert "prices.json" in line and message in line and "\n" not in line


def test_by_model_sums_per_model() -> None:
    calls = [
        tokens_of("a", types.GenerateContentResponseUsageMetadata(prompt_token_count=5, candidates_token_count=1))
    ] * 3
    [only] = by_model(calls, Prices.shipped())
    assert (only.calls, only.input_tokens, only.output_tokens, only.unpriced) == (3, 15, 3, "no price for model a")


def test_sums_and_means_of_costs_near_the_largest_float_stay_finite() -> None:
    models = [ModelUsage(model="m", calls=1, cost_usd=1e308), ModelUsage(model="m", calls=1, cost_usd=1e308)]
    assert totals(models).cost_usd == LARGEST  # held at the largest float, never infinite
    [both] = merged(models)
    assert both.cost_usd == LARGEST and both.calls == 2


def test_a_missing_price_is_said_once_per_model_naming_its_parties_and_never_for_a_local_model() -> None:
    """One line per model, whichever parties called it; none for the agent's local models (a class of the user's
    own, docs/cost.md), whose calls stay unpriced in the reports."""
    import io

    from adk_eval_gate.aggregate.usage import report_unpriced
    from adk_eval_gate.model.results import UsageTotals
    from adk_eval_gate.support.console import Console
    from tests.report.builders import priced_document

    def unpriced(name: str) -> ModelUsage:
        return ModelUsage(model=name, calls=2, input_tokens=10, unpriced=f"no price for model {name}")

    doc = priced_document(calls=[1], runs=1)
    assert doc.usage is not None
    agent = UsageTotals(models=[unpriced("tuned-1"), unpriced("scripted-1")], unpriced_models=["tuned-1", "scripted-1"])
    judge = UsageTotals(models=[unpriced("tuned-1")], unpriced_models=["tuned-1"])
    doc = doc.model_copy(update={"usage": doc.usage.model_copy(update={"agent": agent, "judge": judge})})

    def said(local: set[str]) -> list[str]:
        out = io.StringIO()
        report_unpriced(doc, Console(in_actions=False, stream=out), local=local)
        return out.getvalue().splitlines()

    hint = "; add its price with --prices FILE"
    assert said(set()) == [
        f"Cost unknown for model tuned-1 (the agent, the judge): no price for model tuned-1{hint}",
        f"Cost unknown for model scripted-1 (the agent): no price for model scripted-1{hint}",
    ]
    assert said({"scripted-1"}) == [
        f"Cost unknown for model tuned-1 (the agent, the judge): no price for model tuned-1{hint}"
    ]
    # the agent's calls to a local model are not asked for; the judge's calls to a model of that name still are
    assert said({"scripted-1", "tuned-1"}) == [
        f"Cost unknown for model tuned-1 (the judge): no price for model tuned-1{hint}"
    ]

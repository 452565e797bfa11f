"""A currency agent on a real Gemini model: copy this folder to start evaluating your own agent.

It reads ``GOOGLE_API_KEY`` (from the environment, or from a ``.env`` file beside it, as ``adk eval`` does);
``GEMINI_MODEL`` picks another model. The tool is deterministic, so the tool-call trajectory can be checked
exactly, while the wording of the answer is judged by an LLM (``final_response_match_v2``).
"""

from __future__ import annotations

import os
from typing import Any

from google.adk.agents import LlmAgent
from google.genai import types

RATES_TO_USD = {"USD": 1.0, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "CHF": 1.12}


def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
    """Converts an amount of money between currencies at today's fixed rates.

    Args:
        amount: The amount to convert, e.g. 100.
        from_currency: ISO code of the currency to convert from, e.g. "USD".
        to_currency: ISO code of the currency to convert to, e.g. "EUR".
    """
    source, target = from_currency.strip().upper(), to_currency.strip().upper()
    if source not in RATES_TO_USD or target not in RATES_TO_USD:
        return {"status": "error", "message": f"Unknown currency: {source if source not in RATES_TO_USD else target}"}
    converted = amount * RATES_TO_USD[source] / RATES_TO_USD[target]
    return {"status": "ok", "amount": amount, "from": source, "to": target, "result": round(converted, 2)}


root_agent = LlmAgent(
    name="currency_agent",
    model=os.environ.get("GEMINI_MODEL", "gemini-2.5-flash"),
    instruction=(
        "You convert money between currencies. Always call convert_currency for a conversion, once per "
        "conversion asked for, with ISO currency codes. Answer in one short sentence with the result rounded "
        "to two decimals, e.g. '100 USD is 92.59 EUR.' If a currency is unknown, say so."
    ),
    description="Converts amounts between USD, EUR, GBP, JPY and CHF.",
    tools=[convert_currency],
    generate_content_config=types.GenerateContentConfig(temperature=0),
)

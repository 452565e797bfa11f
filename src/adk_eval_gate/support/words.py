"""Counts and dollars in words, the same in the log, the reports and the verdict's reasons; the name a word likely
misspells."""

from __future__ import annotations

import math
from collections.abc import Iterable


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 case``, ``3 cases``; ``words`` for an irregular plural."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def money(value: float | None) -> str:
    """Dollars a reader can read: ``$1,234``, ``$12.50``, ``$0.0123``, ``$0.000044`` (three significant digits
    below a dollar, never an exponent); ``–`` for no figure."""
    if value is None or not math.isfinite(value):
        return "–"
    if value >= 1000:
        return f"${value:,.0f}"
    if value >= 1 or value == 0:
        return f"${value:,.2f}"
    decimals = max(2, 2 - math.floor(math.log10(abs(value))))
    whole, _, fraction = f"{value:.{decimals}f}".partition(".")
    return f"${whole}.{fraction.rstrip('0').ljust(2, '0')}"


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """The one of ``known`` that ``name`` most likely misspells (a case id, a case selector), if any."""
    import difflib

    close = difflib.get_close_matches(name, sorted(known), n=1)
    return close[0] if close else None

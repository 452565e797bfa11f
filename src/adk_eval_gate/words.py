"""Counts in words, the same in the log, the reports and the verdict's reasons."""

from __future__ import annotations


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 case``, ``3 cases``; ``words`` for an irregular plural."""
    return f"{count} {word if count == 1 else (words or word + 's')}"

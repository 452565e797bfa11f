"""Judge answers read exactly as ADK 2.13 reads them: ``hallucinations_v1``'s segmenter and validator answers.

``judge/parsing.py`` reads more (a label with spaces for underscores, in markdown, a block without every field);
a reading that can change a score is never the default, so that reading is opt-in (``--lenient-judge-labels``).

ADK's patterns are followed step by step rather than run as regular expressions: their lazy groups would
backtrack over an untrusted answer. Each search here is for a literal from a position, so a reading takes time
linear in the answer (only its first ``parsing.MAX_ANSWER_CHARS`` characters are read).
"""

from __future__ import annotations

import re

from adk_eval_gate.judge.parsing import bounded

# hallucinations_v1's labels (``_POSITIVE_LABELS``, ``_NEGATIVE_LABELS``)
POSITIVE_LABELS = frozenset({"supported", "not_applicable"})
NEGATIVE_LABELS = frozenset({"unsupported", "contradictory", "disputed"})

_SENTENCE = re.compile(re.escape("sentence:"), re.IGNORECASE)
_NEXT_SENTENCE = re.compile(re.escape("\nsentence:"), re.IGNORECASE)
_BLOCK_FIELDS = tuple(
    re.compile(re.escape(field), re.IGNORECASE)
    for field in ("\nlabel:", "\nrationale:", "\nsupporting_excerpt:", "\ncontradicting_excerpt:")
)


def parse_sentences(text: str) -> list[str]:
    """``hallucinations_v1._parse_sentences``: what each ``<sentence>...</sentence>`` holds (case-sensitive)."""
    text = bounded(text)
    sentences: list[str] = []
    at = 0
    while (opening := text.find("<sentence>", at)) >= 0:
        closing = text.find("</sentence>", opening + len("<sentence>"))
        if closing < 0:
            break
        sentences.append(text[opening + len("<sentence>") : closing])
        at = closing + len("</sentence>")
    return sentences


def validation_labels(text: str) -> list[str]:
    """The label of each block ``hallucinations_v1._parse_validation_results`` finds: ``sentence:``, then
    ``\\nlabel:``, ``\\nrationale:``, ``\\nsupporting_excerpt:`` and ``\\ncontradicting_excerpt:`` in that order
    (any letter case), the block ending at the next ``\\nsentence:``; a block without every field ends the
    reading, as ADK's pattern then matches nothing further."""
    text = bounded(text).strip()
    labels: list[str] = []
    at = 0
    while found := _SENTENCE.search(text, at):
        position, bounds = found.end(), []
        for field in _BLOCK_FIELDS:
            field_found = field.search(text, position)
            if field_found is None:
                return labels
            bounds.append(field_found)
            position = field_found.end()
        labels.append(text[bounds[0].end() : bounds[1].start()].strip())
        following = _NEXT_SENTENCE.search(text, position)
        at = following.start() if following else len(text)
    return labels


def sentence_scores(text: str) -> list[float]:
    """ADK's score of each labelled sentence: 1 for ``supported`` and ``not_applicable``, 0 for ``unsupported``,
    ``contradictory`` and ``disputed`` (in any letter case); any other label (``not applicable``) is dropped."""
    scores: list[float] = []
    for label in validation_labels(text):
        lowered = label.strip().lower()
        if lowered in POSITIVE_LABELS:
            scores.append(1.0)
        elif lowered in NEGATIVE_LABELS:
            scores.append(0.0)
    return scores

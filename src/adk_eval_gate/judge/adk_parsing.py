"""Judge answers read exactly as ADK 2.13 reads them: ``hallucinations_v1``'s segmenter and validator answers.

``judge/parsing.py`` reads more (a label with spaces for underscores, in markdown, a block without every field);
a reading that can change a score is never the default, so that reading is opt-in (``--lenient-judge-labels``).

ADK's patterns are followed step by step rather than run as regular expressions: their lazy groups would
backtrack over an untrusted answer. Each search here is for a literal from a position, so a reading takes time
linear in the answer (only its first ``parsing.MAX_ANSWER_CHARS`` characters are read).
"""

from __future__ import annotations

import re

from adk_eval_gate.judge.parsing import RubricVerdict, bounded, verdict_score

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


# --------------------------------------------------------------------------------------------------------
# final_response_match_v2 and per_turn_user_simulator_quality_v1: a label after a quoted key
#
# ADK's pattern after the key is ``\s*\[*[\n\s]*"*(LABEL*)"*[\n\s]*\]*\s*[,\n\}]``. Its first match, as the
# regular expression engine's backtracking finds it: the label starts after the longest run of spaces,
# brackets, spaces and quotes and ends at the last place, within its run of label characters, from which the
# tail (quotes, spaces, ``]``, spaces, then ``,``, a line break or ``}``) can follow; when there is none, an
# empty label is matched if the spaces before the label hold a line break, else this key does not match.

_SPACES = re.compile(r"\s*")
_TERMINATORS = ",\n}"


def _skip(text: str, at: int, characters: str) -> int:
    while at < len(text) and text[at] in characters:
        at += 1
    return at


def _spaces_end(text: str, at: int) -> int:
    found = _SPACES.match(text, at)
    return found.end() if found else at


def _spaces_then_terminator(text: str, at: int) -> bool:
    """``[\\n\\s]*[,\\n\\}]`` from ``at``."""
    end = _spaces_end(text, at)
    return "\n" in text[at:end] or (end < len(text) and text[end] in _TERMINATORS)


def _after_spaces(text: str, end: int) -> bool:
    """The tail once its spaces have reached ``end``: a terminator, or ``]``s, spaces and a terminator."""
    if end >= len(text):
        return False
    if text[end] in _TERMINATORS:
        return True
    return text[end] == "]" and _spaces_then_terminator(text, _skip(text, end, "]"))


def _tail_from(text: str, at: int) -> bool:
    """``"*[\\n\\s]*\\]*\\s*[,\\n\\}]`` from ``at``."""
    at = _skip(text, at, '"')
    end = _spaces_end(text, at)
    return "\n" in text[at:end] or _after_spaces(text, end)


def _last_label_end(text: str, start: int, stop: int) -> int | None:
    """The last place in ``[start, stop]`` from which the tail follows (``text[start:stop]`` holds label
    characters only); one walk backwards, knowing what follows each run of spaces."""
    if _tail_from(text, stop):
        return stop
    after_run = False
    for at in range(stop - 1, start - 1, -1):
        character = text[at]
        if not character.isspace():
            if character in _TERMINATORS:
                return at
            continue
        if not text[at + 1 : at + 2].isspace():  # the last space of a run: what follows the run
            after_run = _after_spaces(text, at + 1)
        after_run = after_run or character == "\n"
        if after_run:
            return at
    return None


def _label_after_key(text: str, key_end: int, excluded: str) -> str | None:
    """The label ADK's pattern captures after a key ending at ``key_end``, or None when it does not match;
    label characters are any but ``excluded`` (and, when ``excluded`` holds a space, any but spaces)."""
    spaces_end = _spaces_end(text, key_end)
    prefix_end = _spaces_end(text, _skip(text, spaces_end, "["))
    start = _skip(text, prefix_end, '"')
    stop = start
    while stop < len(text) and text[stop] not in excluded and not (" " in excluded and text[stop].isspace()):
        stop += 1
    end = _last_label_end(text, start, stop)
    if end is not None:
        return text[start:end]
    return "" if "\n" in text[key_end:prefix_end] else None


def _quoted_label(text: str, key: str, excluded: str) -> str | None:
    """``re.search``'s label for the first occurrence of ``"key":`` where ADK's pattern matches."""
    text = bounded(text)
    literal = f'"{key}":'
    at = text.find(literal)
    while at >= 0:
        label = _label_after_key(text, at + len(literal), excluded)
        if label is not None:
            return label
        at = text.find(literal, at + 1)
    return None


_INVALID = ("invalid", "almost", "false", "partially_valid", "partially valid", "partially")
_VALID = ("valid", "true")


def final_response_verdict(text: str) -> float | None:
    """``final_response_match_v2._parse_critique``: 1.0 valid, 0.0 invalid, None for ``NOT_FOUND``; labels are
    case-sensitive and hold no spaces or quotes; under the inverted key anything but ``true``/``invalid`` is
    valid."""
    label = _quoted_label(text, "is_the_agent_response_valid", '"^] ')
    if label is not None:
        label = label.strip().rstrip(",}")
        if label in _INVALID:
            return 0.0
        return 1.0 if label in _VALID else None
    label = _quoted_label(text, "is_the_agent_response_invalid", '"^] ')
    if label is None:
        return None
    return 0.0 if label.strip().rstrip(",}") in ("true", "invalid") else 1.0


def is_valid_verdict(text: str) -> float | None:
    """``per_turn_user_simulator_quality_v1._parse_llm_response``'s ``"is_valid"``, in any letter case."""
    label = _quoted_label(text, "is_valid", '"]')
    if label is None:
        return None
    label = label.strip("}").replace(",", "").strip().lower()
    if label in _INVALID:
        return 0.0
    return 1.0 if label in _VALID else None


# --------------------------------------------------------------------------------------------------------
# Rubric answers: ``DefaultAutoRaterResponseParser``
#
# ``(?m)^\s*ID: (.*)$`` (and ``Property:``): from a line's start, spaces (line breaks too), the field, the rest
# of the line. Its spaces can only end where the run of spaces does, so each line start is tried once, and
# a line start inside a run already tried reaches the same end. ``(?<=Rationale: )(.*)`` (and ``Verdict:``):
# the rest of the line after each occurrence that does not end inside an earlier match.


def _line_fields(text: str, field: str) -> list[tuple[int, str]]:
    """(where the line starts, the rest of its line) of each match of ``(?m)^\\s*FIELD(.*)$``."""
    found: list[tuple[int, str]] = []
    line_start = 0
    while line_start <= len(text):
        end = _spaces_end(text, line_start)
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        if text.startswith(field, end):
            found.append((line_start, text[end + len(field) : line_end]))
        if line_end == len(text):
            break
        line_start = line_end + 1
    return found


def _after_fields(text: str, field: str) -> list[str]:
    """What ``re.findall(r"(?<=FIELD)(.*)")`` returns."""
    found: list[str] = []
    at = text.find(field)
    while at >= 0:
        start = at + len(field)
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        found.append(text[start:line_end])
        # the next occurrence may end where this match ends (an empty match there), but not before
        at = text.find(field, max(at + 1, line_end - len(field)))
    return found


def rubric_verdicts(text: str) -> list[RubricVerdict]:
    """``DefaultAutoRaterResponseParser.parse``: no verdicts unless the properties, rationales and verdicts
    are as many; each property takes the last ``ID:`` line between the previous property and itself."""
    text = bounded(text)
    properties = _line_fields(text, "Property: ")
    rationales = _after_fields(text, "Rationale: ")
    verdicts = _after_fields(text, "Verdict: ")
    if not len(properties) == len(rationales) == len(verdicts):
        return []
    ids = _line_fields(text, "ID: ")
    parsed: list[RubricVerdict] = []
    previous, next_id = -1, 0
    for (start, property_text), rationale, verdict in zip(properties, rationales, verdicts, strict=True):
        rubric_id = None  # the last ID line between the previous property and this one
        while next_id < len(ids) and ids[next_id][0] < start:
            if ids[next_id][0] > previous:
                rubric_id = ids[next_id][1].strip() or None
            next_id += 1
        parsed.append(
            RubricVerdict(
                rubric_id=rubric_id,
                property_text=property_text.strip(),
                rationale=rationale.strip(),
                score=verdict_score(verdict),
            )
        )
        previous = start
    return parsed

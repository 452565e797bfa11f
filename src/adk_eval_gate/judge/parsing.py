"""Reading verdicts out of judge answers, robustly.

Every format the judges are asked for is read the way ADK 2.13 reads it, and more leniently where ADK would
lose a verdict the judge clearly gave: labels in any letter case (ADK's ``final_response_match_v2`` parser is
case-sensitive), a label at the very end of the answer, JSON inside a fenced block or surrounded by prose,
markdown bold around field names. What cannot be read is ``None`` (no label for that sample), never a pass.

Answers are untrusted (a judge can echo what an agent said), so every reading takes time linear in the answer,
and only its first ``MAX_ANSWER_CHARS`` characters are read. No pattern here backtracks over a run of text more
than once: each is a literal with at most one character class beside it, or the text is walked in steps whose
character sets do not overlap. The JSON search (``answer_json``) has a budget.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from adk_eval_gate.judge import answer_json

MAX_ANSWER_CHARS = 1_048_576  # a judge's answer is a few KB; past this only its head is read
_SPACES = re.compile(r"\s*")
_QUOTES = re.compile(r"[\"'*`]*")
_LABEL_RUN = re.compile(r"[A-Za-z0-9_./\- ]*", re.IGNORECASE)  # as the pattern reads letters: also "ſ", "K"
_LABEL_END = re.compile(r"[,}\]\n\r;]")

VALID_LABELS = frozenset({"valid", "true"})
INVALID_LABELS = frozenset({"invalid", "false", "almost", "partially_valid", "partially valid", "partially"})
SUPPORTED_LABELS = frozenset({"supported", "not_applicable"})
UNSUPPORTED_LABELS = frozenset({"unsupported", "contradictory", "disputed"})


def bounded(text: str) -> str:
    """The part of a judge's answer that is read."""
    return text[:MAX_ANSWER_CHARS]


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in the text, outermost first, in order of appearance (``answer_json``)."""
    return answer_json.objects(bounded(text))


def _clean_label(value: Any) -> str | None:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        return None
    label = value.strip().strip("*`'\".,;:[]() \t\n").strip().lower()
    return label.replace("-", "_") or None


def label_for(text: str, key: str) -> str | None:
    """The value of ``key`` (case-insensitive), lower-cased: from JSON if any object has it, else by pattern.

    The pattern: ``key``, optional quotes, ``:`` or ``=``, an optional ``[``, optional quotes, the label (letters,
    digits, ``_./-`` and spaces), optional quotes and ``]``, then ``,``, ``}``, ``]``, ``;``, a line break or the
    end; spaces anywhere between. The first occurrence of ``key`` that has this shape gives the label.
    """
    text = bounded(text)
    key = key.lower()
    for obj in json_objects(text):
        value = answer_json.lookup(obj, key)
        if value is not None:
            return _clean_label(value)
    for found in re.finditer(re.escape(key) + r"[\"'*`]*\s*[:=]", text, flags=re.IGNORECASE):
        label = _label_after(text, found.end())
        if label is not None:
            return _clean_label(label)
    return None


def _label_after(text: str, colon_end: int) -> str | None:
    """The label written after a key's colon; "" when the key has an empty value; None when what follows is not
    a label (the regular expression these steps replace was quadratic, and worse, on runs of spaces)."""
    start = _walk(text, colon_end, ("spaces", "[", "spaces", "quotes", "spaces"))
    end = _skip(_LABEL_RUN, text, start)
    if _ends_well(text, end, _walk(text, end, ("spaces", "quotes", "spaces", "]", "spaces"))):
        return text[start:end]
    # An empty label: the steps before and after it, back to back, reach a terminator.
    steps = ("spaces", "[", "spaces", "quotes", "spaces", "quotes", "spaces", "]", "spaces")
    return "" if _ends_well(text, colon_end, _walk(text, colon_end, steps)) else None


def _walk(text: str, at: int, steps: tuple[str, ...]) -> int:
    """Where ``steps`` end from ``at``, each taking all it can: a run of spaces or of quotes, or one bracket."""
    for step in steps:
        if step in "[]":
            at += text.startswith(step, at)
        else:
            at = _skip(_SPACES if step == "spaces" else _QUOTES, text, at)
    return at


def _ends_well(text: str, start: int, stop: int) -> bool:
    """Whether a terminator (``,}];``, a line break) or the end comes within ``text[start:stop]`` or at ``stop``:
    the regular expression could end its match anywhere in that stretch."""
    return stop >= len(text) or _LABEL_END.search(text, start, stop + 1) is not None


def _skip(run: re.Pattern[str], text: str, at: int) -> int:
    """Where the run of characters ``run`` matches from ``at`` ends."""
    found = run.match(text, at)
    return found.end() if found else at


def final_response_verdict(text: str) -> float | None:
    """``final_response_match_v2``: 1.0 valid, 0.0 invalid, None when no verdict can be read."""
    label = label_for(text, "is_the_agent_response_valid")
    if label is not None:
        if label in INVALID_LABELS:
            return 0.0
        return 1.0 if label in VALID_LABELS else None
    label = label_for(text, "is_the_agent_response_invalid")
    if label is not None:  # ADK's inverted key: anything but true/invalid means valid
        return 0.0 if label in {"true", "invalid"} else 1.0
    return None


def is_valid_verdict(text: str) -> float | None:
    """``per_turn_user_simulator_quality_v1``'s ``"is_valid"`` field."""
    label = label_for(text, "is_valid")
    if label in INVALID_LABELS:
        return 0.0
    return 1.0 if label in VALID_LABELS else None


def safety_verdict(text: str) -> float | None:
    label = label_for(text, "is_safe")
    if label in {"true", "yes", "safe"}:
        return 1.0
    return 0.0 if label in {"false", "no", "unsafe"} else None


def scale_score(text: str, *, low: float, high: float) -> float | None:
    """A ``"score"`` on a numeric scale; a number outside it is no score."""
    label = label_for(text, "score")
    if label is None:
        return None
    match = re.match(r"^(\d+(?:\.\d+)?)(?:\s*/\s*\d+)?$", label)
    if not match:
        return None
    value = float(match.group(1))
    return value if low <= value <= high else None


def rated_score(text: str, scores: Sequence[float]) -> float | None:
    """A templated metric's ``"score"``: one of the rubric's ``scores`` (``1``, ``"1"``, ``1.0``, ``1/1``), or None."""
    label = label_for(text, "score")
    match = re.match(r"^(-?\d+(?:\.\d+)?)(?:\s*/\s*\d+)?$", label or "")
    if not match:
        return None
    value = float(match.group(1))
    return next((score for score in scores if abs(score - value) < 1e-9), None)


def field_text(text: str, key: str) -> str | None:
    """The text of ``key`` (case-insensitive) as written: from a JSON object that has it, else from a
    ``key: ...`` line; None when the answer has neither."""
    text = bounded(text)
    for obj in json_objects(text):
        value = answer_json.lookup(obj, key.lower())
        if value is not None:
            return value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    found = next(LineField(key).find(text), None)
    return found[1].strip() or None if found else None


# --------------------------------------------------------------------------------------------------------
# Rubric answers: blocks of "ID: / Property: / ... / Rationale: / Verdict:" lines


@dataclass(frozen=True)
class RubricVerdict:
    rubric_id: str | None
    property_text: str
    rationale: str
    score: float | None


class LineField:
    """``name: value`` lines, markdown-tolerant: ``- **Name:** value``, ``> Name: value``, ``# `Name`: value``.

    A line matches when it is: spaces, optionally list or quote markers (``-*>#``) and spaces, emphasis marks
    (``*_` ``), the name in any letter case, emphasis marks, spaces, ``:``; the value is the rest of the line
    without the spaces and emphasis marks after the colon and the spaces at its end. Names start with a letter.
    """

    _DECORATION = " \t-*>#_`"

    def __init__(self, name: str) -> None:
        self._candidate = re.compile(rf"(?im)^[{re.escape(self._DECORATION)}]*{re.escape(name)}")
        self._length = len(name)

    def find(self, text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, str]]:
        """(where the line starts, the value) of each matching line within ``text[start:end]``."""
        end = len(text) if end is None else end
        for candidate in self._candidate.finditer(text, start, end):
            value = self._value(text, candidate, end)
            if value is not None:
                yield candidate.start(), value

    def _value(self, text: str, candidate: re.Match[str], end: int) -> str | None:
        line_end = text.find("\n", candidate.end(), end)
        line_end = end if line_end == -1 else line_end
        if not _decoration(text[candidate.start() : candidate.end() - self._length]):
            return None
        rest = text[candidate.end() : line_end].lstrip("*_`").lstrip(" \t")
        if not rest.startswith(":"):
            return None
        return rest[1:].lstrip(" \t").lstrip("*_`").lstrip(" \t").rstrip(" \t")


def _decoration(prefix: str) -> bool:
    """Whether ``prefix`` is ``[ \t]*(?:[-*>#]+[ \t]*)?[*_`]*`` (checked without backtracking)."""
    rest = prefix.lstrip(" \t")
    if not rest.strip("*_`"):
        return True
    marks = rest.lstrip("-*>#")
    return len(marks) < len(rest) and not marks.lstrip(" \t").strip("*_`")


Finder = Callable[[str], list[tuple[int, str]]]  # (where each match starts, its value)


def _lines(field: LineField) -> Finder:
    return lambda text: list(field.find(text))


def _matches(pattern: re.Pattern[str]) -> Finder:
    return lambda text: [(match.start(), match.group(1)) for match in pattern.finditer(text)]


_STRICT = {name: _lines(LineField(name)) for name in ("ID", "Property", "Rationale", "Verdict")}
_LOOSE = {  # ADK's own patterns, but "^[^\S\n]*" where ADK has "^\s*" (which spans lines: quadratic on blank lines)
    "ID": _matches(re.compile(r"(?m)^[^\S\n]*ID: (.*)$")),
    "Property": _matches(re.compile(r"(?m)^[^\S\n]*Property: (.*)$")),
    "Rationale": _matches(re.compile(r"(?<=Rationale: )(.*)")),
    "Verdict": _matches(re.compile(r"(?<=Verdict: )(.*)")),
}


def verdict_score(verdict: str) -> float | None:
    """ADK's rule: "yes" anywhere means 1.0, else "no" anywhere means 0.0."""
    lowered = verdict.lower()
    if "yes" in lowered:
        return 1.0
    return 0.0 if "no" in lowered else None


def _clean_id(value: str) -> str | None:
    cleaned = value.strip().strip("*`[] \t")
    if cleaned.lower().startswith("id:"):
        cleaned = cleaned[3:].strip().strip("*`[] \t")
    return cleaned or None


def _parse_with(finders: dict[str, Finder], text: str) -> list[RubricVerdict]:
    properties = finders["Property"](text)
    rationales = [value for _, value in finders["Rationale"](text)]
    verdicts = [value for _, value in finders["Verdict"](text)]
    if not len(properties) == len(rationales) == len(verdicts):
        return []
    ids = finders["ID"](text)
    out: list[RubricVerdict] = []
    previous, next_id = -1, 0
    for index, (start, property_text) in enumerate(properties):
        rubric_id = None  # the last ID between the previous property and this one
        while next_id < len(ids) and ids[next_id][0] < start:
            if ids[next_id][0] > previous:
                rubric_id = _clean_id(ids[next_id][1])
            next_id += 1
        previous = start
        out.append(
            RubricVerdict(
                rubric_id=rubric_id,
                property_text=property_text.strip(),
                rationale=rationales[index].strip(),
                score=verdict_score(verdicts[index]),
            )
        )
    return out


def parse_rubric_verdicts(text: str) -> list[RubricVerdict]:
    """Line-anchored fields first (markdown-tolerant); ADK's own looser reading when that finds nothing."""
    text = bounded(text)
    return _parse_with(_STRICT, text) or _parse_with(_LOOSE, text)


_SMART = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_DECORATION = " *_`#>-\u2022\"'"


def normalize_property(text: str | None) -> str:
    """Rubric text as judges echo it back: typographic quotes, markdown and spacing do not matter."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).translate(_SMART)
    return " ".join(text.split()).strip(_DECORATION).lower()


# --------------------------------------------------------------------------------------------------------
# hallucinations_v1: segmenter and validator answers


_SENTENCE_OPEN = re.compile("<sentence>", re.IGNORECASE)
_SENTENCE_CLOSE = re.compile("</sentence>", re.IGNORECASE)


def parse_sentences(text: str) -> list[str]:
    """What each ``<sentence>...</sentence>`` holds (as ``re.findall`` with a lazy group would, in one pass)."""
    text = bounded(text)
    sentences: list[str] = []
    at = 0
    while (opening := _SENTENCE_OPEN.search(text, at)) and (closing := _SENTENCE_CLOSE.search(text, opening.end())):
        sentences.append(text[opening.end() : closing.start()])
        at = closing.end()
    return sentences


_SENTENCE_FIELD = LineField("sentence")
_LABEL_FIELD = LineField("label")


def _normalize_label(value: str) -> str:
    return re.sub(r"[\s-]+", "_", value.strip().strip("*`'\".").strip().lower())


def parse_sentence_labels(text: str) -> list[str]:
    """The label of each ``sentence: ... label: ...`` block, normalized (``Not applicable`` -> not_applicable)."""
    text = bounded(text)
    starts = [start for start, _ in _SENTENCE_FIELD.find(text)]
    if not starts:
        return [_normalize_label(value) for _, value in _LABEL_FIELD.find(text)]
    labels: list[str] = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        found = next(_LABEL_FIELD.find(text, start, end), None)
        if found:
            labels.append(_normalize_label(found[1]))
    return labels


def sentence_scores(text: str) -> list[float]:
    scores: list[float] = []
    for label in parse_sentence_labels(text):
        if label in SUPPORTED_LABELS:
            scores.append(1.0)
        elif label in UNSUPPORTED_LABELS:
            scores.append(0.0)
    return scores

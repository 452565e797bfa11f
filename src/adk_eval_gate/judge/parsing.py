"""Reading verdicts out of judge answers, robustly.

Every format the judges are asked for is read the way ADK 2.13 reads it, and more leniently where ADK would
lose a verdict the judge clearly gave: labels in any letter case (ADK's ``final_response_match_v2`` parser is
case-sensitive), a label at the very end of the answer, JSON inside a fenced block or surrounded by prose,
markdown bold around field names. What cannot be read is ``None`` (no label for that sample), never a pass.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

VALID_LABELS = frozenset({"valid", "true"})
INVALID_LABELS = frozenset({"invalid", "false", "almost", "partially_valid", "partially valid", "partially"})
SUPPORTED_LABELS = frozenset({"supported", "not_applicable"})
UNSUPPORTED_LABELS = frozenset({"unsupported", "contradictory", "disputed"})


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in the text, outermost first, in order of appearance."""
    decoder = json.JSONDecoder()
    index = text.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(text, index)
        except ValueError:
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict):
            yield value
        index = text.find("{", end)


def _lookup(obj: dict[str, Any], key: str) -> Any:
    for name, value in obj.items():
        if isinstance(name, str) and name.strip().lower() == key:
            return value
    for value in obj.values():
        if isinstance(value, dict):
            found = _lookup(value, key)
            if found is not None:
                return found
    return None


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
    """The value of ``key`` (case-insensitive), lower-cased: from JSON if any object has it, else by pattern."""
    key = key.lower()
    for obj in json_objects(text):
        value = _lookup(obj, key)
        if value is not None:
            return _clean_label(value)
    pattern = (
        r"[\"'*`]*" + re.escape(key) + r"[\"'*`]*\s*[:=]\s*\[?\s*[\"'*`]*\s*([A-Za-z0-9_./\- ]*?)\s*[\"'*`]*\s*\]?\s*"
        r"(?=[,}\]\n\r;]|$)"
    )
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return _clean_label(match.group(1)) if match else None


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
    for obj in json_objects(text):
        value = _lookup(obj, key.lower())
        if value is not None:
            return value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    match = _line_field(key).search(text)
    return match.group(1).strip() or None if match else None


# --------------------------------------------------------------------------------------------------------
# Rubric answers: blocks of "ID: / Property: / ... / Rationale: / Verdict:" lines


@dataclass(frozen=True)
class RubricVerdict:
    rubric_id: str | None
    property_text: str
    rationale: str
    score: float | None


def _line_field(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?im)^[ \t]*(?:[-*>#]+[ \t]*)?[*_`]*{name}[*_`]*[ \t]*:[ \t]*[*_`]*[ \t]*(.*?)[ \t]*$")


_STRICT = {name: _line_field(name) for name in ("ID", "Property", "Rationale", "Verdict")}
_LOOSE = {
    "ID": re.compile(r"(?m)^\s*ID: (.*)$"),
    "Property": re.compile(r"(?m)^\s*Property: (.*)$"),
    "Rationale": re.compile(r"(?<=Rationale: )(.*)"),
    "Verdict": re.compile(r"(?<=Verdict: )(.*)"),
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


def _parse_with(patterns: dict[str, re.Pattern[str]], text: str) -> list[RubricVerdict]:
    properties = list(patterns["Property"].finditer(text))
    ids = list(patterns["ID"].finditer(text))
    rationales = [m.group(1) for m in patterns["Rationale"].finditer(text)]
    verdicts = [m.group(1) for m in patterns["Verdict"].finditer(text)]
    if not len(properties) == len(rationales) == len(verdicts):
        return []
    out: list[RubricVerdict] = []
    for index, match in enumerate(properties):
        previous = properties[index - 1].start() if index else -1
        rubric_id = None
        for id_match in ids:
            if previous < id_match.start() < match.start():
                rubric_id = _clean_id(id_match.group(1))
        out.append(
            RubricVerdict(
                rubric_id=rubric_id,
                property_text=match.group(1).strip(),
                rationale=rationales[index].strip(),
                score=verdict_score(verdicts[index]),
            )
        )
    return out


def parse_rubric_verdicts(text: str) -> list[RubricVerdict]:
    """Line-anchored fields first (markdown-tolerant); ADK's own looser reading when that finds nothing."""
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


def parse_sentences(text: str) -> list[str]:
    return re.findall(r"<sentence>(.*?)</sentence>", text, flags=re.DOTALL | re.IGNORECASE)


_SENTENCE_FIELD = _line_field("sentence")
_LABEL_FIELD = _line_field("label")


def _normalize_label(value: str) -> str:
    return re.sub(r"[\s-]+", "_", value.strip().strip("*`'\".").strip().lower())


def parse_sentence_labels(text: str) -> list[str]:
    """The label of each ``sentence: ... label: ...`` block, normalized (``Not applicable`` -> not_applicable)."""
    starts = [m.start() for m in _SENTENCE_FIELD.finditer(text)]
    if not starts:
        return [_normalize_label(m.group(1)) for m in _LABEL_FIELD.finditer(text)]
    labels: list[str] = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        match = _LABEL_FIELD.search(text, start, end)
        if match:
            labels.append(_normalize_label(match.group(1)))
    return labels


def sentence_scores(text: str) -> list[float]:
    scores: list[float] = []
    for label in parse_sentence_labels(text):
        if label in SUPPORTED_LABELS:
            scores.append(1.0)
        elif label in UNSUPPORTED_LABELS:
            scores.append(0.0)
    return scores

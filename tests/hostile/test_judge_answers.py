"""Judge answers are read in linear time.

Answers built against each pattern (``"is_the_agent_response_valid": `` + 64 spaces + ``!`` for the label
pattern, and the like for the line-field, rubric and sentence patterns, or an answer nested 200,000 deep for the
JSON search) would hold a backtracking parser for minutes or raise RecursionError. Every parser below gets answers
of about 1 MB built against its patterns; each must finish well inside the timeout (on a linear parser each takes
a fraction of a second), and answers past ``MAX_ANSWER_CHARS`` are read only up to it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adk_eval_gate.judge import parsing

MB = 1_000_000


def _fill(unit: str) -> str:
    return unit * (MB // len(unit))


LABEL_KEY = '"is_the_agent_response_valid": '
ADVERSARIAL: dict[str, str] = {  # each about 1 MB
    "label-64-spaces": LABEL_KEY + " " * 64 + "!",
    "label-spaces": LABEL_KEY + _fill(" ") + "!",
    "label-quotes-and-spaces": LABEL_KEY + "[" + _fill(' "') + "!",
    "label-value-run": LABEL_KEY + _fill("valid ") + "!",
    "label-many-keys": _fill(LABEL_KEY + " x "),
    "label-newlines": LABEL_KEY + _fill(" \n") + "!",
    "json-deep": _fill('{"a":'),
    "json-deep-with-siblings": _fill('{"x":[],"a":'),
    "json-deep-strings": _fill('{"x":"]","a":'),
    "json-unterminated-strings": _fill('{"a": "{'),
    "json-braces": _fill("{"),
    "json-flat-unterminated": "{" + _fill('"a":1,'),
    "line-field-spaces": "Verdict:" + _fill(" ") + "x",
    "line-field-stars": _fill("*") + "Verdict",
    "line-field-markers": _fill("- * "),
    "line-field-emphasis": "**Verdict**:" + _fill("*_ ") + "x",
    "rubric-blank-lines": _fill("\n"),
    "rubric-space-lines": _fill(" \n"),
    "rubric-fields": _fill("Property: p\nRationale: r\n"),
    "sentences-unclosed": _fill("<sentence>"),
    "sentences-closed": _fill("<sentence>a</sentence>"),
    "sentence-labels": _fill("sentence: a\nlabel: supported\n"),
    "score-digits": '"score": "' + _fill("1") + '/"',
}

PARSERS: dict[str, Callable[[str], object]] = {
    "final_response_verdict": parsing.final_response_verdict,
    "is_valid_verdict": parsing.is_valid_verdict,
    "safety_verdict": parsing.safety_verdict,
    "scale_score": lambda text: parsing.scale_score(text, low=1.0, high=5.0),
    "rated_score": lambda text: parsing.rated_score(text, [0.0, 1.0]),
    "field_text": lambda text: parsing.field_text(text, "explanation"),
    "json_objects": lambda text: list(parsing.json_objects(text)),
    "parse_rubric_verdicts": parsing.parse_rubric_verdicts,
    "parse_sentences": parsing.parse_sentences,
    "sentence_scores": parsing.sentence_scores,
    "normalize_property": parsing.normalize_property,
}


@pytest.mark.slow  # about 20 s in all
@pytest.mark.timeout(60)
@pytest.mark.parametrize("answer", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_every_parser_reads_an_adversarial_answer_of_1_mb_in_linear_time(answer: str) -> None:
    for parse in PARSERS.values():
        parse(answer)


@pytest.mark.slow  # every parser on every adversarial answer: most of a second of CPU
@pytest.mark.timeout(60)
def test_every_parser_reads_the_adversarial_answers_cut_to_50_kb_in_linear_time() -> None:
    """At 50 KB the quadratic patterns of before took minutes too: this fails in seconds, not minutes."""
    for answer in ADVERSARIAL.values():
        for parse in PARSERS.values():
            parse(answer[:50_000])


@pytest.mark.slow  # two parsers on answers of a megabyte
def test_the_reported_answer_is_no_verdict() -> None:
    assert parsing.final_response_verdict(ADVERSARIAL["label-64-spaces"]) is None
    assert parsing.final_response_verdict(ADVERSARIAL["json-deep"]) is None


@pytest.mark.timeout(60)
def test_an_answer_longer_than_the_bound_is_read_up_to_it() -> None:
    verdict = '{"is_the_agent_response_valid": "valid"}'
    padding = "x" * (parsing.MAX_ANSWER_CHARS + 10)
    assert parsing.final_response_verdict(verdict + padding) == 1.0
    assert parsing.final_response_verdict(padding + verdict) is None
    assert parsing.parse_sentences("<sentence>A.</sentence>" + padding + "<sentence>B.</sentence>") == ["A."]

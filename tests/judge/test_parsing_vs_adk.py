"""Our answer parsers read everything ADK 2.13's parsers read, the same way, and more: where ADK finds a
verdict we find the same one; the listed answers are ones ADK loses and we read (the deliberate robustness)."""

from __future__ import annotations

import pytest
from google.adk.evaluation.final_response_match_v2 import _parse_critique
from google.adk.evaluation.hallucinations_v1 import _parse_sentences, _parse_validation_results
from google.adk.evaluation.llm_as_judge_utils import Label
from google.adk.evaluation.rubric_based_evaluator import DefaultAutoRaterResponseParser
from google.adk.evaluation.simulation.per_turn_user_simulator_quality_v1 import _parse_llm_response

from adk_eval_gate.judge import adk_parsing, parsing

ADK_SCORE = {Label.VALID: 1.0, Label.INVALID: 0.0, Label.NOT_FOUND: None}

V2_ANSWERS = [
    '{"reasoning": "a", "is_the_agent_response_valid": "valid"}',
    '{"reasoning": "a", "is_the_agent_response_valid": "invalid"}',
    '```json\n{\n  "reasoning": "a",\n  "is_the_agent_response_valid": "valid"\n}\n```',
    '{"is_the_agent_response_valid": ["invalid"]}',
    '{"is_the_agent_response_valid": "true"}',
    '{"is_the_agent_response_valid": "almost"}',
    '{"is_the_agent_response_valid": "partially"}',
    '{"is_the_agent_response_valid": "maybe"}',
    '{"is_the_agent_response_invalid": "true"}',
    '{"is_the_agent_response_invalid": "false"}',
    '"is_the_agent_response_valid": valid,\n"reasoning": "x"',
    "no json at all",
]


@pytest.mark.parametrize("answer", V2_ANSWERS)
def test_final_response_verdicts_agree_where_adk_reads_one(answer: str) -> None:
    assert parsing.final_response_verdict(answer) == ADK_SCORE[_parse_critique(answer)]


@pytest.mark.parametrize(
    ("answer", "ours"),
    [
        ('{"is_the_agent_response_valid": "Valid"}', 1.0),  # ADK is case-sensitive
        ('{"is_the_agent_response_valid": "INVALID"}', 0.0),
        ('The verdict: "is_the_agent_response_valid": "valid"', 1.0),  # nothing after the label
        ('{"is_the_agent_response_valid": "partially valid"}', 0.0),  # a space in the label
    ],
)
def test_final_response_verdicts_adk_loses(answer: str, ours: float) -> None:
    assert _parse_critique(answer) == Label.NOT_FOUND
    assert parsing.final_response_verdict(answer) == ours


@pytest.mark.parametrize(
    "answer",
    ['{"is_valid": true}', '{"is_valid": "False"}', '{"is_valid": "almost"}', '{"is_valid": "??"}', "nothing"],
)
def test_user_simulator_verdicts_agree(answer: str) -> None:
    assert parsing.is_valid_verdict(answer) == ADK_SCORE[_parse_llm_response(answer)]


RUBRIC_ANSWERS = [
    "ID: r1\nProperty: Short.\nEvidence: e\nRationale: fine\nVerdict: yes\n\nID: r2\nProperty: Polite.\n"
    "Rationale: rude\nVerdict: no\n",
    "STEP 1: Short.\nSTEP 5: yes\nID: r1\nProperty: Short.\nRationale: ok\nVerdict: Yes, it is.\n",
    "Property: Short.\nRationale: r\nVerdict: unclear\nProperty: Polite.\nRationale: r\nVerdict: not really\n",
    "Property: Short.\nRationale: r\nVerdict: yes\nProperty: Polite.\nRationale: r\n",  # counts differ: nothing
]


@pytest.mark.parametrize("answer", RUBRIC_ANSWERS)
def test_rubric_verdicts_agree(answer: str) -> None:
    theirs = [
        (r.rubric_id, r.property_text, r.rationale, r.score) for r in DefaultAutoRaterResponseParser().parse(answer)
    ]
    ours = [(v.rubric_id, v.property_text, v.rationale, v.score) for v in parsing.parse_rubric_verdicts(answer)]
    assert ours == theirs


def test_rubric_verdicts_adk_loses() -> None:
    answer = "**ID:** r1\n**Property:** Short.\n**Rationale:** ok\n**Verdict:** yes\n"
    assert DefaultAutoRaterResponseParser().parse(answer) == []
    assert [(v.rubric_id, v.score) for v in parsing.parse_rubric_verdicts(answer)] == [("r1", 1.0)]


VALIDATION = (
    "sentence: A.\nlabel: supported\nrationale: r\nsupporting_excerpt: A\ncontradicting_excerpt: null\n"
    "sentence: B.\nlabel: UNSUPPORTED\nrationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null\n"
    "sentence: C.\nlabel: odd\nrationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null"
)


def test_sentence_labels_agree() -> None:
    theirs = [result["label"].strip().lower() for result in _parse_validation_results(VALIDATION)]
    assert parsing.parse_sentence_labels(VALIDATION) == theirs == ["supported", "unsupported", "odd"]


def test_sentence_labels_adk_loses() -> None:
    answer = "- **sentence:** A.\n  **label:** not applicable\n  rationale: greeting\n"
    assert _parse_validation_results(answer) == []
    assert parsing.sentence_scores(answer) == [1.0]


HALLUCINATION_ANSWERS = [
    VALIDATION,
    "sentence: A.\nlabel: Not applicable\nrationale: r\nsupporting_excerpt: null\ncontradicting_excerpt: null",
    "Sentence: A.\nLABEL:  Supported \nRationale: r\nSupporting_Excerpt: x\nContradicting_Excerpt: null\n\n"
    "sentence: B.",
    "sentence: A.\nlabel: supported\nrationale: r\nsupporting_excerpt: x",  # a field missing: nothing read
    "sentence: A.\nlabel: supported\nrationale: r\nsupporting_excerpt: x\ncontradicting_excerpt: y\n"
    "sentence: B.\nlabel: unsupported\nrationale: r",
    "- **sentence:** A.\n  **label:** not applicable\n  rationale: greeting\n",
    "prose sentence: first\nlabel: disputed\nrationale: \nsupporting_excerpt:\ncontradicting_excerpt:",
    "",
]


@pytest.mark.parametrize("answer", HALLUCINATION_ANSWERS)
def test_sentence_labels_are_read_by_default_exactly_as_adk_reads_them(answer: str) -> None:
    theirs = [result["label"] for result in _parse_validation_results(answer)]
    assert adk_parsing.validation_labels(answer) == theirs
    positive, negative = {"supported", "not_applicable"}, {"unsupported", "contradictory", "disputed"}
    known = [label.strip().lower() for label in theirs if label.strip().lower() in positive | negative]
    assert adk_parsing.sentence_scores(answer) == [1.0 if label in positive else 0.0 for label in known]


@pytest.mark.parametrize(
    "answer", ["<sentence>A.</sentence><sentence>B\nC</sentence>", "<SENTENCE>A.</SENTENCE>", "<sentence>open", ""]
)
def test_segmented_sentences_are_read_by_default_exactly_as_adk_reads_them(answer: str) -> None:
    assert adk_parsing.parse_sentences(answer) == _parse_sentences(answer)


def test_adks_reading_of_a_hostile_answer_reads_each_character_a_bounded_number_of_times() -> None:
    """Runs of what ADK's lazy groups would retry over: read once each, whatever the answer's size."""
    blocks = "sentence: x\nlabel: supported\n" * 100_000 + "\x00" * 100_000
    assert adk_parsing.validation_labels(blocks) == []
    assert adk_parsing.parse_sentences("<sentence>" * 200_000) == []

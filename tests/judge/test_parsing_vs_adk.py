"""By default every judge answer is read exactly as ADK 2.13 reads it (``adk_parsing``: the same labels, scores
and rubric verdicts as ADK's own functions, on hostile answers too); the lenient reading (``parsing``, opt-in with
--lenient-judge-labels) reads everything ADK reads the same way, and more: the listed answers are ones ADK loses
and the lenient reading reads."""

from __future__ import annotations

import pytest
from google.adk.evaluation.final_response_match_v2 import _parse_critique
from google.adk.evaluation.hallucinations_v1 import _parse_sentences, _parse_validation_results
from google.adk.evaluation.llm_as_judge_utils import Label
from google.adk.evaluation.rubric_based_evaluator import DefaultAutoRaterResponseParser
from google.adk.evaluation.simulation.per_turn_user_simulator_quality_v1 import _parse_llm_response
from hypothesis import given, settings
from hypothesis import strategies as st

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


# Answers built to probe every step of ADK's patterns: keys, spaces (line breaks, tabs, Unicode spaces), brackets,
# quotes, terminators, labels in other letter cases or with spaces, markdown, JSON, several keys, NUL, long runs.
V2_KEY, V2_INVERTED, IS_VALID = '"is_the_agent_response_valid":', '"is_the_agent_response_invalid":', '"is_valid":'
LABEL_ANSWERS = [
    f"{key}{rest}"
    for key in (V2_KEY, V2_INVERTED, IS_VALID)
    for rest in (
        ' "valid",',
        ' "valid"',
        " valid}",
        " valid",
        ' ["invalid"]}',
        ' [ [ "true" ] ] ,',
        ' "Valid",',
        ' "VALID"\n',
        ' "partially valid",',
        ' "partially  valid",',
        ' "partially_valid"}',
        ' "Not applicable",',
        ' ""\n',
        " \n",
        " \n x",
        ' \n"valid" x',
        '"valid""",',
        ' "valid" ] ] \n',
        ' "va lid",',
        ' "valid\u2028",',
        ' "valid",\u00a0',
        ' "val^id",',
        ' "valid,valid",',
        ' "true}",',
        ' "almost" "x"\n',
        " **valid**,",
        ' "vålid",',
        ' "valid\x00",',
        " [" * 500 + '"valid"' + "]" * 500 + ",",
        " " * 30 + '"valid"' + " " * 30 + "x",  # ADK's own pattern is polynomial in such runs
        ' "' + "v" * 20_000 + '" x',
        '\t\r\x0b\x0c\x1c"false"\x1d,',
    )
] + [
    '{"reasoning": "x", "is_the_agent_response_valid": "valid"}',
    '```json\n{\n  "is_the_agent_response_valid": "invalid"\n}\n```',
    f'{V2_KEY} "maybe" x {V2_KEY} "valid",',
    f'{V2_KEY} x {V2_INVERTED} "false",',
    f"{V2_KEY}{V2_KEY} valid,",
    f'{IS_VALID}{IS_VALID} "true",',
    '"IS_VALID": true,',
    "is_valid: true\n",
    '"is_the_agent_response_valid" : "valid",',
    "\x00" * 1_000,
    "",
]
FRAGMENTS = [V2_KEY, V2_INVERTED, IS_VALID, " ", "\n", "\t", "\u2028", "\x1c", "\u00a0", "[", "]", '"', ",", "}", "^"]
FRAGMENTS += ["valid", "invalid", "true", "false", "almost", "partially", "partially valid", "Valid", "x", "{"]
fragment_answers = st.lists(st.sampled_from(FRAGMENTS), max_size=14).map("".join)


def adk_label_scores(answer: str) -> tuple[float | None, float | None]:
    return ADK_SCORE[_parse_critique(answer)], ADK_SCORE[_parse_llm_response(answer)]


def gate_label_scores(answer: str) -> tuple[float | None, float | None]:
    return adk_parsing.final_response_verdict(answer), adk_parsing.is_valid_verdict(answer)


def test_the_label_corpus_is_large_and_tricky() -> None:
    assert len(LABEL_ANSWERS) > 100
    scores = [adk_label_scores(answer) for answer in LABEL_ANSWERS]
    assert {v2 for v2, _ in scores} == {is_valid for _, is_valid in scores} == {1.0, 0.0, None}


@pytest.mark.parametrize("answer", LABEL_ANSWERS)
def test_judge_labels_are_read_by_default_exactly_as_adk_reads_them(answer: str) -> None:
    assert gate_label_scores(answer) == adk_label_scores(answer)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.one_of(fragment_answers, st.text(max_size=60)))
def test_any_answer_gets_adks_labels(answer: str) -> None:
    assert gate_label_scores(answer) == adk_label_scores(answer)


def rubric_fields(read: object) -> list[tuple[str | None, str | None, str | None, float | None]]:
    return [(r.rubric_id, r.property_text, r.rationale, r.score) for r in read]  # type: ignore[attr-defined]


RUBRIC_CORPUS = [
    *RUBRIC_ANSWERS,
    "**ID:** r1\n**Property:** Short.\n**Rationale:** ok\n**Verdict:** yes\n",
    "  ID: r1\n\n\n   Property: Short.\nRationale: ok\nVerdict: YES\n",
    "ID: \nProperty: Short.\nRationale: ok\nVerdict: no\n",
    "ID: r1\nID: r2\nProperty: Short.\nRationale: ok Rationale: again\nVerdict: nope\n",
    "Property: A\nRationale: Verdict: yes\nVerdict: no\n",
    "Property: A Property: B\nRationale: x\nVerdict: x yes\n",
    "property: A\nrationale: x\nverdict: yes\n",
    "Property:A\nRationale:x\nVerdict:yes\n",
    "\u2028Property: A\nRationale: x\nVerdict: Yes\r\n",
    "\x1cID: r1\r\nProperty: A\r\nRationale: x\r\nVerdict: no\r\n",
    "Property: \u201cA\u201d\nRationale: \x00\nVerdict: Know\n",
    "ID: r1\nProperty: A\nRationale: x\nVerdict: yes" + "\n" * 1_000 + "Property: B\nRationale: y\nVerdict: no",
    "Rationale: " * 500 + "\nVerdict: yes\nProperty: A",
    "ID: r\nProperty: A\nRationale: x\nVerdict: yes\n" * 300,
    "",
]
RUBRIC_FRAGMENTS = ["ID: ", "Property: ", "Rationale: ", "Verdict: ", "yes", "no", "r1", " ", "\n", "\n\n", "\t"]
RUBRIC_FRAGMENTS += ["**", "\r", "\x1c", "\u2028", "ID:", "Verdict:", "x"]


@pytest.mark.parametrize("answer", RUBRIC_CORPUS)
def test_rubric_answers_are_read_by_default_exactly_as_adk_reads_them(answer: str) -> None:
    theirs = rubric_fields(DefaultAutoRaterResponseParser().parse(answer))
    assert rubric_fields(adk_parsing.rubric_verdicts(answer)) == theirs


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(st.sampled_from(RUBRIC_FRAGMENTS), max_size=16).map("".join), st.text(max_size=60)))
def test_any_rubric_answer_gets_adks_verdicts(answer: str) -> None:
    theirs = rubric_fields(DefaultAutoRaterResponseParser().parse(answer))
    assert rubric_fields(adk_parsing.rubric_verdicts(answer)) == theirs


@pytest.mark.slow
def test_adks_label_readings_of_hostile_answers_read_each_character_a_bounded_number_of_times() -> None:
    """Runs that ADK's patterns would backtrack over (spaces, brackets, quotes, label characters, blank lines)
    are read once each, whatever the answer's size: these finish, where a backtracking reading would not."""
    for run in (" " * 200_000, "[" * 200_000, '"' * 200_000, "x" * 200_000, " x" * 100_000):
        for key in (V2_KEY, V2_INVERTED, IS_VALID):
            assert gate_label_scores(f"{key}{run}") == (None, None)
    assert gate_label_scores(f'{IS_VALID} "x' * 50_000) == (None, None)
    assert adk_parsing.rubric_verdicts(" \n" * 300_000 + "x") == []
    assert adk_parsing.rubric_verdicts("Property: x\n" * 50_000) == []

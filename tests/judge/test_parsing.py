"""Reading verdicts out of judge answers: ADK's formats, and the robustness beyond ADK's parsers."""

from __future__ import annotations

import pytest

from adk_eval_gate.judge import parsing


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"reasoning": "ok", "is_the_agent_response_valid": "valid"}', 1.0),
        ('{"reasoning": "no", "is_the_agent_response_valid": "invalid"}', 0.0),
        ('```json\n{\n  "reasoning": "fine",\n  "is_the_agent_response_valid": "valid"\n}\n```', 1.0),
        ('Let me think.\n{"is_the_agent_response_valid": "Valid", "reasoning": "x"}\nThat is all.', 1.0),  # capital
        ('"is_the_agent_response_valid": "INVALID"', 0.0),  # no trailing comma or brace: ADK finds nothing
        ('"is_the_agent_response_valid": valid', 1.0),
        ('{"is_the_agent_response_valid": ["valid"]}', 1.0),
        ('{"is_the_agent_response_valid": true}', 1.0),
        ('{"is_the_agent_response_valid": "almost"}', 0.0),
        ('{"is_the_agent_response_valid": "partially valid"}', 0.0),
        ('{"is_the_agent_response_valid": "partially-valid"}', 0.0),
        ('{"is_the_agent_response_valid": "maybe"}', None),
        ('{"is_the_agent_response_invalid": "false"}', 1.0),
        ('{"is_the_agent_response_invalid": "true"}', 0.0),
        ("The response is valid.", None),  # prose without the field is no verdict, never a pass
        ("", None),
        (
            'Format: "is_the_agent_response_valid": "valid" or "invalid"\n{"is_the_agent_response_valid": "invalid"}',
            0.0,
        ),
    ],
)
def test_final_response_verdict(answer: str, expected: float | None) -> None:
    assert parsing.final_response_verdict(answer) == expected


def test_first_json_object_wins_like_adks_first_match() -> None:
    answer = '{"is_the_agent_response_valid": "valid"}\nOn reflection:\n{"is_the_agent_response_valid": "invalid"}'
    assert parsing.final_response_verdict(answer) == 1.0


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"reasoning": "x", "is_valid": true}', 1.0),
        ('{"reasoning": "x", "is_valid": False}', 0.0),  # not JSON (Python's False): read by pattern
        ('{"is_valid": "Invalid"}', 0.0),
        ("is_valid: maybe", None),
        ("nothing here", None),
    ],
)
def test_is_valid_verdict(answer: str, expected: float | None) -> None:
    assert parsing.is_valid_verdict(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [('{"is_safe": true}', 1.0), ('{"is_safe": false}', 0.0), ('"is_safe": "Unsafe"', 0.0), ("safe", None)],
)
def test_safety_verdict(answer: str, expected: float | None) -> None:
    assert parsing.safety_verdict(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"reasoning": "x", "score": 4}', 4.0),
        ('{"score": "5"}', 5.0),
        ("score: 3/5", 3.0),
        ('{"score": 9}', None),  # outside 1-5
        ('{"score": 0}', None),
        ('{"score": "high"}', None),
    ],
)
def test_scale_score(answer: str, expected: float | None) -> None:
    assert parsing.scale_score(answer, low=1.0, high=5.0) == expected


RUBRIC_ANSWER = """\
ID: r1
Property: The answer is concise.
Evidence: short
Rationale: It is one sentence.
Verdict: yes

ID: r2
Property: The answer is a haiku.
Evidence: none
Rationale: It is not.
Verdict: no
"""


def test_rubric_blocks() -> None:
    verdicts = parsing.parse_rubric_verdicts(RUBRIC_ANSWER)
    assert [(v.rubric_id, v.property_text, v.rationale, v.score) for v in verdicts] == [
        ("r1", "The answer is concise.", "It is one sentence.", 1.0),
        ("r2", "The answer is a haiku.", "It is not.", 0.0),
    ]


def test_rubric_blocks_in_markdown() -> None:
    answer = (
        "Here is my review.\n\n**ID:** `r1`\n**Property:** The answer is concise.\n**Rationale:** short.\n"
        "**Verdict:** **Yes**\n\n- ID: r2\n- Property: The answer is a haiku.\n- Rationale: prose\n- Verdict: No.\n"
    )
    verdicts = parsing.parse_rubric_verdicts(answer)
    assert [(v.rubric_id, v.score) for v in verdicts] == [("r1", 1.0), ("r2", 0.0)]


def test_rubric_verdict_on_the_rationale_line_is_read_as_adk_does() -> None:
    answer = "Property: The answer is concise.\nRationale: short. Verdict: yes\n"
    assert [(v.property_text, v.score) for v in parsing.parse_rubric_verdicts(answer)] == [
        ("The answer is concise.", 1.0)
    ]


def test_rubric_blocks_with_a_missing_verdict_give_nothing() -> None:
    answer = RUBRIC_ANSWER.replace("Verdict: no\n", "")
    assert parsing.parse_rubric_verdicts(answer) == []


def test_rubric_verdict_words_follow_adks_substring_rule() -> None:
    assert parsing.verdict_score("Yes, it is") == 1.0
    assert parsing.verdict_score("no") == 0.0
    assert parsing.verdict_score("not sure") == 0.0  # ADK: contains "no"
    assert parsing.verdict_score("unclear") is None


def test_normalize_property() -> None:
    assert parsing.normalize_property("  **The answer\u2019s   tone is \u201cpolite\u201d.**  ") == (
        'the answer\'s tone is "polite".'
    )
    assert parsing.normalize_property("- \u2022 Uses the tool \u2013 once") == "uses the tool - once"
    assert parsing.normalize_property(None) == ""


def test_sentences_and_labels() -> None:
    assert parsing.parse_sentences("<sentence>A.</sentence>\n<SENTENCE>B\nc.</SENTENCE>") == ["A.", "B\nc."]
    answer = (
        "sentence: A.\nlabel: supported\nrationale: x\nsupporting_excerpt: A\ncontradicting_excerpt: null\n"
        "sentence: B.\nlabel: **Contradictory**\nrationale: y\nsupporting_excerpt: null\ncontradicting_excerpt: C\n"
        "sentence: Hi.\nLabel: Not applicable\nrationale: greeting\n"
        "sentence: D.\nlabel: weird\nrationale: z\n"
    )
    assert parsing.parse_sentence_labels(answer) == ["supported", "contradictory", "not_applicable", "weird"]
    assert parsing.sentence_scores(answer) == [1.0, 0.0, 1.0]

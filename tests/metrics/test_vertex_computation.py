"""Vertex AI's computation-based metrics: ROUGE equals rouge-score's own scorer, BLEU equals sacrebleu's sentence
BLEU, exact_match's edge cases, and the tool-use metrics per tool call."""

from __future__ import annotations

from pathlib import Path

import pytest
import sacrebleu
from google.genai import types

from adk_eval_gate.metrics.rouge import import_under_nltk_shells
from adk_eval_gate.model.evalset import AgentDetails, AppDetails
from adk_eval_gate.model.results import MetricStatus
from tests.judge.helpers import invocation, run_of
from tests.metrics.vertex_helpers import build, outcome, with_calls

# rouge-score's own module: imported the way the metric imports it (without loading all of NLTK), the same code
ROUGE_SCORE = import_under_nltk_shells("rouge_score.rouge_scorer")

PAIRS = [
    ("The weather in London is rainy and 14 C.", "It is raining in London, 14 degrees."),
    ("running runs ran runner", "run"),
    ("the cat sat on the mat\nthe dog ran", "the cat is on the mat\na dog ran away"),
    ("flights: SFO->LAX @ $150.00", "SFO to LAX flight for 150 dollars"),
    ("", "something"),
    ("", ""),
    ("Le chat est sur le tapis.", "Le chat dort sur le tapis."),
    ("東京の天気は晴れです", "東京は晴れ"),
]


def _scores(name: str, criterion: object, pairs: list[tuple[str, str]]) -> list[float | None]:
    metric = build(name, criterion)
    run = run_of(
        [invocation(f"q{i}", response) for i, (response, _) in enumerate(pairs)],
        [invocation(f"q{i}", reference) for i, (_, reference) in enumerate(pairs)],
    )
    return [item.score for item in outcome(metric, run).per_invocation]


@pytest.mark.parametrize("use_stemmer", [False, True])
@pytest.mark.parametrize(
    ("name", "rouge_type"),
    [("rouge_1", "rouge1"), ("rouge_2", "rouge2"), ("rouge_l", "rougeL"), ("rouge_l_sum", "rougeLsum")],
)
def test_rouge_variants_equal_rouge_scores_own_scorer(name: str, rouge_type: str, use_stemmer: bool) -> None:
    scorer = ROUGE_SCORE.RougeScorer([rouge_type], use_stemmer=use_stemmer)
    wanted = [scorer.score(reference, response)[rouge_type].fmeasure for response, reference in PAIRS]
    assert _scores(name, {"threshold": 0.5, "use_stemmer": use_stemmer}, PAIRS) == pytest.approx(wanted, abs=1e-12)


def test_rouge_with_a_rouge_type_and_the_defaults() -> None:
    scorer = ROUGE_SCORE.RougeScorer(["rouge3"])
    wanted = [scorer.score(reference, response)["rouge3"].fmeasure for response, reference in PAIRS]
    assert _scores("rouge", {"threshold": 0.5, "rouge_type": "rouge3"}, PAIRS) == pytest.approx(wanted)
    unstemmed = _scores("rouge_1", 0.5, [("running runs", "run")])
    assert unstemmed == [0.0]  # Vertex's default: no stemming
    assert _scores("rouge_1", {"threshold": 0.5, "use_stemmer": True}, [("running runs", "run")]) == [
        pytest.approx(2 / 3)
    ]


MULTILINGUAL = [
    ("The cat sat on the mat.", "The cat is sitting on the mat."),
    ("Die Katze sitzt auf der Matte.", "Die Katze saß auf der Matte."),
    ("Le chat est assis sur le tapis rouge.", "Le chat est sur le tapis."),
    ("猫坐在垫子上。", "猫在垫子上坐着。"),
    ("猫はマットの上に座っています。", "猫がマットの上に座っている。"),
    ("القط يجلس على السجادة.", "القط جالس على السجادة."),
    ("Кошка сидит на коврике.", "Кошка сидела на коврике."),
    ("बिल्ली चटाई पर बैठी है।", "बिल्ली चटाई पर बैठी थी।"),
    ("", "nothing said"),
    ("exactly the same words here", "exactly the same words here"),
]


@pytest.mark.parametrize("tokenize", ["13a", "intl", "zh", "char", "none"])
@pytest.mark.parametrize("effective_order", [False, True])
def test_bleu_equals_sacrebleus_sentence_bleu(tokenize: str, effective_order: bool) -> None:
    criterion = {"threshold": 0.3, "tokenize": tokenize, "use_effective_order": effective_order}
    wanted = [
        sacrebleu.sentence_bleu(response, [reference], tokenize=tokenize, use_effective_order=effective_order).score
        / 100
        for response, reference in MULTILINGUAL
    ]
    assert _scores("bleu", criterion, MULTILINGUAL) == pytest.approx(wanted, abs=1e-12)
    assert wanted[-1] == pytest.approx(1.0)


def test_bleu_defaults_are_vertexs_and_sacrebleus_advice_is_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    wanted = sacrebleu.sentence_bleu("a b c d e", ["a b c d f"], use_effective_order=False).score / 100
    with caplog.at_level("WARNING"):
        assert _scores("bleu", 0.3, [("a b c d e", "a b c d f")]) == [pytest.approx(wanted)]
    assert "effective_order" not in caplog.text


def test_exact_match_ignores_surrounding_whitespace_only() -> None:
    pairs = [
        ("Paris", "Paris"),
        ("  Paris\n", "Paris"),  # leading and trailing whitespace: ignored
        ("paris", "Paris"),  # case counts
        ("New  York", "New York"),  # inner whitespace counts
        ("Paris.", "Paris"),  # punctuation counts
        ("Ame\u0301lie", "Am\u00e9lie"),  # Unicode form counts (NFD is not NFC)
        ("", ""),
        ("", "   "),
    ]
    assert _scores("exact_match", 1.0, pairs) == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    metric = build("exact_match", 0.5)
    result = outcome(
        metric, run_of([invocation("a", "x"), invocation("b", "y")], [invocation("a", "x"), invocation("b", "z")])
    )
    assert (result.score, result.status) == (0.5, MetricStatus.PASSED)  # averaged per case, like ADK's metrics


def test_response_metrics_need_expected_invocations() -> None:
    from adk_eval_gate.model.evalset import ConversationScenario, EvalCase

    case = EvalCase(
        eval_id="s", conversation_scenario=ConversationScenario(starting_prompt="hi", conversation_plan="p")
    )
    result = outcome(build("bleu", 0.5), run_of([invocation("hi", "hello")], None, case))
    assert result.status is MetricStatus.NOT_EVALUATED and "conversation_scenario" in (result.reason or "")


BOOK = {"movie": "Dune", "theater": "Regal 14", "num_tix": "2"}


def test_tool_name_and_parameter_metrics_per_paired_call() -> None:
    actual = [
        with_calls("1", "ok", ("book", BOOK)),
        with_calls("2", "ok", ("book", {"movie": "dune ", "theater": "Regal  14", "num_tix": 2})),
        with_calls("3", "ok", ("book", {"movie": "Dune"}), ("pay", {"amount": 10})),
        with_calls("4", "ok", ("search", {"movie": "Dune", "city": "Oslo"})),
        with_calls("5", "ok"),
    ]
    expected = [
        with_calls("1", "ok", ("book", BOOK)),
        with_calls("2", "ok", ("book", BOOK)),
        with_calls("3", "ok", ("book", BOOK)),
        with_calls("4", "ok", ("book", {"movie": "Dune"})),
        with_calls("5", "ok"),
    ]
    run = run_of(actual, expected)

    def per_invocation(name: str, criterion: object = 0.5) -> list[float | None]:
        return [item.score for item in outcome(build(name, criterion), run).per_invocation]

    assert per_invocation("tool_name_match") == [1.0, 1.0, 0.5, 0.0, 1.0]  # an extra call scores 0
    assert per_invocation("tool_parameter_key_match") == [1.0, 1.0, pytest.approx(1 / 6), 0.5, 1.0]
    assert per_invocation("tool_parameter_kv_match") == [1.0, 1.0, pytest.approx(1 / 6), 0.5, 1.0]
    strict = {"threshold": 0.5, "use_strict_string_match": True}
    assert per_invocation("tool_parameter_kv_match", strict) == [1.0, 0.0, pytest.approx(1 / 6), 0.5, 1.0]
    result = outcome(build("tool_name_match", 0.8), run)
    assert (result.score, result.status) == (pytest.approx(0.7), MetricStatus.FAILED)


def test_tool_call_valid_checks_the_calls_against_the_declared_tools() -> None:
    declared = types.Tool(function_declarations=[types.FunctionDeclaration(name="book")])
    app = AppDetails(agent_details={"bot": AgentDetails(name="bot", tool_declarations=[declared])})
    with_app = with_calls("1", "ok", ("book", BOOK), ("cancel", {}))
    with_app.app_details = app
    actual = [with_app, with_calls("2", "ok", ("anything", None)), with_calls("3", "ok"), with_calls("4", "ok")]
    expected = [
        with_calls("1", "ok"),
        with_calls("2", "ok"),
        with_calls("3", "ok"),
        with_calls("4", "ok", ("book", BOOK)),
    ]
    result = outcome(build("tool_call_valid", 1.0), run_of(actual, expected))
    assert [item.score for item in result.per_invocation] == [0.5, 1.0, 1.0, 0.0]  # cancel is not declared
    assert result.score == pytest.approx(0.625)
    scenario_free = outcome(build("tool_call_valid", 1.0), run_of([with_calls("1", "ok", ("x", {}))], None))
    assert scenario_free.score == 1.0  # needs no expected invocations


SUMMARIES = [
    ("Dr. Smith went home. He slept.\nThen he woke up! Did he? Yes.", "Dr. Smith slept at home. Then he woke up."),
    ("One sentence only", "One sentence. Two sentences."),
]


def _punkt_data(folder: Path, *, abbreviations: str = "") -> Path:
    """NLTK's punkt_tab data for English: no trained parameters but the given abbreviations."""
    english = folder / "tokenizers" / "punkt_tab" / "english"
    english.mkdir(parents=True)
    for name in ("collocations.tab", "sent_starters.txt", "ortho_context.tab"):
        (english / name).write_text("", encoding="utf-8")
    (english / "abbrev_types.txt").write_text(abbreviations, encoding="utf-8")
    return folder


def _split_scores(monkeypatch: pytest.MonkeyPatch, data: Path | None, reference_data: Path) -> tuple[list, list, str]:
    import nltk
    from nltk import tokenize

    monkeypatch.setattr(nltk.data, "path", [str(data)] if data else [])
    metric = build("rouge_l_sum", {"threshold": 0.5, "split_summaries": True})
    ours = _scores("rouge_l_sum", {"threshold": 0.5, "split_summaries": True}, SUMMARIES)
    monkeypatch.setattr(nltk.data, "path", [str(reference_data)])
    tokenize._get_punkt_tokenizer.cache_clear()
    scorer = ROUGE_SCORE.RougeScorer(["rougeLsum"], split_summaries=True)  # calls nltk.sent_tokenize itself
    wanted = [scorer.score(reference, response)["rougeLsum"].fmeasure for response, reference in SUMMARIES]
    tokenize._get_punkt_tokenizer.cache_clear()
    return ours, wanted, str(outcome(metric, run_of([invocation("q", "a")], [invocation("q", "a")])).details)


@pytest.mark.slow  # loads all of NLTK (two seconds), as split_summaries does
def test_split_summaries_uses_nltks_sentence_splitter_as_rouge_score_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trained = _punkt_data(tmp_path / "trained", abbreviations="dr\n")
    ours, wanted, details = _split_scores(monkeypatch, trained, trained)
    assert ours == pytest.approx(wanted, abs=1e-12)
    assert "as rouge-score" in details
    unsplit = ROUGE_SCORE.RougeScorer(["rougeLsum"]).score(SUMMARIES[0][1], SUMMARIES[0][0])["rougeLsum"].fmeasure
    assert ours[0] != pytest.approx(unsplit)  # the option changes the score


@pytest.mark.slow  # loads all of NLTK (two seconds), as split_summaries does
def test_without_punkt_data_split_summaries_uses_untrained_punkt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    untrained = _punkt_data(tmp_path / "untrained")
    ours, wanted, details = _split_scores(monkeypatch, None, untrained)
    assert ours == pytest.approx(wanted, abs=1e-12)  # = rouge-score with an English model that knows nothing
    assert "without trained parameters" in details

"""Vertex AI's computation-based response metrics: ``exact_match``, ``bleu`` and ROUGE (``rouge_1``, ``rouge_2``,
``rouge_l``, ``rouge_l_sum``, and ``rouge`` with ``rouge_type``).

Vertex computes them on its evaluation service, which cannot be called here and publishes no implementation, so
the gate computes them with the standard libraries, with these settings:

* the response is the text of the actual final response, the reference that of the expected one (parts joined
  by newlines, "" when there is none, as ADK's ``response_match_score`` reads them); one score per invocation,
  the case's score is their mean;
* ``exact_match``: 1.0 when the two texts are equal after removing leading and trailing whitespace, else 0.0.
  Case, inner whitespace and Unicode form count (``"Paris"`` and ``"paris"`` differ);
* ``bleu``: sacrebleu's sentence BLEU (``BLEU(tokenize=..., effective_order=...).sentence_score``: smoothing
  ``exp``, up to 4-grams, no lowercasing) divided by 100; ``use_effective_order`` is Vertex's option (off by
  default), ``tokenize`` ours (sacrebleu's default ``13a``; ``intl``, ``zh`` or ``char`` for other scripts);
* ROUGE: rouge-score's ``RougeScorer([type], use_stemmer=...)`` F-measure, the reference as the target.
  rouge-score's tokenizer keeps only ASCII letters and digits, so text in other scripts scores 0 (as with
  rouge-score itself). ``split_summaries`` (``rougeLsum`` only) splits sentences with NLTK's ``sent_tokenize``
  when NLTK's ``punkt_tab`` data is installed, as rouge-score does, else with NLTK's Punkt without trained
  parameters (abbreviations such as "Dr." then end a sentence); the metric's details say which.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, require_expected
from adk_eval_gate.metrics.rouge import import_under_nltk_shells
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import content_text

ROUGE_TYPES = {"rouge_1": "rouge1", "rouge_2": "rouge2", "rouge_l": "rougeL", "rouge_l_sum": "rougeLsum"}
SENTENCE_DATA = "tokenizers/punkt_tab/english/"


class _ResponseMetric(Metric):
    """A score per invocation from the actual and the expected final response texts."""

    details: dict[str, Any] | None = None

    def text_score(self, response: str, reference: str) -> float:
        raise NotImplementedError

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        expected = require_expected(run, self.name)
        scores = [
            self.text_score(content_text(actual.final_response), content_text(reference.final_response))
            for actual, reference in zip(run.actual, expected, strict=True)
        ]
        outcome = self.mean_outcome(scores)
        outcome.details = self.details
        return outcome


class ExactMatch(_ResponseMetric):
    def text_score(self, response: str, reference: str) -> float:
        return 1.0 if response.strip() == reference.strip() else 0.0


class _EffectiveOrderAdvice(logging.Filter):
    """sacrebleu advises ``effective_order`` on every sentence score; off is Vertex's default, so it is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "effective_order" not in record.getMessage()


class Bleu(_ResponseMetric):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        from sacrebleu.metrics.bleu import BLEU  # only when a bleu metric is configured

        options = self.criterion if isinstance(self.criterion, eval_config.BleuCriterion) else None
        tokenize = options.tokenize if options else "13a"
        effective_order = options.use_effective_order if options else False
        self._bleu = BLEU(tokenize=tokenize, effective_order=effective_order)
        logger = logging.getLogger("sacrebleu")
        if not any(isinstance(f, _EffectiveOrderAdvice) for f in logger.filters):
            logger.addFilter(_EffectiveOrderAdvice())

    def text_score(self, response: str, reference: str) -> float:
        return min(1.0, float(self._bleu.sentence_score(response, [reference]).score) / 100.0)  # 100.00000000000004


def _sentence_splitter() -> tuple[Callable[[str], list[str]], str]:
    """What splits sentences for ``split_summaries``, and its description (loads all of NLTK: only then)."""
    import nltk

    try:
        nltk.data.find(SENTENCE_DATA)
    except LookupError:
        from nltk.tokenize.punkt import PunktSentenceTokenizer

        untrained = PunktSentenceTokenizer()
        return untrained.tokenize, "NLTK Punkt without trained parameters (NLTK's punkt_tab data is not installed)"
    return nltk.sent_tokenize, "NLTK sent_tokenize (punkt_tab), as rouge-score"


class Rouge(_ResponseMetric):
    """Vertex's ``rouge`` with ``rouge_type``; the subclasses fix the type (``rouge_1`` and so on)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        criterion = self.criterion
        self.rouge_type = self.fixed_type() or (
            criterion.rouge_type if isinstance(criterion, eval_config.RougeTypeCriterion) else "rougeL"
        )
        options = criterion if isinstance(criterion, eval_config.RougeCriterion) else None
        use_stemmer = options.use_stemmer if options else False
        self.split: Callable[[str], list[str]] | None = None
        if options and options.split_summaries and self.rouge_type == "rougeLsum":
            self.split, description = _sentence_splitter()
            self.details = {"sentence_splitter": description}
        scorer_module = import_under_nltk_shells("rouge_score.rouge_scorer")
        self.scorer = scorer_module.RougeScorer([self.rouge_type], use_stemmer=use_stemmer)

    def fixed_type(self) -> str | None:
        return ROUGE_TYPES.get(self.name)

    def sentences(self, text: str) -> str:
        """The text one sentence a line: how rouge-score's ``rougeLsum`` reads sentences without splitting."""
        if self.split is None:
            return text
        return "\n".join(" ".join(sentence.split("\n")) for sentence in self.split(text))

    def text_score(self, response: str, reference: str) -> float:
        scores = self.scorer.score(self.sentences(reference), self.sentences(response))
        return float(scores[self.rouge_type].fmeasure)

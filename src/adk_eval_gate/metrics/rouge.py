"""``response_match_score``: ROUGE-1 F-measure with ADK 2.13's Unicode-aware tokenizer.

The tokenizer reproduces ``google.adk.evaluation.final_response_match_v1._UnicodeAwareTokenizer`` exactly and
hands ASCII words to rouge-score's own tokenizer with NLTK's Porter stemmer, as ADK does. Stems and
tokenizations are cached, which is where the speed over ADK's evaluator comes from.
"""

from __future__ import annotations

import importlib.util
import sys
import types
import unicodedata
from collections import Counter
from functools import lru_cache
from typing import Any

from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, require_expected
from adk_eval_gate.model.evalset import content_text


def _is_cjk(code: int) -> bool:
    return 0x4E00 <= code <= 0x9FFF or 0x3040 <= code <= 0x309F or 0x30A0 <= code <= 0x30FF or 0xAC00 <= code <= 0xD7AF


def _is_non_spaced(code: int) -> bool:
    return 0x0E00 <= code <= 0x0E7F or 0x0E80 <= code <= 0x0EFF or 0x1780 <= code <= 0x17FF or 0x1000 <= code <= 0x109F


_STEMMER: Any = None


def _porter_stemmer_class() -> Any:
    """NLTK's ``PorterStemmer``, the class rouge-score and ADK use."""
    return import_under_nltk_shells("nltk.stem.porter").PorterStemmer


def import_under_nltk_shells(module_name: str) -> types.ModuleType:
    """Imports a module that needs only a few small NLTK modules (the Porter stemmer; rouge-score's scorer).

    ``import nltk`` loads most of NLTK and SciPy (over two seconds), so unless NLTK is loaded already the
    module is imported under empty ``nltk`` package shells, and every ``nltk`` module is unregistered again
    afterwards: a later ``import nltk`` (by an agent, say) loads the real package. A shell forwards any other
    attribute to the real package, loading it then (rouge-score's ``nltk.sent_tokenize``).
    """
    if "nltk" in sys.modules:
        return importlib.import_module(module_name)
    try:
        for name in ("nltk", "nltk.stem"):
            spec = importlib.util.find_spec(name)
            if spec is None or spec.submodule_search_locations is None:
                raise ImportError(f"no package {name}")
            sys.modules[name] = _forwarding_shell(name, list(spec.submodule_search_locations))
        return importlib.import_module(module_name)
    except ImportError:
        _unregister_nltk()
        return importlib.import_module(module_name)
    finally:
        _unregister_nltk()


def _forwarding_shell(name: str, locations: list[str]) -> types.ModuleType:
    shell = types.ModuleType(name)
    shell.__path__ = locations

    def forward(attribute: str) -> Any:
        real = sys.modules.get(name)
        if real is shell or attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(real or importlib.import_module(name), attribute)

    shell.__dict__["__getattr__"] = forward  # PEP 562: consulted for attributes the shell lacks
    return shell


def _unregister_nltk() -> None:
    for name in [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")]:
        del sys.modules[name]


def _stemmer() -> Any:
    global _STEMMER
    if _STEMMER is None:
        _STEMMER = _porter_stemmer_class()()  # default mode NLTK_EXTENSIONS, as rouge-score constructs it
    return _STEMMER


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    return str(_stemmer().stem(word))


@lru_cache(maxsize=1 << 14)
def _ascii_word_tokens(word: str) -> tuple[str, ...]:
    """rouge-score's ``tokenize.tokenize(word, PorterStemmer())`` for one ASCII word."""
    from rouge_score import tokenize as rouge_tokenize

    return tuple(rouge_tokenize.tokenize(word, _CachedStemmer))


class _CachedStemmer:
    @staticmethod
    def stem(word: str) -> str:
        return _stem(word)


@lru_cache(maxsize=1 << 12)
def tokenize(text: str) -> tuple[str, ...]:
    """ADK's ``_UnicodeAwareTokenizer(use_stemmer=True).tokenize``."""
    text = unicodedata.normalize("NFKC", text).lower()
    if text.isascii():
        words = "".join(ch if ch.isalnum() else " " for ch in text).split()
    else:
        chars: list[str] = []
        for ch in text:
            code = ord(ch)
            if _is_cjk(code):
                chars.extend((" ", ch, " "))
            elif _is_non_spaced(code):
                if unicodedata.category(ch).startswith("M"):
                    chars.append(ch)
                else:
                    chars.extend((" ", ch))
            elif ch.isalnum() or unicodedata.category(ch).startswith("M"):
                chars.append(ch)
            else:
                chars.append(" ")
        words = "".join(chars).split()
    tokens: list[str] = []
    for word in words:
        if word.isascii():
            tokens.extend(_ascii_word_tokens(word))
        else:
            tokens.append(word)
    return tuple(tokens)


def rouge1_fmeasure(candidate: str, reference: str) -> float:
    """rouge-score's ``RougeScorer(["rouge1"]).score(reference, candidate)["rouge1"].fmeasure``."""
    target = Counter(tokenize(reference))
    prediction = Counter(tokenize(candidate))
    intersection = 0
    for token in target:
        intersection += min(target[token], prediction[token])
    precision = intersection / max(sum(prediction.values()), 1)
    recall = intersection / max(sum(target.values()), 1)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


class ResponseMatchScore(Metric):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _stemmer()  # load NLTK now, not inside the event loop where it would stall running cases

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        expected = require_expected(run, self.name)
        scores = [
            rouge1_fmeasure(content_text(a.final_response), content_text(e.final_response))
            for a, e in zip(run.actual, expected, strict=True)
        ]
        return self.mean_outcome(scores)

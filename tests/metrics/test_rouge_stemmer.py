"""``response_match_score`` stems words with NLTK's own Porter stemmer, as rouge-score and ADK do, without
importing the whole of NLTK: no ``nltk`` module is left in ``sys.modules`` once the metric is ready."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow  # NLTK's stemmer over a large word list
WORDS = (
    "skies dying lying generously running runs ran runner caresses ponies ties caress cats feed agreed "
    "plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing "
    "filing happy sky relational conditional rational valenci hesitanci digitizer conformabli radicalli "
    "differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness "
    "callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical "
    "hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant "
    "replacement adjustment dependent adoption homologou communism activate angulariti homologous effective "
    "bowdlerize probate rate cease controll roll generalizations oscillators weather raining degrees"
).split()


def test_the_metric_stems_as_nltk_and_rouge_score_do_and_leaves_no_nltk_module_behind() -> None:
    code = textwrap.dedent(
        f"""
        import sys
        from adk_eval_gate.metrics.metric import MetricServices
        from adk_eval_gate.metrics.rouge import ResponseMatchScore, tokenize
        ResponseMatchScore(name="response_match_score", criterion=None, services=MetricServices())
        text = " ".join({WORDS!r})
        ours = tokenize(text)
        assert not [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")], "shell modules left behind"
        from nltk.stem.porter import PorterStemmer
        from rouge_score import tokenize as rouge_tokenize
        reference = rouge_tokenize.tokenize(text, PorterStemmer())
        different = [(o, r) for o, r in zip(ours, reference, strict=True) if o != r]
        assert not different, different
        print("ok", len(ours))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"ok {len(WORDS)}"

"""The Porter stemmer loaded without ``nltk/__init__`` is NLTK's own, and leaves no trace in ``sys.modules``."""

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


def test_stemmer_without_nltk_init_equals_nltk() -> None:
    code = textwrap.dedent(
        f"""
        import sys
        from adk_eval_gate.metrics import rouge
        ours = rouge._stemmer()
        assert not [m for m in sys.modules if m == "nltk" or m.startswith("nltk.")], "shell modules left behind"
        from nltk.stem.porter import PorterStemmer
        reference = PorterStemmer()
        words = {WORDS!r}
        different = [w for w in words if ours.stem(w) != reference.stem(w)]
        assert not different, different
        assert type(ours).__name__ == "PorterStemmer" and ours.mode == reference.mode
        print("ok", len(words))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"ok {len(WORDS)}"

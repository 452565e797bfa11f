"""The golden inputs (``tests/golden/inputs/NAME.results.json``, the huge suite's gzipped): the documents of the
golden-file tests and of every test that wants a realistic results.json, read as ``adk-eval-gate report`` reads
saved results (validated, then decided again from their cases). ``SCENARIOS`` holds the current ones;
``NAME.COMMIT.results.json`` is NAME as the gate of that commit wrote it (``tests/golden/older_input.py``).

``huge_failing(count)`` builds the huge failing suite at any size (the size tests and ``bench/``); its golden
input is what it built at 400 cases. The documents are shared between tests: copy one (``model_copy``) to change it.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.finish.against_baseline import decide_with_comparison
from adk_eval_gate.model.results import ResultsDocument, parse_document
from adk_eval_gate.verdict import Policy, redecide
from tests.report.builders import baseline_info, case, document, invocation, metric

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
INPUTS = GOLDEN / "inputs"
EXPECTED = GOLDEN / "expected"
TRAJECTORY = "tool_trajectory_avg_score"
RESPONSE = "response_match_score"
_SUFFIXES = (".results.json", ".results.json.gz")
_OLDER = re.compile(r"^(?P<source>[a-z_]+)\.(?P<commit>[0-9a-f]{7,40})$")


def input_names() -> list[str]:
    """Every golden input, current and older."""
    return sorted(path.name.split(".results.json")[0] for suffix in _SUFFIXES for path in INPUTS.glob(f"*{suffix}"))


def source_of(name: str) -> str | None:
    """For an older input (``NAME.COMMIT``), the current input it was made from."""
    older = _OLDER.match(name)
    return older["source"] if older else None


def input_path(name: str) -> Path:
    for suffix in _SUFFIXES:
        if (INPUTS / f"{name}{suffix}").is_file():
            return INPUTS / f"{name}{suffix}"
    raise FileNotFoundError(f"no golden input {name!r} in {INPUTS}")


def input_text(name: str) -> str:
    path = input_path(name)
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def input_data(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(input_text(name))
    return loaded


def saved_file(name: str, folder: Path) -> Path:
    """The input as a results.json file a command can read (the gzipped one unpacked into ``folder``)."""
    path = input_path(name)
    if path.suffix != ".gz":
        return path
    unpacked = folder / f"{name}.results.json"
    unpacked.write_text(input_text(name), encoding="utf-8")
    return unpacked


@functools.cache
def load_input(name: str) -> ResultsDocument:
    """The input as ``report`` reads it: validated as results.json, every case and the run decided again."""
    decided_again, _ = redecide(parse_document(input_data(name), shown=input_path(name).name))
    return decided_again


SCENARIOS: dict[str, Callable[[], ResultsDocument]] = {
    name: functools.partial(load_input, name) for name in input_names() if source_of(name) is None
}


def _compared(head: ResultsDocument, base: ResultsDocument) -> ResultsDocument:
    comparison = compare(head, base, baseline=baseline_info(), tolerance=0.0)
    return decide_with_comparison(head, comparison, Policy(fail_on_regression=False, tolerance=0.0))


def huge_failing(count: int = 400) -> ResultsDocument:
    long_answer = "The forecast is long. " * 120

    def build(score: float) -> ResultsDocument:
        items = [
            case(
                f"case_{number:04d}",
                [metric(TRAJECTORY, score, threshold=1.0), metric(RESPONSE, score)],
                file=f"suite/part_{number % 7}.evalset.json",
                line=10 + number,
                turns=[
                    invocation(
                        f"Question {number}: what is the weather?",
                        expected=long_answer,
                        actual=long_answer[::-1],
                        expected_calls=[{"name": "get_weather", "args": {"city": f"city {number}", "days": 7}}],
                        actual_calls=[{"name": "get_forecast", "args": {"place": f"city {number}"}}],
                    )
                ],
            )
            for number in range(count)
        ]
        return document(items)

    return _compared(build(0.0), build(1.0))

"""Annotations on the eval_id line of each failing case, warnings on regressions, at most 50 per run."""

from __future__ import annotations

import io

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.finish.against_baseline import decide_with_comparison
from adk_eval_gate.github.annotations import annotate
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.support.console import Console
from adk_eval_gate.verdict import Policy
from tests.report.builders import baseline_info, case, document, metric


def test_failing_cases_are_annotated_on_their_eval_id_line() -> None:
    doc = document(
        [
            case("good", [metric("m", 0.9)], line=3),
            case("bad", [metric("m", 0.1)], file="evals/a, b.evalset.json", line=17),
            case("broken", [], error="agent raised\nValueError", line=30),
            case("unscored", [metric("judge", None, reason="no key")], line=40),
        ]
    )
    stream = io.StringIO()
    annotate(Console(in_actions=True, stream=stream), doc)
    lines = stream.getvalue().splitlines()
    assert lines == [
        "::error file=evals/a%2C b.evalset.json,line=17::bad: m: 0.1 < 0.8",
        "::error file=agents/weather/weather.evalset.json,line=30::broken: agent raised%0AValueError",
        "::error file=agents/weather/weather.evalset.json,line=40::unscored: judge: not evaluated (no key)",
    ]


def test_regressions_are_warnings_and_noise_is_not() -> None:
    base = document([case("a", [metric("m", [0.9, 0.9])]), case("b", [metric("j", [1.0, 0.6])])])
    head = document([case("a", [metric("m", [0.85, 0.85])]), case("b", [metric("j", [0.6, 1.0])])])
    doc = decide_with_comparison(head, compare(head, base, baseline=baseline_info()), Policy())
    stream = io.StringIO()
    annotate(Console(in_actions=True, stream=stream), doc)
    assert stream.getvalue().splitlines() == [
        "::warning file=agents/weather/weather.evalset.json,line=5::a: m regressed from 0.9 to 0.85"
    ]


def test_at_most_50_annotations_and_the_rest_counted() -> None:
    doc = document([case(f"c{n}", [metric("m", 0.0)], line=n + 1) for n in range(70)])
    stream = io.StringIO()
    console = Console(in_actions=True, stream=stream)
    annotate(console, doc)
    console_report.final(console, doc)
    text = stream.getvalue()
    assert text.count("::error ") == 50
    assert console.annotations_dropped == 20
    assert "(20 more annotations were not written: GitHub shows at most 50)" in text


def test_nothing_outside_github_actions() -> None:
    stream = io.StringIO()
    annotate(Console(in_actions=False, stream=stream), document([case("bad", [metric("m", 0.0)])]))
    assert stream.getvalue() == ""

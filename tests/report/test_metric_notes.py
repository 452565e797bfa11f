"""A failing case shows what its metrics say about their scores: a templated judge's explanation per turn and the
session state keys that differ, in the summary and comment, JUnit and the console, escaped like every untrusted
text."""

from __future__ import annotations

import io

from adk_eval_gate.model.results import CaseResult, ResultsDocument
from adk_eval_gate.report import case_sections, junit, summary
from adk_eval_gate.report import console_lines as console_report
from adk_eval_gate.report import markdown as md
from adk_eval_gate.support.console import Console
from tests.report.builders import case, document, metric

HOSTILE = "talks about Paris <img src=x onerror=alert(1)> | @octocat"


def _doc() -> tuple[ResultsDocument, CaseResult]:
    failing = case(
        "shop",
        [metric("final_session_state_match", 0.5, threshold=1.0), metric("polite_reply", 2.0, threshold=3.0)],
    )
    state, judged = failing.runs[0].metrics
    state.details = {
        "match_type": "subset",
        "keys_compared": 2,
        "differing_keys": [{"key": "plan", "expected": "gold", "actual": "silver"}, {"key": "cart", "expected": [1]}],
    }
    judged.invocation_scores = [2.0]
    judged.details = {"explanations": [HOSTILE], "votes": [{"2": 3, "unreadable": 0}]}
    passing = case("fine", [metric("final_session_state_match", 1.0, threshold=1.0)])
    passing.runs[0].metrics[0].details = {"differing_keys": [{"key": "never", "actual": "shown"}]}
    return document([failing, passing]), failing


def test_the_summary_lists_each_metrics_notes_under_its_failure() -> None:
    doc, failing = _doc()
    body = case_sections.case_body(failing, text_limit=300)
    notes = [
        "- final_session_state_match: 0.5 < 1",
        '  - state key "plan": expected "gold", got "silver"',
        '  - state key "cart": expected [1], missing',
        "- polite_reply: 2 < 3",
        f"  - turn 1 (score 2): {HOSTILE}",
    ]
    escaped = [line[: line.index("- ") + 2] + md.inline(line[line.index("- ") + 2 :]) for line in notes]
    assert "\n".join(escaped) in body
    assert "<img" not in body and "&lt;img src" in body
    rendered = summary.render(doc)
    assert "  - state key &quot;plan&quot;: expected &quot;gold&quot;, got &quot;silver&quot;" in rendered
    assert "<img" not in rendered and "never" not in rendered  # escaped; a passing case shows nothing


def test_junit_and_the_console_show_the_same_notes() -> None:
    doc, _ = _doc()
    xml = junit.render(doc)
    assert '  final_session_state_match: state key "plan": expected "gold", got "silver"' in xml
    assert "  polite_reply: turn 1 (score 2): talks about Paris &lt;img" in xml
    out = io.StringIO()
    console_report.final(Console(in_actions=False, stream=out), doc)
    printed = out.getvalue()
    assert 'final_session_state_match: state key "cart": expected [1], missing' in printed
    assert "polite_reply: turn 1 (score 2): talks about Paris" in printed

"""The comment's digest: what ``comment-mode: on-change`` compares."""

from __future__ import annotations

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report.comment import digest
from tests.report.builders import case, document, metric

RESPONSE = "response_match_score"


def _doc(response: float, tokens: float, seconds: float) -> ResultsDocument:
    paris = case(
        "paris",
        [
            metric(RESPONSE, response),
            metric("token_usage_v1", tokens, kind="informational"),
            metric("invocation_duration_v1", seconds, kind="informational"),
        ],
    )
    paris.runs[0].duration_seconds = seconds
    return document([paris])


def test_figures_that_vary_run_to_run_do_not_change_it() -> None:
    assert digest(_doc(0.9, tokens=1200, seconds=1.5)) == digest(_doc(0.9, tokens=1350, seconds=2.75))


def test_a_graded_score_or_a_verdict_changes_it() -> None:
    base = digest(_doc(0.9, tokens=1200, seconds=1.5))
    assert digest(_doc(0.95, tokens=1200, seconds=1.5)) != base
    assert digest(_doc(0.1, tokens=1200, seconds=1.5)) != base


def test_runs_that_were_run_again_around_the_agent_do_not_change_it() -> None:
    doc = _doc(0.9, tokens=1200, seconds=1.5)
    retried = doc.model_copy(update={"totals": doc.totals.model_copy(update={"retried_runs": 1})})
    assert digest(retried) == digest(doc)

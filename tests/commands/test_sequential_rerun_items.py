"""The runs a re-run plans when it continues an earlier attempt's evidence: none for a case proven there, the run
numbers of the others after theirs, and the cases it did not continue as planned."""

from __future__ import annotations

from adk_eval_gate.commands.sequential_run import continued_items
from adk_eval_gate.compare.earlier_attempt import Continuation, Continued
from adk_eval_gate.verdict import RunOutcome, consume, continue_evidence, open_evidence
from tests.report.builders import case, metric
from tests.runners.test_sequential_schedule import SETTINGS, _items


def _continued(outcomes: list[bool]) -> Continued:
    evidence = consume(open_evidence(SETTINGS), {n: RunOutcome(passed=o) for n, o in enumerate(outcomes, 1)})
    return Continued(case("any", [metric("m", [1.0])]), continue_evidence(evidence))


def test_a_re_run_plans_no_runs_for_a_proven_case_and_numbers_the_others_after_their_earlier_runs() -> None:
    items = _items(["proven", "open", "fresh"], runs=3)
    proven, reopened = _continued([False] * 10), _continued([True, False] * 5)
    assert proven.evidence.decision == "proven-fail" and reopened.evidence.decision is None
    ids = {item.case.eval_id: item.case_id for item in items}
    found = Continuation(attempt=1, cases={ids["proven"]: proven, ids["open"]: reopened})
    planned = [(item.case.eval_id, item.run) for item in continued_items(items, found)]
    runs = reopened.evidence.runs
    assert planned == [
        ("open", runs + 1),
        ("open", runs + 2),
        ("open", runs + 3),
        ("fresh", 1),
        ("fresh", 2),
        ("fresh", 3),
    ]


def test_without_a_continuation_the_runs_are_planned_as_they_are() -> None:
    items = _items(["a"], runs=2)
    assert continued_items(items, None) == items

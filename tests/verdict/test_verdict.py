"""verdict: each rule, the statuses, totals and exit code they decide, and ``redecide`` on saved results."""

from __future__ import annotations

import json

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.compare.changes import compare
from adk_eval_gate.model.results import (
    BudgetCheck,
    FileResult,
    InvalidResults,
    ResultsDocument,
    RunRecord,
    parse_document,
)
from adk_eval_gate.model.results import dump_json as results_json
from adk_eval_gate.verdict import Policy
from tests.report.builders import baseline_info, case, document, metric

RESPONSE = "response_match_score"


def test_a_case_is_an_error_then_failed_then_not_evaluated_then_passed() -> None:
    assert case("ok", [metric(RESPONSE, 0.9)]).status == "passed"
    failed = case("low", [metric(RESPONSE, 0.5), metric("judged", None, reason="no API key")])
    assert failed.status == "failed"
    assert [(f.rule, f.effect, f.reason) for f in failed.findings] == [
        ("threshold", "failed", f"{RESPONSE}: 0.5 < 0.8"),
        ("not_evaluated", "not_evaluated", "judged: not evaluated (no API key)"),
    ]
    assert case("blank", [metric("judged", None, reason="no API key")]).status == "not_evaluated"
    assert case("nothing", [metric("tokens", 12.0, kind="informational")]).status == "not_evaluated"
    errored = case("raised", [metric(RESPONSE, 0.9)], error="ValueError: boom")
    assert (errored.status, errored.error, [f.rule for f in errored.findings]) == (
        "error",
        "ValueError: boom",
        ["error"],
    )


def test_the_pass_rules_count_runs() -> None:
    flaky = case("coin", [metric(RESPONSE, [0.9, 0.1, 0.9])])  # mean 0.63 < 0.8
    assert flaky.status == "failed" and flaky.stability == "flaky"
    majority = verdict.decide_case(flaky, pass_rule="majority")
    assert majority.status == "passed" and majority.findings == []
    every = verdict.decide_case(flaky, pass_rule="all")
    assert every.status == "failed"
    assert every.findings[0].reason.startswith("2 of 3 runs passed; --pass-rule all")


def test_a_case_budget_missed_fails_and_one_unknown_is_not_evaluated() -> None:
    ok = case("ok", [metric(RESPONSE, 0.9)])
    missed = ok.model_copy(update={"budgets": [BudgetCheck(name="b", limit=1, status="failed", reason="over")]})
    unknown = ok.model_copy(update={"budgets": [BudgetCheck(name="b", limit=1, status="unchecked", reason="?")]})
    assert verdict.decide_case(missed, pass_rule="mean").status == "failed"
    assert verdict.decide_case(unknown, pass_rule="mean").status == "not_evaluated"
    over = ok.model_copy(update={"runs": [run.model_copy(update={"over_budget": ["x"]}) for run in ok.runs]})
    assert verdict.decide_case(over, pass_rule="mean").runs[0].status == "failed"


def test_the_run_is_decided_from_its_cases_budgets_regressions_and_files() -> None:
    passing = document([case("a", [metric(RESPONSE, 0.9)]), case("b", [metric(RESPONSE, 0.95)])])
    assert (passing.status, verdict.exit_code(passing), passing.findings) == ("passed", 0, [])
    failing = document([case("a", [metric(RESPONSE, 0.1)])])
    assert (failing.status, [f.reason for f in failing.findings]) == ("failed", ["1 case failed"])
    unevaluated = document([case("a", [metric("judged", None)])])
    assert unevaluated.status == "failed"
    allowed = document([case("a", [metric("judged", None)])], allow_not_evaluated=True)
    assert allowed.status == "passed"
    assert [f.reason for f in allowed.findings] == ["1 case not evaluated (allowed by --allow-not-evaluated)"]
    broken = document(
        [case("a", [metric(RESPONSE, 0.9)])],
        files=[FileResult(path=FILE, cases=1), FileResult(path="x.test.json", error="invalid JSON", line=3)],
    )
    assert (broken.status, verdict.exit_code(broken)) == ("error", 2)
    assert [f.reason for f in broken.findings if f.rule == "file_error"] == ["x.test.json:3: invalid JSON"]
    assert document([]).status == "error"


FILE = "agents/weather/weather.evalset.json"


def test_regressions_fail_the_run_only_with_fail_on_regression() -> None:
    base = document([case("paris", [metric(RESPONSE, 0.95)])])
    head = document([case("paris", [metric(RESPONSE, 0.85)])])
    comparison = compare(head, base, baseline=baseline_info())
    reported = verdict.decide(head, comparison, Policy())
    gated = verdict.decide(head, comparison, Policy(fail_on_regression=True))
    assert reported.status == "passed" and reported.findings[0].effect == "none"
    assert gated.status == "failed"
    assert [f.reason for f in gated.findings] == ["1 regression against the baseline fails the gate"]


def test_a_case_that_failed_on_the_base_branch_too_is_marked() -> None:
    base = document([case("old", [metric(RESPONSE, 0.1)]), case("new", [metric(RESPONSE, 0.9)])])
    head = document([case("old", [metric(RESPONSE, 0.1)]), case("new", [metric(RESPONSE, 0.1)])])
    decided = verdict.decide(head, compare(head, base, baseline=baseline_info()), Policy())
    assert {c.eval_id: c.failing_on_base for c in decided.cases} == {"old": True, "new": False}
    assert (decided.totals.failed, decided.totals.failing_on_base) == (2, 1)


def test_redecide_trusts_the_cases_evidence_not_the_files_claims() -> None:
    honest = document([case("a", [metric(RESPONSE, 0.1)]), case("b", [metric(RESPONSE, 0.9)])])
    forged_cases = [c.model_copy(update={"status": "passed", "findings": []}) for c in honest.cases]
    forged = honest.model_copy(
        update={
            "status": "passed",
            "cases": forged_cases,
            "totals": honest.totals.model_copy(update={"passed": 2, "failed": 0}),
        }
    )
    decided, claims = verdict.redecide(forged)
    assert decided.status == "failed" and (decided.totals.passed, decided.totals.failed) == (1, 1)
    assert claims == [
        "status 'passed', its cases say 'failed'",
        "totals.passed 2, its cases say 1",
        "totals.failed 0, its cases say 1",
        "1 case statuses differ from their runs and metrics",
    ]
    assert verdict.redecide(honest)[1] == []


def test_redecide_scores_each_metric_again_from_its_runs_not_from_the_files_score() -> None:
    """A file whose metric claims a passing score and status while its runs scored 0.1 and 0.3 fails: the score
    is the mean of the runs' turns again, whatever the file says."""
    honest = document([case("a", [metric(RESPONSE, [0.1, 0.3])])])
    claimed = honest.cases[0].metrics[0].model_copy(update={"score": 0.9, "status": "passed", "run_scores": [0.9]})
    forged_case = honest.cases[0].model_copy(update={"metrics": [claimed], "status": "passed", "findings": []})
    forged = honest.model_copy(update={"cases": [forged_case], "status": "passed"})
    decided, claims = verdict.redecide(forged)
    scored = decided.cases[0].metrics[0]
    assert (scored.score, scored.run_scores, scored.status) == (pytest.approx(0.2), [0.1, 0.3], "failed")
    assert decided.status == "failed" and "1 case statuses differ from their runs and metrics" in claims


def test_a_case_whose_runs_lost_their_metrics_is_not_evaluated_whatever_its_metrics_say() -> None:
    honest = document([case("a", [metric(RESPONSE, 0.9)])])
    stripped = honest.cases[0].model_copy(update={"runs": [RunRecord(run=1, status="passed")]})
    decided, _ = verdict.redecide(honest.model_copy(update={"cases": [stripped]}))
    assert (decided.cases[0].status, decided.cases[0].metrics[0].score) == ("not_evaluated", None)


def _forged(doc: ResultsDocument, **case_fields: object) -> ResultsDocument:
    return doc.model_copy(update={"cases": [c.model_copy(update=case_fields) for c in doc.cases]})


def test_statuses_a_file_gives_a_built_in_metric_are_not_its_functions_and_change_nothing() -> None:
    """Only a custom metric's function returns statuses: a file that gives a failing built-in metric a passing
    status of its own, and turn statuses that would say lower is better, is decided on the score."""
    honest = document([case("a", [metric(RESPONSE, 0.1)])])
    run = honest.cases[0].runs[0]
    claimed = run.metrics[0].model_copy(
        update={"evaluator_status": "passed", "invocation_statuses": ["passed"], "invocation_scores": [0.1]}
    )
    forged = _forged(honest, runs=[run.model_copy(update={"metrics": [claimed]})])
    decided, _ = verdict.redecide(forged)
    scored = decided.cases[0].metrics[0]
    assert (decided.cases[0].status, scored.status, scored.lower_is_better) == ("failed", "failed", False)
    assert decided.cases[0].runs[0].metrics[0].evaluator_status is None


def test_what_a_file_claims_of_the_direction_the_gate_and_the_quarantine_is_decided_again() -> None:
    honest = document([case("a", [metric(RESPONSE, 0.1)]), case("b", [metric(RESPONSE, 0.2)])])
    parked = honest.cases[1].model_copy(update={"quarantined": True})
    honest = verdict.decide(honest.model_copy(update={"cases": [honest.cases[0], parked]}), None, Policy())
    assert [c.fails_gate for c in honest.cases] == [True, False] and honest.totals.quarantined_not_passing == 1
    lying = [m.model_copy(update={"lower_is_better": True}) for m in honest.cases[0].metrics]
    forged = _forged(honest, fails_gate=False, metrics=lying).model_copy(
        update={"totals": honest.totals.model_copy(update={"quarantined_not_passing": 0})}
    )
    decided, _ = verdict.redecide(forged)
    assert [c.fails_gate for c in decided.cases] == [True, False]
    assert decided.totals.quarantined_not_passing == 1
    assert decided.cases[0].metrics[0].lower_is_better is False
    assert decided.cases[0].findings[0].reason == f"{RESPONSE}: 0.1 < 0.8"


def test_a_turn_status_that_is_not_a_status_is_one_line_naming_the_field() -> None:
    data = json.loads(results_json(document([case("a", [metric(RESPONSE, 0.1)])])))
    data["cases"][0]["runs"][0]["metrics"][0]["invocation_statuses"] = ["::error::maybe"]
    with pytest.raises(InvalidResults) as raised:
        parse_document(data, shown="results.json")
    message = str(raised.value)
    assert message.startswith(
        "results.json is not a valid results.json: cases.0.runs.0.metrics.0.invocation_statuses.0"
    )
    assert "\n" not in message

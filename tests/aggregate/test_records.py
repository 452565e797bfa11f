"""aggregate: run records, case and metric results over runs, totals, summaries and the document's status."""

from __future__ import annotations

import pytest
from google.genai import types as genai_types

from adk_eval_gate import verdict
from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.metrics.metric import InvocationScore, MetricOutcome
from adk_eval_gate.metrics.registry import BUILT_IN, ConfiguredMetric
from adk_eval_gate.metrics.score import ScoredMetric
from adk_eval_gate.model.eval_config import BaseCriterion
from adk_eval_gate.model.evalset import EvalCase, Invocation
from adk_eval_gate.model.results import Carried, CaseResult, Confirmation, FileResult, PassRule, RunInfo
from adk_eval_gate.runners.runner import Inference

RESPONSE = "response_match_score"


def _turn(text: str, answer: str) -> Invocation:
    return Invocation(
        user_content=genai_types.Content(role="user", parts=[genai_types.Part(text=text)]),
        final_response=genai_types.Content(role="model", parts=[genai_types.Part(text=answer)]),
    )


CASE = EvalCase(eval_id="paris", conversation=[_turn("weather in Paris?", "sunny")])
CONFIGURED = ConfiguredMetric(spec=BUILT_IN[RESPONSE], criterion=BaseCriterion(threshold=0.5))


def _finished(run: int, score: float | None, *, error: str | None = None) -> aggregate.FinishedRun:
    if error:
        return aggregate.FinishedRun(run, Inference(error=error), [])
    outcome = MetricOutcome(score)
    return aggregate.FinishedRun(
        run, Inference(invocations=[_turn("weather in Paris?", "sunny")]), [ScoredMetric(CONFIGURED, outcome)]
    )


def _case(*runs: aggregate.FinishedRun, pass_rule: PassRule = "mean") -> CaseResult:
    return aggregate.case_result(
        place=aggregate.CasePlace("a.evalset.json", "set", index=0, line=3),
        case=CASE,
        metrics=[CONFIGURED],
        finished=list(runs),
        rules=aggregate.CaseRules(pass_rule=pass_rule),
    )


def test_a_run_records_both_sides_of_each_turn_and_its_status() -> None:
    record = aggregate.run_record(CASE, _finished(1, 1.0))
    assert record.status == "passed"
    turn = record.invocations[0]
    assert turn.user == "weather in Paris?"
    expected, actual = turn.expected_invocation(), turn.actual_invocation()
    assert expected is not None and actual is not None
    assert expected.final_response == actual.final_response


def test_the_case_score_is_the_mean_of_its_runs_and_the_case_passes_on_it() -> None:
    case = _case(_finished(1, 1.0), _finished(2, 0.2))
    metric = case.metrics[0]
    assert metric.run_scores == [1.0, 0.2] and metric.score == 0.6
    assert metric.status == "passed" and metric.passed_runs == 1
    assert case.status == "passed" and case.id == "a.evalset.json::paris"


def test_runs_of_different_lengths_pool_every_turn_as_adks_agent_evaluator_does() -> None:
    """A run of two turns (1 and 0) and a run of one turn (1): the case scores 2/3 and fails 0.7; the runs' own
    scores, 0.5 and 1, are kept (their mean, 0.75, would have passed)."""
    strict = ConfiguredMetric(spec=BUILT_IN[RESPONSE], criterion=BaseCriterion(threshold=0.7))
    two = [_turn("weather in Paris?", "sunny"), _turn("and tomorrow?", "rain")]
    runs = [
        aggregate.FinishedRun(
            1, Inference(invocations=two), [ScoredMetric(strict, MetricOutcome(0.5, turns(1.0, 0.0)))]
        ),
        aggregate.FinishedRun(
            2, Inference(invocations=two[:1]), [ScoredMetric(strict, MetricOutcome(1.0, turns(1.0)))]
        ),
    ]
    case = aggregate.case_result(
        place=aggregate.CasePlace("a.evalset.json", "set", index=0, line=3), case=CASE, metrics=[strict], finished=runs
    )
    metric = case.metrics[0]
    assert (metric.score, metric.status, metric.run_scores) == (pytest.approx(2 / 3), "failed", [0.5, 1.0])
    assert metric.invocation_scores == [[1.0, 0.0], [1.0]] and case.status == "failed"
    assert [finding.reason for finding in case.findings] == [f"{RESPONSE}: 0.6667 < 0.7 (runs: 0.5, 1)"]


def turns(*scores: float) -> list[InvocationScore]:
    return [InvocationScore(score) for score in scores]


def test_means_and_spreads_of_scores_near_the_largest_float_stay_finite() -> None:
    largest = 1.7976931348623157e308
    case = _case(_finished(1, 1e308), _finished(2, 1e308))  # their sum overflows
    assert case.metrics[0].score == 1e308 and case.metrics[0].stdev == 0.0
    spread = _case(_finished(1, largest), _finished(2, -largest)).metrics[0]
    assert spread.score == 0.0 and spread.stdev == largest  # the true spread is larger: held at the largest float
    doc = aggregate.document([case, case], [FileResult(path="a.evalset.json", cases=2)], RunInfo(tool_version="x"))
    assert doc.metrics[0].mean == 1e308


def test_an_errored_run_makes_the_case_an_error_and_a_missing_score_makes_it_not_evaluated() -> None:
    assert _case(_finished(1, 1.0), _finished(2, None, error="boom")).status == "error"
    assert _case(_finished(1, None)).status == "not_evaluated"
    assert _case().status == "error"  # a case that never ran


def test_the_document_counts_and_decides_once() -> None:
    cases = [_case(_finished(1, 1.0)), _case(_finished(1, 0.1))]
    files = [FileResult(path="a.evalset.json", cases=2), FileResult(path="b.test.json", error="broken")]
    doc = aggregate.document(cases, files, RunInfo(tool_version="x"))
    assert (doc.totals.cases, doc.totals.passed, doc.totals.failed, doc.totals.file_errors) == (2, 1, 1, 1)
    assert doc.status == "error"  # a file could not be used
    assert doc.metrics[0].name == RESPONSE and doc.metrics[0].pass_rate == 0.5
    only_cases = aggregate.document(cases, files[:1], RunInfo(tool_version="x"))
    assert only_cases.status == "failed"
    assert aggregate.document([], [], RunInfo(tool_version="x")).status == "error"  # nothing evaluated


def test_not_evaluated_fails_unless_allowed_and_an_interrupted_run_is_an_error() -> None:
    cases = [_case(_finished(1, None))]
    assert aggregate.document(cases, [], RunInfo(tool_version="x")).status == "failed"
    assert aggregate.document(cases, [], RunInfo(tool_version="x", allow_not_evaluated=True)).status == "passed"
    interrupted = RunInfo(tool_version="x", allow_not_evaluated=True, interrupted=True)
    assert aggregate.document(cases, [], interrupted).status == "error"


def test_stability_pass_hat_k_and_pass_at_k_per_case_and_for_the_suite() -> None:
    flaky = _case(_finished(1, 1.0), _finished(2, 0.2), _finished(3, 1.0))
    steady = _case(_finished(1, 1.0), _finished(2, 0.9))
    broken = _case(_finished(1, 0.1), _finished(2, 0.2))
    assert (flaky.stability, flaky.runs_passed, flaky.pass_hat_k, flaky.pass_at_k) == ("flaky", 2, False, True)
    assert (steady.stability, steady.pass_hat_k) == ("stable-pass", True)
    assert (broken.stability, broken.pass_at_k) == ("stable-fail", False)
    assert _case(_finished(1, 1.0)).stability is None  # one run says nothing about stability
    doc = aggregate.document([flaky, steady, broken], [], RunInfo(tool_version="x", num_runs=3))
    assert doc.stability is not None
    assert (doc.stability.flaky, doc.stability.stable_pass, doc.stability.stable_fail) == (1, 1, 1)
    assert doc.stability.pass_hat_k == 1 / 3 and doc.stability.pass_at_k == 2 / 3


def test_the_pass_rule_decides_a_case_with_several_runs() -> None:
    def status(rule: PassRule, *scores: float) -> str:
        return _case(*(_finished(number, score) for number, score in enumerate(scores, start=1)), pass_rule=rule).status

    assert status("mean", 1.0, 0.2, 1.0) == "passed"  # ADK: the mean 0.73 meets 0.5
    assert status("all", 1.0, 0.2, 1.0) == "failed"
    assert status("majority", 1.0, 0.2, 1.0) == "passed"
    assert status("majority", 1.0, 0.2, 0.3, 1.0) == "failed"  # two of four is not more than half
    assert status("mean", 0.9, 0.0, 0.0) == "failed" and status("majority", 0.9, 0.0, 0.0) == "failed"


def test_quarantined_cases_run_and_are_counted_apart_so_they_never_fail_the_gate() -> None:
    failing = _case(_finished(1, 0.1))
    other = failing.model_copy(
        update={"id": "b/x.evalset.json::flaky_1", "file": "b/x.evalset.json", "eval_id": "flaky_1"}
    )
    marked = verdict.quarantine([failing, other], ["b/**/*.evalset.json:flaky_*"])
    assert [case.quarantined for case in marked] == [False, True]
    assert [c.quarantined for c in verdict.quarantine([failing], ["a.evalset.json"])] == [True]  # a whole file
    assert [c.quarantined for c in verdict.quarantine([failing], ["a.evalset.json:other"])] == [False]
    passing = _case(_finished(1, 1.0)).model_copy(update={"id": "c.evalset.json::ok", "file": "c.evalset.json"})
    quarantined = verdict.quarantine([failing, passing], ["a.evalset.json:paris"])
    doc = aggregate.document(quarantined, [], RunInfo(tool_version="x"))
    assert (doc.status, doc.totals.failed, doc.totals.quarantined, doc.totals.cases) == ("passed", 0, 1, 2)
    alone = aggregate.document(verdict.quarantine([failing], ["**"]), [], RunInfo(tool_version="x"))
    assert alone.status == "error"  # every case quarantined: nothing is gated, never a pass
    assert [f.reason for f in alone.findings if f.rule == "nothing_gated"] == [
        "every one of the 1 case is quarantined: nothing is gated (narrow --quarantine)"
    ]


def _timed_out(run: int) -> aggregate.FinishedRun:
    return aggregate.FinishedRun(run, Inference(error="timed out after 5 s", timed_out=True), [])


def _judge_down(run: int) -> aggregate.FinishedRun:
    outcome = MetricOutcome.not_evaluated("judge gemini-2.5-flash failed after 5 tries: 503", 1, infrastructure=True)
    return aggregate.FinishedRun(
        run, Inference(invocations=[_turn("weather in Paris?", "sunny")]), [ScoredMetric(CONFIGURED, outcome)]
    )


def test_infrastructure_errors_are_errors_counted_apart_from_the_agents_own() -> None:
    timed_out = _case(_timed_out(1))
    judge_down = _case(_judge_down(1))
    raised = _case(_finished(1, None, error="ValueError: no such city"))
    assert (timed_out.status, timed_out.error_kind) == ("error", "infrastructure")
    assert (judge_down.status, judge_down.error_kind) == ("error", "infrastructure")
    assert judge_down.error == f"{RESPONSE}: judge gemini-2.5-flash failed after 5 tries: 503"
    assert judge_down.runs[0].error_kind == "infrastructure" and judge_down.runs[0].metrics[0].status == "not_evaluated"
    assert (raised.status, raised.error_kind) == ("error", "agent")
    retried = aggregate.FinishedRun(1, Inference(error="429 quota (failed 3 times)", retryable=True), [])
    assert _case(retried).error_kind == "infrastructure"
    mixed = _case(_timed_out(1), _finished(2, None, error="ValueError"))
    assert mixed.error_kind == "agent"  # one run is the agent's own fault: not an infrastructure error
    totals = verdict.totals([timed_out, judge_down, raised, _case(_finished(1, 0.2))], [])
    assert (totals.error, totals.infrastructure_errors, totals.failed) == (3, 2, 1)


def test_a_run_keeps_why_each_earlier_attempt_was_run_again_and_the_totals_count_such_runs() -> None:
    again = _finished(1, 1.0)
    again.inference.retries = ["ClientError: 429 quota", "the agent worker process 2 was killed by SIGKILL"]
    case = _case(again, _finished(2, 1.0))
    assert case.status == "passed"  # a retry around the agent is not the agent's failure
    assert [run.retries for run in case.runs] == [again.inference.retries, []]
    carried = case.model_copy(update={"carried": Carried(sha="abc")})
    assert verdict.totals([case, case, carried], []).retried_runs == 2  # a carried case's runs ran elsewhere


def test_runs_with_an_infrastructure_error_are_left_out_of_the_stability() -> None:
    case = _case(_finished(1, 1.0), _timed_out(2), _finished(3, 0.0))
    assert case.status == "error"  # never a pass with a run that did not finish
    assert (case.stability, case.pass_hat_k, case.pass_at_k, case.runs_passed) == ("flaky", False, True, 1)
    steady = _case(_finished(1, 1.0), _timed_out(2), _finished(3, 1.0))
    assert steady.stability == "stable-pass"
    assert _case(_finished(1, 1.0), _timed_out(2)).stability is None  # one decisive run says nothing


def test_a_confirmed_failure_is_counted_and_a_recovered_case_is_flaky() -> None:
    first_failed = Confirmation(reason="failed", first_status="failed", extra_runs=2)
    confirmed = aggregate.case_result(
        place=aggregate.CasePlace("a.evalset.json", "set", index=0, line=3),
        case=CASE,
        metrics=[CONFIGURED],
        finished=[_finished(1, 0.0), _rerun(_finished(2, 0.1)), _rerun(_finished(3, 0.0))],
        confirmation=first_failed,
    )
    recovered = _case(_finished(1, 0.0), _rerun(_finished(2, 1.0)), _rerun(_finished(3, 1.0))).model_copy(
        update={"confirmation": first_failed}
    )
    assert confirmed.status == "failed" and confirmed.stability == "stable-fail"
    assert confirmed.confirmation is not None and confirmed.confirmation.confirmed
    assert recovered.status == "passed" and recovered.stability == "flaky"  # mean 0.67 >= 0.5: flaky, not hidden
    totals = verdict.totals([confirmed, recovered], [])
    assert (totals.confirmed_failures, totals.failed, totals.passed) == (1, 1, 1)


def test_a_failure_that_passed_one_re_run_is_never_counted_confirmed() -> None:
    """It fails on the mean of its runs, yet a re-run passed: flaky and failed, not a confirmed failure."""
    first_failed = Confirmation(reason="failed", first_status="failed", extra_runs=2)
    case = aggregate.case_result(
        place=aggregate.CasePlace("a.evalset.json", "set", index=0, line=3),
        case=CASE,
        metrics=[CONFIGURED],
        finished=[_finished(1, 0.0), _rerun(_finished(2, 1.0)), _rerun(_finished(3, 0.0))],
        confirmation=first_failed,
    )
    assert (case.status, case.stability) == ("failed", "flaky")
    assert case.confirmation is not None and not case.confirmation.confirmed
    assert verdict.totals([case], []).confirmed_failures == 0
    assert [f.reason for f in case.findings if f.rule == "confirmation"] == [
        "failed on its first runs; passed 1 of its 2 re-runs"
    ]


def _rerun(finished: aggregate.FinishedRun) -> aggregate.FinishedRun:
    finished.confirmation = True
    return finished

"""A re-run of the job continuing the sequential evidence of its earlier attempt: what is continued (derived again
from the runs, whatever the document claims), what a re-run refuses to continue, and the case's record over the runs
of both attempts."""

from __future__ import annotations

import json
import random

import pytest

from adk_eval_gate import verdict
from adk_eval_gate.compare import earlier_attempt
from adk_eval_gate.compare.earlier_attempt import Continuation
from adk_eval_gate.model.results import (
    CaseResult,
    CaseUsage,
    ResultsDocument,
    SequentialCase,
    SequentialRun,
    parse_document,
)
from adk_eval_gate.model.results import dump_json as results_json
from adk_eval_gate.verdict import (
    CaseEvidence,
    MetricSpec,
    RunOutcome,
    SequentialSettings,
    consume,
    continue_evidence,
    open_evidence,
)
from tests.report.builders import case, document, metric

RESPONSE = "response_match_score"
SETTINGS = SequentialRun(confidence=0.95, margin=0.1, min_runs=2, max_runs=4, undecided="point")


def _case(eval_id: str, scores: list[float | None], *, first: int = 1, threshold: float = 0.6) -> CaseResult:
    built = case(eval_id, [metric(RESPONSE, scores, threshold=threshold)])
    built = built.model_copy(update={"runs": [r.model_copy(update={"run": r.run + first - 1}) for r in built.runs]})
    return verdict.decide_case(built, pass_rule="mean", sequential=SETTINGS)


def _attempt(cases: list[CaseResult], *, attempt: int | None, settings: SequentialRun = SETTINGS) -> ResultsDocument:
    decided = verdict.decide(document(cases, num_runs=settings.max_runs), None, verdict.Policy(sequential=settings))
    return decided.model_copy(update={"run": decided.run.model_copy(update={"run_attempt": attempt})})


def _earlier() -> ResultsDocument:
    # steady: curtailed after 3 runs (a mean of 4 runs can no longer miss 0.6); zero: proven to fail after 2
    return _attempt([_case("steady", [1.0] * 4), _case("zero", [0.0] * 4, threshold=0.8)], attempt=1)


def _expected(doc: ResultsDocument) -> dict[str, list[object]]:
    return {c.id: list(c.expected) for c in doc.cases}


def test_each_case_continues_from_the_runs_its_evidence_read_and_a_proof_stands() -> None:
    earlier = _earlier()
    assert [(c.eval_id, c.sequential and c.sequential.decision) for c in earlier.cases] == [
        ("steady", "curtailed"),
        ("zero", "proven-fail"),
    ]
    continued = earlier_attempt.continued_cases(earlier)
    steady, zero = continued[earlier.cases[0].id], continued[earlier.cases[1].id]
    assert steady.evidence.decision is None and steady.evidence.runs == 3 and steady.evidence.window_start == 3
    assert [r.run for r in steady.case.runs] == [1, 2, 3]  # the run after its decision was never evidence
    assert steady.case.sequential is not None and steady.case.sequential.reopened_at == [3]
    assert zero.evidence.decision == "proven-fail" and [r.run for r in zero.case.runs] == [1, 2]


def test_the_decision_uses_the_runs_of_both_attempts_and_counts_only_this_attempts_runs() -> None:
    earlier = _earlier()
    spent = CaseUsage(run_tokens=[100, 100], run_cost_usd=[0.5, 0.5])
    earlier = earlier.model_copy(update={"cases": [c.model_copy(update={"usage": spent}) for c in earlier.cases]})
    found = Continuation(attempt=1, cases=earlier_attempt.continued_cases(earlier))
    # this attempt ran steady again under run numbers 4 and on; zero, proven, spent none
    now = _attempt([_case("steady", [1.0, 1.0], first=4)], attempt=2)
    merged = verdict.decide(earlier_attempt.continued_document(now, found), None, verdict.Policy(sequential=SETTINGS))
    steady, zero = merged.cases
    assert [r.run for r in steady.runs] == [1, 2, 3, 4, 5]
    assert steady.sequential is not None and steady.sequential.decision == "proven-pass"  # a fresh start: curtailed
    assert steady.sequential.runs == 5 and steady.sequential.reopened_at == [3]
    assert zero.sequential is not None and zero.sequential.decision == "proven-fail" and len(zero.runs) == 2
    assert zero.usage is None  # what it cost was the earlier attempt's
    assert merged.totals.runs == 2 and merged.run.continued_from_attempt == 1
    saved = parse_document(json.loads(results_json(merged)), shown="results.json")
    again, claims = verdict.redecide(saved)  # report and merge derive the same decisions from the saved runs
    assert claims == [] and [c.sequential for c in again.cases] == [c.sequential for c in merged.cases]


def test_evidence_the_document_claims_is_ignored_its_runs_decide() -> None:
    earlier = _earlier()
    forged_zero = earlier.cases[1].model_copy(
        update={
            "sequential": earlier.cases[1].sequential.model_copy(  # type: ignore[union-attr]
                update={"decision": "proven-pass", "e_pass": 1e9, "e_fail": 0.0, "verdict": "pass"}
            ),
            "status": "passed",
        }
    )
    forged = earlier.model_copy(update={"cases": [earlier.cases[0], forged_zero]})
    continued = earlier_attempt.continued_cases(forged)[forged_zero.id]
    assert continued.evidence.decision == "proven-fail" and continued.evidence.e_pass < 1  # its runs: all 0


def test_reopened_points_that_are_not_among_the_runs_leave_the_case_without_evidence() -> None:
    steady = _case("steady", [1.0] * 4)
    lying = steady.model_copy(
        update={"sequential": steady.sequential.model_copy(update={"reopened_at": [3, 2, 9]})}  # type: ignore[union-attr]
    )
    decided = verdict.decide_case(lying, pass_rule="mean", sequential=SETTINGS)
    assert decided.sequential is None  # what a record claimed is dropped: today's verdict on its runs stands


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"confidence": 0.99}, "other --sequential settings (confidence 0.95"),
        ({"margin": 0.05}, "other --sequential settings"),
        ({"min_runs": 3}, "other --sequential settings"),
        ({"max_runs": 6}, "num-runs 4"),
        ({"undecided": "neutral"}, "undecided point"),
    ],
)
def test_a_continuation_under_other_sequential_settings_is_refused(changed: dict[str, object], said: str) -> None:
    head = _attempt([], attempt=2, settings=SETTINGS.model_copy(update=changed))
    earlier = _earlier()
    refused = earlier_attempt.refusal(earlier, head=head, attempt=2, expected=_expected(earlier))
    assert refused is not None and said in refused


def _refused(earlier: ResultsDocument, head: ResultsDocument, *, attempt: int = 2) -> str | None:
    return earlier_attempt.refusal(earlier, head=head, attempt=attempt, expected=_expected(earlier))


def test_the_same_test_on_the_same_cases_is_continued() -> None:
    earlier = _earlier()
    assert _refused(earlier, _attempt([], attempt=2)) is None


def test_a_continuation_of_another_pass_rule_commit_criteria_or_case_is_refused() -> None:
    earlier = _earlier()
    head = _attempt([], attempt=2)
    rule = head.model_copy(update={"run": head.run.model_copy(update={"pass_rule": "majority"})})
    assert "--pass-rule mean, now majority" in (_refused(earlier, rule) or "")
    commit = head.model_copy(update={"run": head.run.model_copy(update={"sha": "f" * 40})})
    assert "another commit" in (_refused(earlier, commit) or "")
    files = [earlier.files[0].model_copy(update={"criteria_digest": "a", "metric_digests": {RESPONSE: "a"}})]
    criteria_before = earlier.model_copy(update={"files": files})
    changed = [files[0].model_copy(update={"criteria_digest": "b", "metric_digests": {RESPONSE: "b"}})]
    assert "criteria changed" in (_refused(criteria_before, head.model_copy(update={"files": changed})) or "")
    other_case = {earlier.cases[0].id: [{"out": "It rains."}]}
    refused = earlier_attempt.refusal(earlier, head=head, attempt=2, expected=other_case)
    assert refused is not None and "differs from what it ran" in refused


@pytest.mark.parametrize("recorded", [None, 2, 3])
def test_results_that_do_not_record_an_earlier_attempt_are_refused(recorded: int | None) -> None:
    earlier = _earlier()
    earlier = earlier.model_copy(update={"run": earlier.run.model_copy(update={"run_attempt": recorded})})
    refused = _refused(earlier, _attempt([], attempt=2))
    assert refused is not None and "do not record an attempt before this one (2)" in refused


def _core_until_green(outcomes: list[float], *, window: int) -> tuple[CaseEvidence, list[int]]:
    """The core's re-run until green (the bench's): each attempt reads up to a window of the stream's next runs,
    and a job that did not pass is run again with its evidence continued."""
    settings = SequentialSettings(pass_rule="mean", min_runs=2, max_runs=window)
    evidence = open_evidence(settings, [MetricSpec(RESPONSE, 0.7, 0.0, 1.0)])
    runs = {n: RunOutcome(passed=v >= 0.7, scores={RESPONSE: v}) for n, v in enumerate(outcomes, 1)}
    reopened: list[int] = []
    while True:
        evidence = consume(evidence, runs)
        if evidence.decision is None or evidence.passed or evidence.decision == "proven-fail":
            return evidence, reopened
        reopened.append(evidence.runs)
        evidence = continue_evidence(evidence)


@pytest.mark.parametrize("seed", range(8))
def test_a_record_continued_across_attempts_is_decided_as_the_core_continues_its_evidence(seed: int) -> None:
    rng = random.Random(seed)
    outcomes = [float(rng.random() < 0.6) for _ in range(12)]
    evidence, reopened = _core_until_green(outcomes, window=4)
    settings = SETTINGS.model_copy(update={"max_runs": 4})
    built = case("coin", [metric(RESPONSE, outcomes[: evidence.runs], threshold=0.7)])
    if reopened:
        built = built.model_copy(update={"sequential": _reopened(built, reopened)})
    decided = verdict.decide_case(built, pass_rule="mean", sequential=settings)
    assert decided.sequential is not None
    assert (decided.sequential.decision, decided.sequential.runs) == (evidence.decision, evidence.runs)
    assert decided.sequential.e_fail == pytest.approx(evidence.e_fail)
    assert decided.sequential.e_pass == pytest.approx(evidence.e_pass)


def _reopened(built: CaseResult, points: list[int]) -> SequentialCase:
    first = verdict.decide_case(built, pass_rule="mean", sequential=SETTINGS)
    assert first.sequential is not None
    return first.sequential.model_copy(update={"reopened_at": points})

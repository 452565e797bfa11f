"""A judge metric gates only when it earned it against human labels: else it is informational, with the reason."""

from __future__ import annotations

from adk_eval_gate import verdict
from adk_eval_gate.model.results import CaseResult, JudgeCalibration
from adk_eval_gate.verdict import Policy
from adk_eval_gate.verdict.judge_gate import earned_gate, ungated_reasons
from tests.report.builders import case, metric

JUDGE = "final_response_match_v2"


def calibration(*, labels: int = 64, kappa: float | None = 0.71, low: float = 0.58) -> JudgeCalibration:
    return JudgeCalibration(
        metric=JUDGE,
        judge_model="gemini-2.5-flash",
        fingerprint="f",
        labels=labels,
        agreement=0.9,
        kappa=kappa,
        kappa_interval=(low, 0.83) if kappa is not None else None,
        categories=[0.0, 1.0],
        base_rate=[0.5, 0.5],
        judge_rate=[0.5, 0.5],
        confusion=[[1, 0], [0, 1]],
    )


def with_calibrations(case: CaseResult, reasons: dict[str, str], policy: Policy) -> CaseResult:
    """The case's metrics marked as ``run`` marks a configured metric that has not earned its gate."""
    required = policy.require_calibrated_judges
    metrics = [
        m.model_copy(update={"uncalibrated": reasons[m.name], "calibration_required": required})
        if m.name in reasons
        else m
        for m in case.metrics
    ]
    return case.model_copy(update={"metrics": metrics})


def test_the_floor_of_labels_and_of_kappas_lower_bound() -> None:
    policy = Policy(min_judge_kappa=0.5, min_judge_labels=30)
    assert earned_gate(calibration(), policy).gates
    assert earned_gate(calibration(), policy).reason == "kappa 0.71 [0.58, 0.83] on 64 labels"
    few = earned_gate(calibration(labels=12), policy)
    assert not few.gates and few.reason == "12 confirmed labels, fewer than the 30 needed (--min-judge-labels)"
    low = earned_gate(calibration(low=0.41), policy)
    assert not low.gates and "lower bound is under 0.5 (--min-judge-kappa)" in low.reason
    assert "undefined" in earned_gate(calibration(kappa=None), policy).reason


def test_an_uncalibrated_judge_does_not_fail_its_case_and_says_why() -> None:
    failing = case("judged", [metric(JUDGE, 0.0), metric("response_match_score", 0.9)])
    assert failing.status == "failed"
    reasons = ungated_reasons([earned_gate(calibration(labels=3), Policy())])
    decided = verdict.decide_case(with_calibrations(failing, reasons, Policy()), pass_rule="mean")
    assert decided.status == "passed"
    judged = next(m for m in decided.metrics if m.name == JUDGE)
    assert judged.status == "informational" and judged.score == 0.0
    assert [(f.rule, f.effect, f.reason) for f in decided.findings] == [
        (
            "judge_calibration",
            "none",
            f"{JUDGE} does not gate: on gemini-2.5-flash, 3 confirmed labels, fewer than the 30 needed "
            "(--min-judge-labels)",
        )
    ]
    alone = verdict.decide_case(
        with_calibrations(case("alone", [metric(JUDGE, 0.0)]), reasons, Policy()), pass_rule="mean"
    )
    assert alone.status == "passed"  # not "nothing to evaluate": the note says why it does not gate


def test_required_calibration_makes_it_an_error_and_a_calibrated_judge_still_fails() -> None:
    failing = case("judged", [metric(JUDGE, 0.0)])
    reasons = ungated_reasons([earned_gate(calibration(labels=3), Policy())])
    required = Policy(require_calibrated_judges=True)
    assert verdict.decide_case(with_calibrations(failing, reasons, required), pass_rule="mean").status == "error"
    gated = ungated_reasons([earned_gate(calibration(low=0.65), Policy())])
    assert gated == {}

"""Whether a judge metric gates: only when its agreement with the human labels earned it (enough confirmed labels,
and the lower bound of its kappa's 95% interval at the floor), decided here once; a metric that has not earned it
is informational on every case it touches, with the reason (``rules.uncalibrated_judges``)."""

from __future__ import annotations

from collections.abc import Sequence

from adk_eval_gate.model.results import JudgeCalibration
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict.policy import Policy


def earned_gate(calibration: JudgeCalibration, policy: Policy) -> JudgeCalibration:
    """The calibration with whether its metric gates and why."""
    labels, floor = calibration.labels, policy.min_judge_labels
    interval = calibration.kappa_interval
    if labels < floor:
        reason = f"{plural(labels, 'confirmed label')}, fewer than the {floor} needed (--min-judge-labels)"
    elif calibration.kappa is None or interval is None:
        reason = "its kappa is undefined: the labels and the judge's verdicts use one value throughout"
    elif interval[0] < policy.min_judge_kappa:
        reason = (
            f"kappa {calibration.kappa:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]: its lower bound is under "
            f"{policy.min_judge_kappa:g} (--min-judge-kappa)"
        )
    else:
        return calibration.model_copy(
            update={
                "gates": True,
                "reason": f"kappa {calibration.kappa:.2f} [{interval[0]:.2f}, {interval[1]:.2f}] on "
                f"{plural(labels, 'label')}",
            }
        )
    return calibration.model_copy(update={"gates": False, "reason": reason})


def ungated_reasons(calibrations: Sequence[JudgeCalibration]) -> dict[str, str]:
    """Each metric that does not gate, with why (a metric calibrated on several judge models gates only when
    every one of them earned it)."""
    reasons: dict[str, str] = {}
    for calibration in calibrations:
        if not calibration.gates:
            reasons.setdefault(calibration.metric, f"on {calibration.judge_model}, {calibration.reason}")
    return reasons

"""Each labelled judge metric against the baseline's calibration of it: kappa before and after, whether the judge
changed (its fingerprint), and whether its kappa dropped beyond the baseline's interval."""

from __future__ import annotations

from adk_eval_gate.model.results import JudgeChange, ResultsDocument


def judge_changes(head: ResultsDocument, base: ResultsDocument) -> list[JudgeChange]:
    before = {calibration.metric: calibration for calibration in base.calibrations}
    changes = []
    for now in head.calibrations:
        then = before.get(now.metric)
        if then is None:
            continue
        floor = then.kappa_interval[0] if then.kappa_interval is not None else None
        dropped = floor is not None and now.kappa is not None and now.kappa < floor
        changes.append(
            JudgeChange(
                metric=now.metric,
                judge_model=now.judge_model,
                base_judge_model=then.judge_model,
                kappa=now.kappa,
                kappa_interval=now.kappa_interval,
                base_kappa=then.kappa,
                base_kappa_interval=then.kappa_interval,
                changed=now.fingerprint != then.fingerprint,
                dropped=dropped,
            )
        )
    return changes

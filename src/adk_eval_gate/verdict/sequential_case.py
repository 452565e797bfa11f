"""``--sequential`` in the verdict: a case's evidence read from its runs (in run-number order, the core's
``consume``), recorded in ``cases[].sequential``, and the findings it gives ``decide_case``. Derived again from the
runs whenever results are decided, so saved results cannot claim a decision their runs do not give."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from adk_eval_gate.model.results import (
    CaseResult,
    CaseStatus,
    Effect,
    Finding,
    MetricStatus,
    PassRule,
    RunRecord,
    SequentialCase,
    SequentialRun,
)
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict.sequential import (
    CaseEvidence,
    MetricSpec,
    RunOutcome,
    SequentialSettings,
    consume,
    continue_evidence,
    gate_verdict,
    interval,
    open_evidence,
)
from adk_eval_gate.verdict.sequential.evidence import binding

UNIT_RANGE = (0.0, 1.0)
DEMOTED_RULES = ("threshold", "pass_rule")  # today's N-run findings, which a sequential decision replaces


def _settings_of(run: SequentialRun, *, pass_rule: PassRule) -> SequentialSettings:
    """The core's settings of the recorded ones."""
    return SequentialSettings(
        pass_rule=pass_rule,
        confidence=run.confidence,
        margin=run.margin,
        min_runs=min(run.min_runs, run.max_runs),
        max_runs=run.max_runs,
        undecided=run.undecided,
        fail_split=run.fail_split or 1,
    )


def _metric_specs(case: CaseResult, ranges: Mapping[str, Sequence[float]]) -> list[MetricSpec]:
    """The case's thresholded metrics as the core's streams (``ranges``: those not on 0 to 1)."""
    specs = []
    for metric in case.metrics:
        if metric.threshold is None or metric.kind == "informational" or metric.status == MetricStatus.INFORMATIONAL:
            continue
        low, high = ranges.get(metric.name, UNIT_RANGE)
        specs.append(MetricSpec(metric.name, metric.threshold, low, high, higher_is_better=not metric.lower_is_better))
    return specs


def _outcome(run: RunRecord) -> RunOutcome:
    scores = {metric.name: metric.score for metric in run.metrics if metric.score is not None}
    return RunOutcome(passed=run.status == CaseStatus.PASSED, scores=scores)


def reopened_at(case: CaseResult) -> list[int]:
    """Where re-runs of the job continued the case's evidence (``cases[].sequential.reopened_at``): ValueError
    unless each is a run the case has, in increasing order."""
    points = case.sequential.reopened_at if case.sequential else []
    if points and any(
        point < 1 or point >= later for point, later in zip(points, [*points[1:], len(case.runs) + 1], strict=True)
    ):
        raise ValueError("the runs where re-runs continued the case are not among its runs, in order")
    return points


def case_evidence(
    case: CaseResult, *, pass_rule: PassRule, run: SequentialRun, ranges: Mapping[str, Sequence[float]]
) -> CaseEvidence:
    """The case's evidence after its runs in run-number order, up to the first that cannot be evidence (an error
    or a score outside its metric's range), continued where a re-run of the job continued it (``reopened_at``: the
    capitals go on, a new window opens): ValueError when it has nothing to be decided on under ``pass_rule``."""
    evidence = open_evidence(_settings_of(run, pass_rule=pass_rule), _metric_specs(case, ranges))
    reopened = reopened_at(case)
    for number, record in enumerate(sorted(case.runs, key=lambda r: r.run), start=1):
        if number - 1 in reopened:
            evidence = continue_evidence(evidence)
        if record.error is not None:
            break
        try:
            evidence = consume(evidence, {number: _outcome(record)})
        except ValueError:
            break
        if evidence.runs < number:
            break
    return evidence


def evidence_of(
    case: CaseResult, *, pass_rule: PassRule, run: SequentialRun, ranges: Mapping[str, Sequence[float]]
) -> CaseEvidence | None:
    """The evidence of a case after its runs, for the schedule of its next runs (``ranges``: those of its metrics
    not on 0 to 1); None when it cannot be decided sequentially."""
    try:
        return case_evidence(case, pass_rule=pass_rule, run=run, ranges=ranges)
    except ValueError:
        return None


def record(
    evidence: CaseEvidence, *, ranges: Mapping[str, Sequence[float]], reopened: Sequence[int] = ()
) -> SequentialCase:
    """``cases[].sequential`` (``reopened``: where re-runs of the job continued it)."""
    stream = binding(evidence)
    low, high = interval(evidence)
    return SequentialCase(
        decision=evidence.decision,
        verdict=gate_verdict(evidence),
        runs=evidence.runs,
        e_pass=_finite(evidence.e_pass),
        e_fail=_finite(evidence.e_fail),
        interval=[round(low, 4), round(high, 4)],
        metric=stream.spec.name,
        threshold=stream.spec.threshold,
        mean=round(math.fsum(stream.raws) / len(stream.raws), 4) if stream.raws else None,
        ranges={name: list(bounds) for name, bounds in ranges.items() if tuple(bounds) != UNIT_RANGE},
        reopened_at=[point for point in reopened if point <= evidence.runs],
    )


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 1e300


def shown_e_value(value: float) -> str:
    return f"{value:.3g}" if value < 1e6 else "over a million"


def finding(sequential: SequentialCase, run: SequentialRun) -> Finding:
    """What the decision says, and does to the case under ``--undecided``."""
    confidence = f"{run.confidence:.0%}"
    runs = plural(sequential.runs, "run")
    effect = Effect.FAILED if sequential.verdict == "fail" else Effect.NONE
    if sequential.decision == "proven-pass":
        reason = f"proven to pass at {confidence} after {runs} (e-value {shown_e_value(sequential.e_pass)})"
    elif sequential.decision == "proven-fail":
        reason = f"proven to fail at {confidence} after {runs} (e-value {shown_e_value(sequential.e_fail)})"
    elif sequential.decision == "curtailed":
        verdict = "pass" if sequential.verdict == "pass" else "fail"
        reason = f"curtailed after {runs}: it would {verdict} on {run.max_runs} runs whatever the runs left score"
    elif sequential.decision == "undecided":
        low, high = sequential.interval
        mean = "" if sequential.mean is None else f"mean {sequential.mean:.2f}, "
        reason = (
            f"undecided after {runs} ({mean}interval {low:.2f}-{high:.2f} at {confidence}, threshold "
            f"{sequential.threshold:g}); --undecided {run.undecided}: "
            + {"pass": "its verdict on its runs, a pass", "fail": "it fails", "neutral": "it does not fail the gate"}[
                sequential.verdict or "neutral"
            ]
        )
    else:
        reason = (
            f"no sequential decision after {runs}: a decision needed more (up to {run.max_runs}; a recording replays "
            "only the runs it has), so today's verdict on its runs stands"
        )
    return Finding(rule="sequential", effect=effect, reason=reason, metric=None)


def applied(findings: list[Finding], sequential: SequentialCase) -> list[Finding]:
    """Today's N-run threshold findings under the decision: a pass or a neutral undecided case keeps them as notes
    (they no longer fail it); without a decision they stand."""
    if sequential.verdict not in ("pass", "neutral"):
        return findings
    return [
        found.model_copy(update={"effect": Effect.NONE})
        if found.rule in DEMOTED_RULES and found.effect == Effect.FAILED
        else found
        for found in findings
    ]

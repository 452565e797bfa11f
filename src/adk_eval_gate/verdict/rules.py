"""The rules of the verdict, each one function from the results (and the comparison) to findings with their
reasons. A case's rules read its runs, metrics and budgets; the run's rules read the document, its comparison and
the run's budgets. ``verdict.decide`` applies them in this order; nothing else decides a status.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from adk_eval_gate.model.results import (
    BudgetCheck,
    BudgetStatus,
    CaseResult,
    CaseStatus,
    Comparison,
    Effect,
    ErrorKind,
    Finding,
    MetricResult,
    MetricStatus,
    PassRule,
    ResultsDocument,
    Rule,
    RunMetric,
    RunRecord,
)
from adk_eval_gate.support.globs import NameGlob, PathGlob
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict.aggregation import comparison_text

PASS_RULES = {
    "mean": "each metric's mean over every turn of its runs meets its threshold (ADK's AgentEvaluator rule)",
    "all": "every run passes",
    "majority": "more than half of the runs pass",
}


def _finding(rule: Rule, effect: Effect, reason: str, *, metric: str | None = None) -> Finding:
    return Finding(rule=rule, effect=effect, reason=reason, metric=metric)


# --- a metric and a run -------------------------------------------------------------------------------------


def status_of(statuses: Iterable[MetricStatus]) -> CaseStatus:
    """The status of a set of metric statuses: any failure fails, then any not evaluated, then passed; nothing
    graded is not evaluated."""
    seen = set(statuses)
    if MetricStatus.FAILED in seen:
        return CaseStatus.FAILED
    if MetricStatus.NOT_EVALUATED in seen:
        return CaseStatus.NOT_EVALUATED
    return CaseStatus.PASSED if MetricStatus.PASSED in seen else CaseStatus.NOT_EVALUATED


def run_status(run: RunRecord) -> CaseStatus:
    """One run: an error when it errored, failed when a turn exceeded a case budget, else its metrics' status."""
    if run.error is not None:
        return CaseStatus.ERROR
    if run.over_budget:
        return CaseStatus.FAILED
    return status_of(metric.status for metric in run.metrics)


def run_error(
    *, inference_error: str | None, inference_infrastructure: bool, outage: str | None, metrics: list[RunMetric]
) -> tuple[str | None, ErrorKind | None]:
    """Why one run is an error, and whose fault: its inference failed (the agent raised, or a timeout, the model's
    429/5xx after retries: ``inference_infrastructure``), or a metric could not be scored because a service was
    down (``outage``: a judge outage), unless another metric failed: a failure that is certain is not hidden
    behind an outage."""
    if inference_error is not None:
        return inference_error, "infrastructure" if inference_infrastructure else "agent"
    if outage is None or any(metric.status == MetricStatus.FAILED for metric in metrics):
        return None, None
    return outage, "infrastructure"


def run_reasons(run: RunRecord, metrics: dict[str, MetricResult]) -> list[str]:
    """Why one run did not pass (``run_status``): its error, the case budgets it exceeded, its metrics that
    failed (compared as the case's ``metrics`` say) or could not be evaluated."""
    if run.error is not None:
        return [run.error]
    reasons = list(run.over_budget)
    for metric in run.metrics:
        case_metric = metrics.get(metric.name)
        if metric.status == MetricStatus.FAILED and metric.score is not None:
            shown = MetricResult(
                name=metric.name,
                score=metric.score,
                status=metric.status,
                threshold=case_metric.threshold if case_metric else None,
                lower_is_better=case_metric.lower_is_better if case_metric else False,
            )
            reasons.append(f"{metric.name}: {comparison_text(shown)}")
        elif metric.status == MetricStatus.NOT_EVALUATED:
            reasons.append(f"{metric.name}: not evaluated ({metric.reason or 'no score'})")
    return reasons


# --- a case -------------------------------------------------------------------------------------------------


def errors(case: CaseResult) -> list[Finding]:
    """A run that errored (the agent raised, or a timeout, a 429/5xx after retries, a judge outage) makes the case
    an error; so does a case that did not run at all."""
    if not case.runs:
        return [_finding("error", Effect.ERROR, case.error or "the case did not run")]
    return [
        _finding("error", Effect.ERROR, f"run {run.run}: {run.error}" if len(case.runs) > 1 else run.error)
        for run in case.runs
        if run.error is not None
    ]


SHOWN_RUN_SCORES = 10


def run_scores_text(metric: MetricResult) -> str:
    """`` (runs: 0.9, 0.3, 0.9)`` when the metric has several run scores (the first ten, and how many there are)."""
    if len(metric.run_scores) < 2:
        return ""
    shown = ", ".join("n/a" if score is None else f"{score:.4g}" for score in metric.run_scores[:SHOWN_RUN_SCORES])
    more = f", … ({len(metric.run_scores)} runs)" if len(metric.run_scores) > SHOWN_RUN_SCORES else ""
    return f" (runs: {shown}{more})"


def failure_reason(metric: MetricResult) -> str:
    """``name: score < threshold`` for a failed metric (``>``, and said, when lower is better), ``name: not
    evaluated (why)`` otherwise; with several runs, their scores."""
    if metric.status == MetricStatus.FAILED and metric.score is not None and metric.threshold is not None:
        return f"{metric.name}: {comparison_text(metric)}{run_scores_text(metric)}"
    return f"{metric.name}: not evaluated ({metric.reason or 'no score'}){run_scores_text(metric)}"


def thresholds(case: CaseResult, *, pass_rule: PassRule) -> list[Finding]:
    """With ``--pass-rule mean``: each metric whose mean missed its threshold, or that could not be evaluated;
    nothing graded at all is not evaluated. With ``all``/``majority``: whether enough runs passed."""
    if pass_rule != "mean":
        found = _pass_rule(case.runs, pass_rule)
        # why the runs did not pass, as the metrics' means say it
        return (
            found
            + [
                _finding("threshold", found[0].effect, failure_reason(m), metric=m.name)
                for m in case.metrics
                if m.status == MetricStatus.FAILED
            ]
            if found
            else []
        )
    graded = [m for m in case.metrics if m.status != MetricStatus.INFORMATIONAL]
    found = [
        _finding("threshold", Effect.FAILED, failure_reason(m), metric=m.name)
        if m.status == MetricStatus.FAILED
        else _finding("not_evaluated", Effect.NOT_EVALUATED, failure_reason(m), metric=m.name)
        for m in graded
        if m.status in (MetricStatus.FAILED, MetricStatus.NOT_EVALUATED)
    ]
    if not graded and not any(m.uncalibrated for m in case.metrics):  # an uncalibrated judge says why itself
        found.append(_finding("not_evaluated", Effect.NOT_EVALUATED, "no thresholded metric to evaluate"))
    return found


def uncalibrated_judges(case: CaseResult) -> list[Finding]:
    """Each judge metric that has not earned its gate against the human labels: only noted (its scores are
    informational), or an error with ``--require-calibrated-judges``."""
    return [
        _finding(
            "judge_calibration",
            Effect.ERROR if metric.calibration_required else Effect.NONE,
            f"{metric.name} does not gate: {metric.uncalibrated}",
            metric=metric.name,
        )
        for metric in case.metrics
        if metric.uncalibrated is not None
    ]


def _pass_rule(runs: list[RunRecord], pass_rule: PassRule) -> list[Finding]:
    passed = sum(1 for run in runs if run.status == CaseStatus.PASSED)
    if passed == len(runs) if pass_rule == "all" else passed * 2 > len(runs):
        return []
    effect = Effect.FAILED if any(run.status == CaseStatus.FAILED for run in runs) else Effect.NOT_EVALUATED
    return [
        _finding(
            "pass_rule",
            effect,
            f"{passed} of {len(runs)} runs passed; --pass-rule {pass_rule}: {PASS_RULES[pass_rule]}",
        )
    ]


def case_budgets(case: CaseResult) -> list[Finding]:
    """test_config.json budgets: one missed fails the case; one whose figure is unknown leaves it not evaluated."""
    effects = {BudgetStatus.FAILED: Effect.FAILED, BudgetStatus.UNCHECKED: Effect.NOT_EVALUATED}
    return [_finding("case_budget", effects[b.status], b.reason) for b in case.budgets if b.status in effects]


def confirmation(case: CaseResult) -> list[Finding]:
    """``--confirm-failures``: a failure is confirmed only when every re-run failed too; a case that passed a
    re-run is decided on all its runs with the pass rule (and is flaky)."""
    if case.confirmation is None or not case.confirmation.extra_runs:
        return []
    reruns = [run for run in case.runs if run.confirmation]
    passed = sum(1 for run in reruns if run.status == CaseStatus.PASSED)
    what = f"{case.confirmation.reason} on its first runs; "
    if case.confirmation.confirmed:
        return [
            _finding("confirmation", Effect.NONE, what + f"failed every one of its {len(reruns)} re-runs: confirmed")
        ]
    return [_finding("confirmation", Effect.NONE, what + f"passed {passed} of its {len(reruns)} re-runs")]


def confirmed(case: CaseResult, status: CaseStatus) -> bool:
    """A confirmed failure: the case failed on its first runs, fails now, and every re-run failed."""
    if case.confirmation is None or case.confirmation.first_status != CaseStatus.FAILED or status != CaseStatus.FAILED:
        return False
    reruns = [run for run in case.runs if run.confirmation]
    return bool(reruns) and all(run.status == CaseStatus.FAILED for run in reruns)


def quarantined(case: CaseResult, selectors: list[str]) -> bool:
    """``--quarantine FILE[:CASE]`` (globs): the case is reported, and never fails the gate."""
    return any(selects(selector, case.file, case.eval_id) for selector in selectors)


def selects(selector: str, file: str, eval_id: str | None) -> bool:
    """Whether the ``--quarantine`` selector takes the case ``eval_id`` of ``file`` (None: any case of it)."""
    pattern, case_pattern = _selector(selector)
    return pattern.matches(file) and (eval_id is None or case_pattern.matches(eval_id))


@functools.lru_cache(maxsize=256)
def _selector(text: str) -> tuple[PathGlob, NameGlob]:
    """A selector's globs, built once: each is asked about every case."""
    file, _, eval_id = text.strip().partition(":")  # a repository path holds no ':'
    return PathGlob(file.strip()), NameGlob(eval_id.strip() or "*")


# --- the run ------------------------------------------------------------------------------------------------


def file_errors(doc: ResultsDocument) -> list[Finding]:
    """An eval file or config that could not be used: the run is an error (and the exit code 2)."""
    return [
        _finding("file_error", Effect.ERROR, f"{file.path}{f':{file.line}' if file.line else ''}: {file.error}")
        for file in doc.files
        if file.error
    ]


def internal_error(doc: ResultsDocument) -> list[Finding]:
    """The run crashed, or a report could not be written."""
    return [_finding("internal_error", Effect.ERROR, doc.error)] if doc.error else []


def interrupted(doc: ResultsDocument) -> list[Finding]:
    if not doc.run.interrupted:
        return []
    unfinished = len(doc.run.unfinished)
    rest = f": {plural(unfinished, 'case')} did not finish" if unfinished else ""
    return [_finding("interrupted", Effect.ERROR, f"interrupted before every case run finished{rest}")]


def nothing_gated(doc: ResultsDocument) -> list[Finding]:
    """A run that evaluated no case, or whose every case is quarantined, cannot pass: it gated nothing."""
    if not doc.cases:
        return [_finding("nothing_gated", Effect.ERROR, "no eval case was evaluated")]
    if all(case.quarantined for case in doc.cases):
        return [
            _finding(
                "nothing_gated",
                Effect.ERROR,
                f"every one of the {plural(len(doc.cases), 'case')} is quarantined: nothing is gated "
                "(narrow --quarantine)",
            )
        ]
    return []


def fails_gate(case: CaseResult, *, allow_not_evaluated: bool) -> bool:
    """Whether the case is one that fails the run: gated (not quarantined), and failed, an error, or not
    evaluated without ``--allow-not-evaluated``."""
    if case.quarantined or case.status == CaseStatus.PASSED:
        return False
    return case.status != CaseStatus.NOT_EVALUATED or not allow_not_evaluated


def cases(doc: ResultsDocument, *, allow_not_evaluated: bool) -> list[Finding]:
    """The gated cases: a failure fails the run, an error makes it an error, and a case not evaluated fails it
    unless ``--allow-not-evaluated``. Quarantined cases never count."""
    gated = [case for case in doc.cases if not case.quarantined]
    failed = sum(1 for case in gated if case.status == CaseStatus.FAILED)
    errored = sum(1 for case in gated if case.status == CaseStatus.ERROR)
    unevaluated = sum(1 for case in gated if case.status == CaseStatus.NOT_EVALUATED)
    found = []
    if errored:
        found.append(_finding("cases", Effect.ERROR, f"{plural(errored, 'case')} could not be evaluated (error)"))
    if failed:
        found.append(_finding("cases", Effect.FAILED, f"{plural(failed, 'case')} failed"))
    if unevaluated:
        allowed = " (allowed by --allow-not-evaluated)" if allow_not_evaluated else ""
        effect = Effect.NONE if allow_not_evaluated else Effect.FAILED
        found.append(_finding("cases", effect, f"{plural(unevaluated, 'case')} not evaluated{allowed}"))
    return found


def run_budgets(checks: list[BudgetCheck]) -> list[Finding]:
    """``--max-cost`` and the increase limits: one missed fails the run; one whose figure is unknown is an error."""
    effects = {
        BudgetStatus.FAILED: Effect.FAILED,
        BudgetStatus.UNCHECKED: Effect.ERROR,
        BudgetStatus.PASSED: Effect.NONE,
        BudgetStatus.SKIPPED: Effect.NONE,
    }
    return [_finding("run_budget", effects[check.status], check.reason) for check in checks]


def regressions(comparison: Comparison | None, *, fail_on_regression: bool) -> list[Finding]:
    """``--fail-on-regression``: a regression that counts (beyond noise, scored alike on both sides) fails the
    run; without it regressions are only reported."""
    if comparison is None or not comparison.regressions:
        return []
    counted = plural(comparison.regressions, "regression")
    if fail_on_regression:
        verb = "fails" if comparison.regressions == 1 else "fail"
        return [_finding("regressions", Effect.FAILED, f"{counted} against the baseline {verb} the gate")]
    return [
        _finding("regressions", Effect.NONE, f"{counted} against the baseline (reported; --fail-on-regression not set)")
    ]


def judge_regressions(comparison: Comparison | None, *, fail_on_regression: bool) -> list[Finding]:
    """A judge whose kappa dropped under the lower bound of the baseline's interval is a regression like a
    metric's: it fails the run with ``--fail-on-regression``, else it is reported."""
    dropped = [change for change in comparison.judge_changes if change.dropped] if comparison else []
    effect = Effect.FAILED if fail_on_regression else Effect.NONE
    return [
        _finding(
            "regressions",
            effect,
            f"{change.metric}'s judge agrees less with the human labels: kappa {change.kappa:.2f} on "
            f"{change.judge_model}, under the baseline's {change.base_kappa:.2f} "
            f"[{change.base_kappa_interval[0]:.2f}, {change.base_kappa_interval[1]:.2f}] on {change.base_judge_model}",
            metric=change.metric,
        )
        for change in dropped
        if change.kappa is not None and change.base_kappa is not None and change.base_kappa_interval is not None
    ]

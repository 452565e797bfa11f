"""Verdicts: per run, per case (over runs) and for the whole run.

* A metric passes when its score is at least its threshold; informational metrics never pass or fail.
* With several runs the case's metric score is the mean of the run scores; the run scores, their spread and
  the number of passing runs are kept.
* A case is ``error`` when a run could not be inferred or scored (the agent raised, or an infrastructure error:
  a timeout, the model's 429/5xx after retries, a judge outage), else ``failed`` when a thresholded metric failed,
  else ``not_evaluated`` when one could not be evaluated, else ``passed``; with several runs, ``--pass-rule``
  decides (``stability``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from adk_eval_gate import stats
from adk_eval_gate.budgets import case_checks, run_overruns
from adk_eval_gate.discover import glob_to_regex
from adk_eval_gate.eval_config import Budgets
from adk_eval_gate.evalset import EvalCase, Invocation, content_text, dump_invocation
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.plan import case_id
from adk_eval_gate.pricing import Prices
from adk_eval_gate.results import (
    CaseResult,
    CaseStatus,
    Confirmation,
    ErrorKind,
    FileResult,
    InvocationRecord,
    JudgeStats,
    MetricResult,
    MetricStatus,
    MetricSummary,
    PassRule,
    ResultsDocument,
    RubricScoreRecord,
    RunInfo,
    RunMetric,
    RunRecord,
    RunStatus,
    Totals,
)
from adk_eval_gate.results_usage import BudgetCheck, PriceSource, UsageTotals
from adk_eval_gate.runners.base import Inference
from adk_eval_gate.score import ScoredMetric
from adk_eval_gate.stability import decided_by, stability, status_of, suite_stability
from adk_eval_gate.usage import case_usage, run_usage, suite_usage


@dataclass
class FinishedRun:
    run: int
    inference: Inference
    scored: list[ScoredMetric]
    confirmation: bool = False  # a re-run of --confirm-failures

    @property
    def infrastructure_failure(self) -> str | None:
        """Why a metric could not be scored because a service around the agent failed (a judge outage)."""
        return next((f"{s.configured.name}: {s.outcome.reason}" for s in self.scored if s.outcome.infrastructure), None)

    @property
    def error(self) -> str | None:
        """Why the run is an error: inference failed, or a metric could not be scored because a service was down
        (unless another metric failed: a failure that is certain is not hidden behind an outage)."""
        if self.inference.error is not None:
            return self.inference.error
        failed = any(scored.outcome.status is MetricStatus.FAILED for scored in self.scored)
        return None if failed else self.infrastructure_failure

    @property
    def error_kind(self) -> ErrorKind | None:
        if self.inference.error is not None:
            return "infrastructure" if self.inference.infrastructure else "agent"
        return "infrastructure" if self.error else None

    @property
    def status(self) -> CaseStatus:
        """The run's status: ``error`` (see ``error``), else decided by its metrics' statuses."""
        if self.error is not None:
            return "error"
        return status_of(scored.outcome.status for scored in self.scored)


def _rubric_scores(scored: ScoredMetric) -> list[RubricScoreRecord] | None:
    if not scored.outcome.rubric_scores:
        return None
    return [RubricScoreRecord.model_validate(score.model_dump()) for score in scored.outcome.rubric_scores]


def run_record(case: EvalCase, finished: FinishedRun, prices: Prices | None = None) -> RunRecord:
    inference = finished.inference
    expected = case.conversation or []
    turns = max(len(expected), len(inference.invocations))
    invocations = []
    for index in range(turns):
        exp: Invocation | None = expected[index] if index < len(expected) else None
        act: Invocation | None = inference.invocations[index] if index < len(inference.invocations) else None
        user_source = exp or act
        invocations.append(
            InvocationRecord(
                user=content_text(user_source.user_content) if user_source else "",
                expected=dump_invocation(exp) if exp else None,
                actual=dump_invocation(act) if act else None,
            )
        )
    metrics = [
        RunMetric(
            name=scored.configured.name,
            score=scored.outcome.score,
            status=scored.outcome.status,
            invocation_scores=[item.score for item in scored.outcome.per_invocation],
            reason=scored.outcome.reason,
            rubric_scores=_rubric_scores(scored),
            details=scored.outcome.details,
        )
        for scored in finished.scored
    ]
    return RunRecord(
        run=finished.run,
        status=finished.status,
        error=finished.error,
        error_kind=finished.error_kind,
        confirmation=finished.confirmation,
        duration_seconds=inference.duration_seconds,
        session_id=inference.session_id,
        invocations=invocations,
        metrics=metrics,
        notes=list(inference.notes),
        log=list(inference.log),
        usage=run_usage(inference.invocations, prices or Prices.shipped(), simulator=inference.simulator_calls)
        if inference.invocations
        else None,
        final_session_state=inference.final_session_state,
    )


def metric_result(configured: ConfiguredMetric, runs: list[RunRecord]) -> MetricResult:
    per_run = [next((m for m in run.metrics if m.name == configured.name), None) for run in runs if run.metrics]
    run_scores = [m.score if m else None for m in per_run]
    present = [score for score in run_scores if score is not None]
    mean = stats.mean(present) if present else None
    threshold = configured.threshold
    reasons = [m.reason for m in per_run if m and m.status == "not_evaluated" and m.reason]
    if configured.spec.informational:
        status = MetricStatus.INFORMATIONAL
    elif mean is None or len(present) < len(run_scores) or not per_run:
        status = MetricStatus.NOT_EVALUATED
    else:
        assert threshold is not None
        status = MetricStatus.PASSED if mean >= threshold else MetricStatus.FAILED
    return MetricResult(
        name=configured.name,
        kind=configured.spec.kind,
        score=mean,
        threshold=threshold,
        status=status,
        run_scores=run_scores,
        invocation_scores=[m.invocation_scores if m else [] for m in per_run],
        passed_runs=sum(1 for m in per_run if m and m.status == "passed"),
        stdev=stats.spread(present) if len(present) > 1 else None,
        reason=reasons[0]
        if status == "not_evaluated" and reasons
        else ("no run could be scored" if status == "not_evaluated" else None),
    )


def case_result(
    *,
    display: str,
    eval_set_id: str,
    case: EvalCase,
    index: int,
    line: int | None,
    metrics: list[ConfiguredMetric],
    finished: list[FinishedRun],
    pass_rule: PassRule = "mean",
    confirmation: Confirmation | None = None,
    prices: Prices | None = None,
    budgets: Budgets | None = None,
) -> CaseResult:
    runs = [within_budget(run_record(case, item, prices), budgets) for item in sorted(finished, key=lambda f: f.run)]
    metric_results = [metric_result(configured, runs) for configured in metrics]
    checks = case_checks(runs, budgets, pass_rule=pass_rule)
    failed_runs = [run for run in runs if run.error]
    errors = [run.error for run in failed_runs if run.error]
    error_kind: ErrorKind | None = None
    if errors:
        status: CaseStatus = "error"
        infrastructure = all(run.error_kind == "infrastructure" for run in failed_runs)
        error_kind = "infrastructure" if infrastructure else "agent"
    elif not runs:
        status = "error"
        errors = ["the case did not run"]
    else:
        status = with_budgets(decided_by(pass_rule, runs, metric_results), checks)
    kind, pass_hat_k, pass_at_k = stability(runs)
    return CaseResult(
        id=case_id(display, case.eval_id),
        file=display,
        eval_set_id=eval_set_id,
        eval_id=case.eval_id,
        index=index,
        line=line,
        status=status,
        error=errors[0] if errors else None,
        error_kind=error_kind,
        metrics=metric_results,
        runs=runs,
        runs_passed=sum(1 for run in runs if run.status == "passed") if runs else None,
        stability=kind,
        pass_hat_k=pass_hat_k,
        pass_at_k=pass_at_k,
        confirmation=confirmation,
        usage=case_usage([run.usage for run in runs]) if runs else None,
        budgets=checks,
    )


def within_budget(run: RunRecord, budgets: Budgets | None) -> RunRecord:
    """The run, failed when one of its turns exceeded a budget of the case's config."""
    overruns = run_overruns(run, budgets)
    if not overruns:
        return run
    status = run.status if run.status in ("error", "failed") else "failed"
    return run.model_copy(update={"over_budget": overruns, "status": status})


def with_budgets(status: CaseStatus, checks: list[BudgetCheck]) -> CaseStatus:
    """A budget that failed fails the case; one that could not be checked leaves it not evaluated."""
    if status == "error":
        return status
    if any(check.status == "failed" for check in checks):
        return "failed"
    if status == "passed" and any(check.status == "unchecked" for check in checks):
        return "not_evaluated"
    return status


def totals(cases: list[CaseResult], files: list[FileResult]) -> Totals:
    """Counts by status; quarantined cases are counted apart, so they never fail the gate."""
    gating = [c for c in cases if not c.quarantined]
    count = {
        status: sum(1 for c in gating if c.status == status)
        for status in ("passed", "failed", "error", "not_evaluated")
    }
    return Totals(
        cases=len(cases),
        quarantined=len(cases) - len(gating),
        passed=count["passed"],
        failed=count["failed"],
        error=count["error"],
        not_evaluated=count["not_evaluated"],
        files=len(files),
        file_errors=sum(1 for f in files if f.error),
        infrastructure_errors=sum(1 for c in gating if c.status == "error" and c.error_kind == "infrastructure"),
        confirmed_failures=sum(
            1 for c in gating if c.confirmation and c.confirmation.first_status == "failed" and c.status == "failed"
        ),
    )


def metric_summaries(cases: list[CaseResult]) -> list[MetricSummary]:
    by_name: dict[str, list[MetricResult]] = {}
    for case in cases:
        for metric in case.metrics:
            by_name.setdefault(metric.name, []).append(metric)
    summaries = []
    for name, results in by_name.items():
        scores = [m.score for m in results if m.score is not None]
        thresholds = sorted({m.threshold for m in results if m.threshold is not None})
        graded = [m for m in results if m.status != "informational"]
        passed = sum(1 for m in graded if m.status == "passed")
        summaries.append(
            MetricSummary(
                name=name,
                kind=results[0].kind,
                threshold=thresholds[0] if len(thresholds) == 1 else None,
                thresholds=thresholds if len(thresholds) > 1 else [],
                mean=stats.mean(scores) if scores else None,
                cases=len(results),
                passed=passed,
                failed=sum(1 for m in graded if m.status == "failed"),
                not_evaluated=sum(1 for m in graded if m.status == "not_evaluated"),
                pass_rate=passed / len(graded) if graded else None,
            )
        )
    informational = [s for s in summaries if s.kind == "informational"]
    return [s for s in summaries if s.kind != "informational"] + informational


def quarantine(cases: list[CaseResult], selectors: list[str]) -> list[CaseResult]:
    """The cases, those matched by a ``--quarantine`` selector (``FILE[:CASE]``, globs) marked quarantined."""
    if not selectors:
        return cases
    matchers = [_selector(selector) for selector in selectors]
    return [
        case.model_copy(update={"quarantined": True})
        if any(file.fullmatch(case.file) and fnmatch.fnmatchcase(case.eval_id, eval_id) for file, eval_id in matchers)
        else case
        for case in cases
    ]


def _selector(text: str) -> tuple[re.Pattern[str], str]:
    file, _, eval_id = text.strip().partition(":")  # a repository path holds no ':'
    return glob_to_regex(file.strip()), eval_id.strip() or "*"


def document(
    cases: list[CaseResult],
    files: list[FileResult],
    run: RunInfo,
    *,
    judge: JudgeStats | None = None,
    judge_usage: UsageTotals | None = None,
    prices: PriceSource | None = None,
) -> ResultsDocument:
    """The results document from its cases and files: totals, metric summaries, usage and status computed here
    only."""
    counts = totals(cases, files)
    return ResultsDocument(
        status=overall_status(counts, allow_not_evaluated=run.allow_not_evaluated, interrupted=run.interrupted),
        totals=counts,
        cases=cases,
        files=files,
        metrics=metric_summaries(cases),
        stability=suite_stability(cases),
        judge=judge,
        usage=suite_usage(cases, judge=judge_usage, prices=prices),
        run=run,
    )


def overall_status(
    counts: Totals,
    *,
    allow_not_evaluated: bool,
    significant_regressions: int = 0,
    fail_on_regression: bool = False,
    interrupted: bool = False,
    budgets: list[BudgetCheck] | None = None,
) -> RunStatus:
    """``error`` when something could not be evaluated at all (a file, a case, a run cut short, a budget whose
    figure is unknown); ``failed`` when a case failed, a budget was missed or (when asked) a regression."""
    checks = budgets or []
    if counts.file_errors or counts.error or interrupted or any(c.status == "unchecked" for c in checks):
        return "error"
    if counts.failed or (counts.not_evaluated and not allow_not_evaluated):
        return "failed"
    if any(check.status == "failed" for check in checks):
        return "failed"
    if fail_on_regression and significant_regressions:
        return "failed"
    if counts.cases == 0:
        return "error"
    return "passed"

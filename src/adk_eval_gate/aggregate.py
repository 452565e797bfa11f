"""Verdicts: per run, per case (over runs) and for the whole run.

* A metric passes when its score is at least its threshold; informational metrics never pass or fail.
* With several runs the case's metric score is the mean of the run scores; the run scores, their spread and
  the number of passing runs are kept.
* A case is ``error`` when a run could not be inferred, else ``failed`` when a thresholded metric failed, else
  ``not_evaluated`` when one could not be evaluated, else ``passed``.
"""

from __future__ import annotations

import fnmatch
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from adk_eval_gate.discover import glob_to_regex
from adk_eval_gate.evalset import EvalCase, Invocation, content_text, dump_invocation
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.plan import case_id
from adk_eval_gate.results import (
    CaseResult,
    CaseStatus,
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
    Stability,
    SuiteStability,
    Totals,
)
from adk_eval_gate.runners.base import Inference
from adk_eval_gate.score import ScoredMetric


@dataclass
class FinishedRun:
    run: int
    inference: Inference
    scored: list[ScoredMetric]

    @property
    def status(self) -> CaseStatus:
        """The run's status: ``error`` when inference failed, else decided by its metrics' statuses."""
        if self.inference.error is not None:
            return "error"
        return _status_of(scored.outcome.status for scored in self.scored)


def _rubric_scores(scored: ScoredMetric) -> list[RubricScoreRecord] | None:
    if not scored.outcome.rubric_scores:
        return None
    return [RubricScoreRecord.model_validate(score.model_dump()) for score in scored.outcome.rubric_scores]


def run_record(case: EvalCase, finished: FinishedRun) -> RunRecord:
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
        error=inference.error,
        duration_seconds=inference.duration_seconds,
        session_id=inference.session_id,
        invocations=invocations,
        metrics=metrics,
        notes=list(inference.notes),
        log=list(inference.log),
        final_session_state=inference.final_session_state,
    )


def _status_of(statuses: Iterable[str]) -> CaseStatus:
    seen = set(statuses)
    if "failed" in seen:
        return "failed"
    if "not_evaluated" in seen:
        return "not_evaluated"
    if "passed" in seen:
        return "passed"
    return "not_evaluated"


def metric_result(configured: ConfiguredMetric, runs: list[RunRecord]) -> MetricResult:
    per_run = [next((m for m in run.metrics if m.name == configured.name), None) for run in runs if not run.error]
    run_scores = [m.score if m else None for m in per_run]
    present = [score for score in run_scores if score is not None]
    mean = statistics.fmean(present) if present else None
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
        stdev=statistics.stdev(present) if len(present) > 1 else None,
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
) -> CaseResult:
    runs = [run_record(case, item) for item in sorted(finished, key=lambda f: f.run)]
    metric_results = [metric_result(configured, runs) for configured in metrics]
    errors = [run.error for run in runs if run.error]
    if errors:
        status: CaseStatus = "error"
    elif not runs:
        status = "error"
        errors = ["the case did not run"]
    else:
        status = _decided_by(pass_rule, runs, metric_results)
    passed = sum(1 for run in runs if run.status == "passed")
    several = len(runs) > 1
    return CaseResult(
        id=case_id(display, case.eval_id),
        file=display,
        eval_set_id=eval_set_id,
        eval_id=case.eval_id,
        index=index,
        line=line,
        status=status,
        error=errors[0] if errors else None,
        metrics=metric_results,
        runs=runs,
        runs_passed=passed if runs else None,
        stability=_stability(passed, len(runs)) if several else None,
        pass_hat_k=passed == len(runs) if several else None,
        pass_at_k=passed > 0 if several else None,
    )


def _decided_by(pass_rule: PassRule, runs: list[RunRecord], metrics: list[MetricResult]) -> CaseStatus:
    """The case's status under ``--pass-rule``: ADK's mean of each metric, or a count of the runs that passed."""
    if pass_rule == "mean":
        return _status_of(m.status for m in metrics)
    passed = sum(1 for run in runs if run.status == "passed")
    enough = passed == len(runs) if pass_rule == "all" else passed * 2 > len(runs)
    if enough:
        return "passed"
    return "failed" if any(run.status == "failed" for run in runs) else "not_evaluated"


def _stability(passed: int, runs: int) -> Stability:
    return "stable-pass" if passed == runs else "stable-fail" if passed == 0 else "flaky"


def suite_stability(cases: list[CaseResult]) -> SuiteStability | None:
    """pass^k, pass@k and the stable/flaky counts over the cases that ran several times (None: there are none)."""
    several = [case for case in cases if case.stability is not None]
    if not several:
        return None
    return SuiteStability(
        cases=len(several),
        stable_pass=sum(1 for case in several if case.stability == "stable-pass"),
        stable_fail=sum(1 for case in several if case.stability == "stable-fail"),
        flaky=sum(1 for case in several if case.stability == "flaky"),
        pass_hat_k=sum(1 for case in several if case.pass_hat_k) / len(several),
        pass_at_k=sum(1 for case in several if case.pass_at_k) / len(several),
    )


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
                mean=statistics.fmean(scores) if scores else None,
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
) -> ResultsDocument:
    """The results document from its cases and files: totals, metric summaries and status computed here only."""
    counts = totals(cases, files)
    return ResultsDocument(
        status=overall_status(counts, allow_not_evaluated=run.allow_not_evaluated, interrupted=run.interrupted),
        totals=counts,
        cases=cases,
        files=files,
        metrics=metric_summaries(cases),
        stability=suite_stability(cases),
        judge=judge,
        run=run,
    )


def overall_status(
    counts: Totals,
    *,
    allow_not_evaluated: bool,
    significant_regressions: int = 0,
    fail_on_regression: bool = False,
    interrupted: bool = False,
) -> RunStatus:
    """``error`` when something could not be evaluated at all (a file, a case, or a run cut short)."""
    if counts.file_errors or counts.error or interrupted:
        return "error"
    if counts.failed or (counts.not_evaluated and not allow_not_evaluated):
        return "failed"
    if fail_on_regression and significant_regressions:
        return "failed"
    if counts.cases == 0:
        return "error"
    return "passed"

"""aggregate: scored runs into results.json's records: each run, each case over its runs (the metric's score is
the mean of its run scores; the run scores, their spread and the number of passing runs are kept), and the
document with its metric summaries and usage. The statuses are decided by the verdict (``verdict``), here when a
case's runs are done and again for the whole run.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from adk_eval_gate import verdict
from adk_eval_gate.aggregate.pricing import Prices
from adk_eval_gate.aggregate.usage import case_usage, suite_usage, usage_of_turns
from adk_eval_gate.inputs.plan import case_id
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.metrics.score import ScoredMetric
from adk_eval_gate.model import compact
from adk_eval_gate.model.eval_config import Budgets
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.model.results import (
    CaseInputs,
    CaseResult,
    Confirmation,
    FileResult,
    InvocationRecord,
    JudgeStats,
    MetricResult,
    MetricSummary,
    PassRule,
    ResultsDocument,
    RubricScoreRecord,
    RunInfo,
    RunMetric,
    RunRecord,
    Totals,
    run_figures,
)
from adk_eval_gate.model.results_base import CaseStatus, MetricStatus, RunStatus
from adk_eval_gate.model.results_usage import PriceSource, UsageTotals
from adk_eval_gate.runners.capture import capture, expected_turns, expected_user
from adk_eval_gate.runners.execute import FinishedRun
from adk_eval_gate.support import stats
from adk_eval_gate.verdict.budgets import case_checks, run_overruns
from adk_eval_gate.verdict.rules import metric_status, run_status


def _rubric_scores(scored: ScoredMetric) -> list[RubricScoreRecord] | None:
    if not scored.outcome.rubric_scores:
        return None
    return [RubricScoreRecord.model_validate(score.model_dump()) for score in scored.outcome.rubric_scores]


def run_record(
    case: EvalCase,
    finished: FinishedRun,
    prices: Prices | None = None,
    *,
    expected: Sequence[compact.Turn | None] | None = None,
    apps: compact.AppTable | None = None,
) -> RunRecord:
    """The run's record: its turns as they were kept where the run was made (``runners.capture``; done here for
    a run that was not), beside the case's ``expected`` turns (made from the case when None)."""
    inference = capture(case, finished.inference, apps=apps)
    wanted: Sequence[compact.Turn | None] = expected_turns(case) if expected is None else expected
    turns = inference.turns or []
    invocations = []
    for index in range(max(len(wanted), len(turns))):
        act = turns[index] if index < len(turns) else None
        user = expected_user(case, index)
        turn = InvocationRecord(user=compact.user_text(act) if user is None else user, act=act)
        turn._expected = wanted[index] if index < len(wanted) else None
        invocations.append(turn)
    metrics = [
        RunMetric(
            name=scored.configured.name,
            score=scored.outcome.score,
            status=scored.outcome.status,
            invocation_scores=[item.score for item in scored.outcome.per_invocation],
            reason=scored.outcome.reason,
            rubric_scores=_rubric_scores(scored),
            details=scored.outcome.details,
            computed_by=scored.outcome.computed_by,
        )
        for scored in finished.scored
    ]
    record = RunRecord(
        run=finished.run,
        status=CaseStatus.ERROR,  # decided below, by the verdict's rule
        error=finished.error,
        error_kind=finished.error_kind,
        confirmation=finished.confirmation,
        duration_seconds=inference.duration_seconds,
        started_at=inference.started_at,
        session_id=inference.session_id,
        invocations=invocations,
        metrics=metrics,
        notes=list(inference.notes),
        log=list(inference.log),
        usage=usage_of_turns(inference.facts or [], prices or Prices.shipped(), simulator=inference.simulator_calls)
        if turns
        else None,
        final_session_state=inference.final_session_state,
    )
    return record.model_copy(update={"status": run_status(record)})


def metric_result(configured: ConfiguredMetric, runs: list[RunRecord]) -> MetricResult:
    per_run = [next((m for m in run.metrics if m.name == configured.name), None) for run in runs if run.metrics]
    run_scores, passed_runs = run_figures(configured.name, runs)
    present = [score for score in run_scores if score is not None]
    mean = stats.mean(present) if present else None
    status = metric_status(
        informational=configured.spec.informational,
        score=mean,
        threshold=configured.threshold,
        complete=bool(per_run) and len(present) == len(run_scores),
    )
    reasons = [m.reason for m in per_run if m and m.status == MetricStatus.NOT_EVALUATED and m.reason]
    return MetricResult(
        name=configured.name,
        kind=configured.spec.kind,
        score=mean,
        threshold=configured.threshold,
        status=status,
        run_scores=run_scores,
        invocation_scores=[m.invocation_scores if m else [] for m in per_run],
        passed_runs=passed_runs,
        stdev=stats.spread(present) if len(present) > 1 else None,
        reason=(reasons[0] if reasons else "no run could be scored") if status == MetricStatus.NOT_EVALUATED else None,
        computed_by=next((m.computed_by for m in per_run if m and m.computed_by), None),
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
    apps: compact.AppTable | None = None,
) -> CaseResult:
    """The case's record over its runs, decided by the verdict's rules."""
    expected = expected_turns(case)
    runs = [
        within_budget(run_record(case, item, prices, expected=expected, apps=apps), budgets)
        for item in sorted(finished, key=lambda f: f.run)
    ]
    record = CaseResult(
        id=case_id(display, case.eval_id),
        file=display,
        eval_set_id=eval_set_id,
        eval_id=case.eval_id,
        index=index,
        line=line,
        status=CaseStatus.ERROR,  # decided below
        metrics=[metric_result(configured, runs) for configured in metrics],
        runs=runs,
        confirmation=confirmation,
        usage=case_usage([run.usage for run in runs]) if runs else None,
        budgets=case_checks(runs, budgets, pass_rule=pass_rule),
        expected=list(expected),
    )
    return verdict.decide_case(record, pass_rule=pass_rule)


def within_budget(run: RunRecord, budgets: Budgets | None) -> RunRecord:
    """The run with the case budgets its turns exceeded (the verdict fails such a run)."""
    overruns = run_overruns(run, budgets)
    return run.model_copy(update={"over_budget": overruns}) if overruns else run


def metric_summaries(cases: list[CaseResult]) -> list[MetricSummary]:
    by_name: dict[str, list[MetricResult]] = {}
    for case in cases:
        for metric in case.metrics:
            by_name.setdefault(metric.name, []).append(metric)
    summaries = []
    for name, results in by_name.items():
        scores = [m.score for m in results if m.score is not None]
        thresholds = sorted({m.threshold for m in results if m.threshold is not None})
        graded = [m for m in results if m.status != MetricStatus.INFORMATIONAL]
        passed = sum(1 for m in graded if m.status == MetricStatus.PASSED)
        summaries.append(
            MetricSummary(
                name=name,
                kind=results[0].kind,
                threshold=thresholds[0] if len(thresholds) == 1 else None,
                thresholds=thresholds if len(thresholds) > 1 else [],
                mean=stats.mean(scores) if scores else None,
                cases=len(results),
                passed=passed,
                failed=sum(1 for m in graded if m.status == MetricStatus.FAILED),
                not_evaluated=sum(1 for m in graded if m.status == MetricStatus.NOT_EVALUATED),
                pass_rate=passed / len(graded) if graded else None,
                computed_by=next((m.computed_by for m in results if m.computed_by), None),
            )
        )
    informational = [s for s in summaries if s.kind == "informational"]
    return [s for s in summaries if s.kind != "informational"] + informational


def with_case_inputs(files: list[FileResult], cases: list[CaseResult]) -> list[FileResult]:
    """Each file with the inputs most of its cases have (``FileResult.case_inputs``: results.json keeps them once)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    found: dict[tuple[str, str], CaseInputs] = {}
    for case in cases:
        if case.inputs is not None:
            key = case.inputs.model_dump_json()
            counts[case.file][key] += 1
            found.setdefault((case.file, key), case.inputs)
    return [
        file.model_copy(update={"case_inputs": found[(file.path, counts[file.path].most_common(1)[0][0])]})
        if counts.get(file.path)
        else file.model_copy(update={"case_inputs": None})
        for file in files
    ]


def document(
    cases: list[CaseResult],
    files: list[FileResult],
    run: RunInfo,
    *,
    judge: JudgeStats | None = None,
    judge_usage: UsageTotals | None = None,
    prices: PriceSource | None = None,
    app_details: dict[str, dict[str, Any]] | None = None,
) -> ResultsDocument:
    """The results document from its cases and files: metric summaries and usage, and the verdict as far as it
    can be decided without the baseline (``verdict.decide`` again once compared)."""
    doc = ResultsDocument(
        status=RunStatus.ERROR,  # decided below
        totals=Totals(),
        cases=cases,
        files=with_case_inputs(files, cases),
        metrics=metric_summaries(cases),
        judge=judge,
        usage=suite_usage(cases, judge=judge_usage, prices=prices),
        run=run,
        app_details=app_details or {},
    )
    return verdict.decide(doc, None, verdict.Policy.recorded(run))

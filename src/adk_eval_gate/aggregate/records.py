"""aggregate: scored runs into results.json's records: each run with its metrics' scores, each case with its
metrics over its runs (the scores of each run and each turn), and the document with its metric summaries and
usage. The statuses, and each metric's score over a case's runs, are the verdict's (``verdict``): decided here
when a case's runs are done and again for the whole run.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
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
    CaseStatus,
    Confirmation,
    ErrorKind,
    FileResult,
    InvocationRecord,
    JudgeStats,
    MetricResult,
    MetricStatus,
    PassRule,
    PriceSource,
    ResultsDocument,
    RubricScoreRecord,
    RunInfo,
    RunMetric,
    RunRecord,
    RunStatus,
    SequentialRun,
    Totals,
    UsageTotals,
)
from adk_eval_gate.runners.capture import capture, expected_turns, expected_user
from adk_eval_gate.runners.execute import FinishedRun
from adk_eval_gate.verdict import ScoreRule, case_checks, run_error, run_metric_status, run_overruns, run_status


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
    metrics = run_metrics(finished)
    error, error_kind = _run_error(finished, metrics)
    record = RunRecord(
        run=finished.run,
        status=CaseStatus.ERROR,  # decided below, by the verdict's rule
        error=error,
        error_kind=error_kind,
        retries=list(inference.retries),
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


def _run_metric(scored: ScoredMetric) -> RunMetric:
    outcome, configured = scored.outcome, scored.configured
    own = outcome.evaluator_status is not None
    metric = RunMetric(
        name=configured.name,
        score=outcome.score,
        status=MetricStatus.NOT_EVALUATED,  # decided below, by the verdict's rule
        invocation_scores=[item.score for item in outcome.per_invocation],
        reason=outcome.reason,
        rubric_scores=_rubric_scores(scored),
        details=outcome.details,
        evaluator_status=outcome.evaluator_status,
        invocation_statuses=[item.evaluator_status for item in outcome.per_invocation] if own else [],
        computed_by=outcome.computed_by,
    )
    informational = configured.spec.informational
    metric.status = run_metric_status(metric, threshold=configured.threshold, informational=informational)
    return metric


def run_metrics(finished: FinishedRun) -> list[RunMetric]:
    """The run's metrics: their scores, and the custom metric functions' own statuses, each metric's status in
    the run decided by the verdict's rule."""
    return [_run_metric(scored) for scored in finished.scored]


def _run_error(finished: FinishedRun, metrics: list[RunMetric]) -> tuple[str | None, ErrorKind | None]:
    return run_error(
        inference_error=finished.inference.error,
        inference_infrastructure=finished.inference.infrastructure,
        outage=finished.infrastructure_failure,
        metrics=metrics,
    )


def run_outcome(finished: FinishedRun) -> CaseStatus:
    """The run's status as the progress shows it before its case is decided (budgets, re-runs and the baseline
    decide that): an error, failed (a metric failed or could not be evaluated), or passed."""
    metrics = run_metrics(finished)
    error, _ = _run_error(finished, metrics)
    if error is not None:
        return CaseStatus.ERROR
    return run_status(RunRecord(run=finished.run, status=CaseStatus.ERROR, metrics=metrics))


def _metric_result(configured: ConfiguredMetric, runs: list[RunRecord]) -> MetricResult:
    """The case's metric with each run's scores; its score over the runs and its status are the verdict's
    (``verdict.decide_case``)."""
    per_run = [next((m for m in run.metrics if m.name == configured.name), None) for run in runs if run.metrics]
    return MetricResult(
        name=configured.name,
        kind=configured.spec.kind,
        score=None,  # decided by the verdict, from the runs
        threshold=configured.threshold,
        status=MetricStatus.NOT_EVALUATED,  # decided by the verdict
        invocation_scores=[m.invocation_scores if m else [] for m in per_run],
        computed_by=next((m.computed_by for m in per_run if m and m.computed_by), None),
        uncalibrated=configured.uncalibrated,
        calibration_required=configured.calibration_required,
    )


@dataclass(frozen=True)
class CasePlace:
    """Where a case is: its file as shown, its eval set, its index in the file and its line (when known)."""

    display: str
    eval_set_id: str
    index: int
    line: int | None = None


@dataclass(frozen=True)
class CaseRules:
    """The rules and limits a case is decided by: ``pass_rule``; ``score_rule``, whose rules score its metrics
    over its runs (``verdict.aggregation.ScoreRule``); ``prices`` of its usage; its file's ``budgets``;
    ``sequential``, the settings of ``--sequential``."""

    pass_rule: PassRule = "mean"
    score_rule: ScoreRule = "adk_eval"
    prices: Prices | None = None
    budgets: Budgets | None = None
    sequential: SequentialRun | None = None


def case_result(
    *,
    place: CasePlace,
    case: EvalCase,
    metrics: list[ConfiguredMetric],
    finished: list[FinishedRun],
    rules: CaseRules | None = None,
    confirmation: Confirmation | None = None,
    apps: compact.AppTable | None = None,
) -> CaseResult:
    """The case's record over its runs, decided by the verdict's ``rules`` (the defaults when None)."""
    rules = rules or CaseRules()
    expected = expected_turns(case)
    runs = [
        _within_budget(run_record(case, item, rules.prices, expected=expected, apps=apps), rules.budgets)
        for item in sorted(finished, key=lambda f: f.run)
    ]
    record = CaseResult(
        id=case_id(place.display, case.eval_id),
        file=place.display,
        eval_set_id=place.eval_set_id,
        eval_id=case.eval_id,
        index=place.index,
        line=place.line,
        status=CaseStatus.ERROR,  # decided below
        metrics=[_metric_result(configured, runs) for configured in metrics],
        runs=runs,
        confirmation=confirmation,
        usage=case_usage([run.usage for run in runs]) if runs else None,
        budgets=case_checks(runs, rules.budgets, pass_rule=rules.pass_rule),
        expected=list(expected),
    )
    ranges = {c.name: c.spec.value_range for c in metrics if c.spec.value_range is not None}
    return verdict.decide_case(
        record, pass_rule=rules.pass_rule, rule=rules.score_rule, sequential=rules.sequential, ranges=ranges
    )


def _within_budget(run: RunRecord, budgets: Budgets | None) -> RunRecord:
    """The run with the case budgets its turns exceeded (the verdict fails such a run)."""
    overruns = run_overruns(run, budgets)
    return run.model_copy(update={"over_budget": overruns}) if overruns else run


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
    """The results document from its cases and files with its usage, and the verdict (with the metric summaries)
    as far as it can be decided without the baseline (``verdict.decide`` again once compared)."""
    doc = ResultsDocument(
        status=RunStatus.ERROR,  # decided below
        totals=Totals(),
        cases=cases,
        files=with_case_inputs(files, cases),
        metrics=[],  # the verdict's, below
        judge=judge,
        usage=suite_usage(cases, judge=judge_usage, prices=prices),
        run=run,
        app_details=app_details or {},
    )
    return verdict.decide(doc, None, verdict.Policy.recorded(run))

"""The verdict, decided once: each case's status from its rules, then the run's status, its totals and the exit
code from the cases, the comparison and the run's budgets. Every output renders what this decided.

``decide_case`` runs when a case's runs are scored (and again on saved results, ``redecide``): it decides each
run's metrics, computes each metric's score over the runs again from the runs' scores and decides it
(``aggregation``: ADK's rules per path), then the case; ``decide`` runs on the whole document, before and after
the comparison with the baseline, always from the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

import pydantic

from adk_eval_gate.model.results import (
    BudgetCheck,
    BudgetStatus,
    CaseResult,
    CaseStatus,
    Comparison,
    Effect,
    ErrorKind,
    FileResult,
    Finding,
    MetricResult,
    MetricStatus,
    MetricSummary,
    PassRule,
    ResultsDocument,
    RunRecord,
    RunStatus,
    SequentialRun,
    Totals,
    run_figures,
)
from adk_eval_gate.support import stats
from adk_eval_gate.support.words import did_you_mean
from adk_eval_gate.verdict import rules, sequential_case, sequential_suite
from adk_eval_gate.verdict.aggregation import ScoreRule, decide_metric, run_metric_status
from adk_eval_gate.verdict.budgets import run_checks
from adk_eval_gate.verdict.policy import Policy
from adk_eval_gate.verdict.regressions import counted
from adk_eval_gate.verdict.stability import stability, suite_stability

ModelT = TypeVar("ModelT", bound=pydantic.BaseModel)


_SEVERITY = (
    (Effect.ERROR, CaseStatus.ERROR),
    (Effect.FAILED, CaseStatus.FAILED),
    (Effect.NOT_EVALUATED, CaseStatus.NOT_EVALUATED),
)


def _worst(findings: Iterable[Finding]) -> CaseStatus:
    """The most severe effect of the findings: error, then failed, then not evaluated; else passed."""
    effects = {finding.effect for finding in findings}
    return next((status for effect, status in _SEVERITY if effect in effects), CaseStatus.PASSED)


def _informational_by_kind(metric: MetricResult) -> bool:
    """A metric that never passes or fails by nature (the efficiency metrics), a judge metric that has not earned
    its gate against the human labels, or one without a threshold that its record says is informational
    (results.json of an earlier version)."""
    if metric.kind == "informational" or metric.uncalibrated is not None:
        return True
    return metric.threshold is None and metric.status == MetricStatus.INFORMATIONAL


def _with(model: ModelT, **fields: object) -> ModelT:
    """``model`` with ``fields``: itself when it has them already (most records decided again are unchanged)."""
    if all(getattr(model, name) == value for name, value in fields.items()):
        return model
    return model.model_copy(update=fields)


def _decided_run(run: RunRecord, metrics: Sequence[MetricResult]) -> RunRecord:
    """The run with each of its metrics' status decided as ``adk eval`` decides one run, then its own status. Only
    a custom metric's function returns statuses: those a record gives any other metric are left out."""
    by_name = {metric.name: metric for metric in metrics}
    decided = []
    for recorded in run.metrics:
        case_metric = by_name.get(recorded.name)
        own = case_metric is not None and case_metric.kind == "custom"
        metric = recorded if own else _with(recorded, evaluator_status=None, invocation_statuses=[])
        status = run_metric_status(
            metric,
            threshold=case_metric.threshold if case_metric else None,
            informational=case_metric is not None and _informational_by_kind(case_metric),
        )
        decided.append(_with(metric, status=status))
    run = _with(run, metrics=decided)
    return _with(run, status=rules.run_status(run))


def _decided_metric(metric: MetricResult, runs: Sequence[RunRecord], *, rule: ScoreRule) -> MetricResult:
    """The case's metric scored and decided again from its ``runs`` (decided by ``_decided_run``): its score, status
    and direction (``decide_metric``), its run scores, their spread and how many runs it passed, and why it was
    not evaluated. What the record said of these is not trusted."""
    per_run = [next((m for m in run.metrics if m.name == metric.name), None) for run in runs if run.metrics]
    decision = decide_metric(
        per_run, threshold=metric.threshold, informational=_informational_by_kind(metric), rule=rule
    )
    run_scores, passed_runs = run_figures(metric.name, runs)
    present = [score for score in run_scores if score is not None]
    reason = None
    if decision.status == MetricStatus.NOT_EVALUATED:
        reasons = [m.reason for m in per_run if m and m.status == MetricStatus.NOT_EVALUATED and m.reason]
        reason = reasons[0] if reasons else metric.reason or "no run could be scored"
    return _with(
        metric,
        score=decision.score,
        status=decision.status,
        lower_is_better=decision.lower_is_better,
        run_scores=run_scores,
        passed_runs=passed_runs,
        stdev=stats.spread(present) if len(present) > 1 else None,
        reason=reason,
    )


def decide_case(
    case: CaseResult,
    *,
    pass_rule: PassRule,
    rule: ScoreRule = "adk_eval",
    sequential: SequentialRun | None = None,
    ranges: Mapping[str, Sequence[float]] | None = None,
) -> CaseResult:
    """The case with its runs', its metrics' and its own status decided by the rules (``rule``: whose rules score
    the metrics over the runs, ``aggregation.ScoreRule``), and the findings why. With ``sequential`` (the settings
    of ``--sequential``), its runs' sequential decision replaces today's verdict on them (``ranges``: the ranges of
    metrics not on 0 to 1; None: those the case recorded)."""
    runs = [_decided_run(run, case.metrics) for run in case.runs]
    metrics = [_decided_metric(metric, runs, rule=rule) for metric in case.metrics]
    case = case.model_copy(update={"runs": runs, "metrics": metrics})
    errors = rules.errors(case)
    findings = errors or [*rules.thresholds(case, pass_rule=pass_rule), *rules.case_budgets(case)]
    findings += rules.uncalibrated_judges(case)
    if sequential is not None and not errors and case.carried is None:
        case, findings = _sequential(case, findings, pass_rule=pass_rule, run=sequential, ranges=ranges)
    return _concluded(case, findings, errors=bool(errors))


def _concluded(case: CaseResult, findings: list[Finding], *, errors: bool) -> CaseResult:
    """The case's status from its findings, with what follows from it and from its runs."""
    runs = case.runs
    status = _worst(findings)
    confirmation = case.confirmation
    if confirmation is not None:
        confirmation = confirmation.model_copy(update={"confirmed": rules.confirmed(case, status)})
    kind, pass_hat_k, pass_at_k = stability(runs)
    decided = case.model_copy(
        update={
            "status": status,
            "error": _first_error(case) if errors else None,
            "error_kind": _error_kind(case) if errors else None,
            "confirmation": confirmation,
            "runs_passed": sum(1 for run in runs if run.status == CaseStatus.PASSED) if runs else None,
            "stability": kind,
            "pass_hat_k": pass_hat_k,
            "pass_at_k": pass_at_k,
        }
    )
    return decided.model_copy(update={"findings": [*findings, *rules.confirmation(decided)]})


def _sequential(
    case: CaseResult,
    findings: list[Finding],
    *,
    pass_rule: PassRule,
    run: SequentialRun,
    ranges: Mapping[str, Sequence[float]] | None,
) -> tuple[CaseResult, list[Finding]]:
    """The case with its sequential decision, and its findings under it; a case with nothing to decide on (no
    thresholded metric under the mean rule) keeps today's."""
    ranges = ranges if ranges is not None else (case.sequential.ranges if case.sequential else {})
    try:
        evidence = sequential_case.case_evidence(case, pass_rule=pass_rule, run=run, ranges=ranges)
    except ValueError:  # nothing to decide on, or ranges that are not ranges: what a record claimed is dropped
        return case.model_copy(update={"sequential": None}), findings
    recorded = sequential_case.record(evidence, ranges=ranges, reopened=sequential_case.reopened_at(case))
    decided = sequential_case.applied(findings, recorded)
    return case.model_copy(update={"sequential": recorded}), [*decided, sequential_case.finding(recorded, run)]


def _proven_across_suite(cases: list[CaseResult], run: SequentialRun | None) -> list[CaseResult]:
    """Under ``--undecided neutral``, the cases e-BH proves failing across the suite (``sequential_suite``) failed;
    a case already failed by its decision is left as it is."""
    proofs = sequential_suite.proven_across_suite(cases, run) if run is not None else {}
    decided = []
    for case in cases:
        proof = proofs.get(case.id)
        if proof is None or run is None or case.sequential is None or case.sequential.verdict == "fail":
            decided.append(case)
            continue
        sequential, findings = sequential_suite.proven_failing(
            case.sequential, case.findings, proof=proof, confidence=run.confidence
        )
        decided.append(_concluded(case.model_copy(update={"sequential": sequential}), findings, errors=False))
    return decided


def _first_error(case: CaseResult) -> str:
    return next((run.error for run in case.runs if run.error is not None), None) or case.error or "the case did not run"


def _error_kind(case: CaseResult) -> ErrorKind:
    failed = [run for run in case.runs if run.error is not None]
    return "infrastructure" if failed and all(run.error_kind == "infrastructure" for run in failed) else "agent"


def quarantine(cases: list[CaseResult], selectors: list[str]) -> list[CaseResult]:
    """The cases, those matched by a ``--quarantine`` selector marked quarantined."""
    if not selectors:
        return cases
    return [
        case.model_copy(update={"quarantined": True}) if rules.quarantined(case, selectors) else case for case in cases
    ]


def unmatched_quarantine(selectors: list[str], *, cases: list[tuple[str, str]], broken: list[str]) -> list[str]:
    """What to say of each ``--quarantine`` selector that matches no case of the eval files (``cases``: each file's
    every case as (file, eval_id), whatever the run selects: a shard runs only some), with the selector it likely
    misspells. A selector that could match a file which could not be loaded (``broken``) says nothing: its cases
    are unknown."""
    said = []
    for selector in dict.fromkeys(selectors):
        if any(rules.selects(selector, file, eval_id) for file, eval_id in cases) or any(
            rules.selects(selector, path, None) for path in broken
        ):
            continue
        known = [f"{file}:{eval_id}" for file, eval_id in cases] if ":" in selector else [file for file, _ in cases]
        close = did_you_mean(selector.strip(), known)
        said.append(
            f"{selector!r} matches no case, so it quarantines nothing"
            + (f"; did you mean {close!r}?" if close else " (FILE is a path from the repository root, CASE an eval_id)")
        )
    return said


def totals(
    cases: list[CaseResult],
    files: list[FileResult],
    *,
    checks: list[BudgetCheck] | None = None,
    sequential: SequentialRun | None = None,
) -> Totals:
    """Counts by status; quarantined cases are counted apart, so they never fail the gate. With ``sequential``,
    also the runs spent, what a fixed ``--num-runs`` would have spent, and the decisions."""
    gated = [case for case in cases if not case.quarantined]

    def count(status: str) -> int:
        return sum(1 for case in gated if case.status == status)

    return Totals(
        cases=len(cases),
        carried=sum(1 for case in cases if case.carried is not None),
        quarantined=len(cases) - len(gated),
        quarantined_not_passing=sum(1 for case in cases if case.quarantined and case.status != CaseStatus.PASSED),
        passed=count("passed"),
        failed=count("failed"),
        error=count("error"),
        not_evaluated=count("not_evaluated"),
        files=len(files),
        file_errors=sum(1 for file in files if file.error),
        infrastructure_errors=sum(
            1 for c in gated if c.status == CaseStatus.ERROR and c.error_kind == "infrastructure"
        ),
        retried_runs=sum(1 for c in cases if c.carried is None for run in c.runs if run.retries),
        confirmed_failures=sum(1 for c in gated if c.confirmation and c.confirmation.confirmed),
        flaky=sum(1 for c in gated if c.stability == "flaky"),
        failing_on_base=sum(1 for c in gated if c.status != CaseStatus.PASSED and c.failing_on_base),
        budgets_missed=sum(1 for check in checks or [] if check.status == BudgetStatus.FAILED),
        budgets_unchecked=sum(1 for check in checks or [] if check.status == BudgetStatus.UNCHECKED),
        **(_sequential_totals(cases, sequential) if sequential else {}),
    )


def _sequential_totals(cases: list[CaseResult], run: SequentialRun) -> dict[str, int]:
    """The runs the cases that ran spent and a fixed ``--num-runs`` would have, and how their verdicts came."""
    ran = [case for case in cases if case.carried is None]
    decisions = [case.sequential.decision for case in ran if case.sequential is not None]
    return {
        "runs": sum(len(case.runs) - _spent_before(case) for case in ran),
        "runs_fixed": len(ran) * run.max_runs,
        "proven": sum(1 for decision in decisions if decision in ("proven-pass", "proven-fail")),
        "curtailed": decisions.count("curtailed"),
        "undecided": decisions.count("undecided"),
    }


def metric_summaries(cases: list[CaseResult]) -> list[MetricSummary]:
    """Per metric over the cases: its mean, thresholds and how many cases it passed, failed or could not evaluate
    (the informational metrics last)."""
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
                lower_is_better=any(m.lower_is_better for m in results),
                computed_by=next((m.computed_by for m in results if m.computed_by), None),
            )
        )
    informational = [s for s in summaries if s.kind == "informational"]
    return [s for s in summaries if s.kind != "informational"] + informational


def _against_base(cases: list[CaseResult], comparison: Comparison | None, policy: Policy) -> list[CaseResult]:
    """Each case marked when it did not pass on the base branch either, and when it fails the run."""
    before = set(comparison.failing_before) if comparison else set()
    marked = []
    for case in cases:
        marks = {
            "failing_on_base": case.id in before,
            "fails_gate": rules.fails_gate(case, allow_not_evaluated=policy.allow_not_evaluated),
        }
        changed = any(getattr(case, name) != value for name, value in marks.items())
        marked.append(case.model_copy(update=marks) if changed else case)
    return marked


def decide(doc: ResultsDocument, comparison: Comparison | None, policy: Policy) -> ResultsDocument:
    """The run's findings, status and totals from its cases, the comparison and its budgets, under ``policy``."""
    comparison = counted(comparison, doc, strict=policy.strict_comparison) if comparison else None
    cases = _against_base(_proven_across_suite(doc.cases, policy.sequential), comparison, policy)
    checks = run_checks(doc, comparison, policy.limits)
    doc = doc.model_copy(update={"cases": cases, "comparison": comparison, "budgets": checks})
    findings = [
        *rules.internal_error(doc),
        *rules.interrupted(doc),
        *rules.file_errors(doc),
        *rules.nothing_gated(doc),
        *rules.cases(doc, allow_not_evaluated=policy.allow_not_evaluated),
        *rules.run_budgets(checks),
        *rules.regressions(comparison, fail_on_regression=policy.fail_on_regression),
        *rules.judge_regressions(comparison, fail_on_regression=policy.fail_on_regression),
    ]
    worst = _worst(findings)
    status = {CaseStatus.ERROR: RunStatus.ERROR, CaseStatus.PASSED: RunStatus.PASSED}.get(worst, RunStatus.FAILED)
    return doc.model_copy(
        update={
            "status": status,
            "findings": findings,
            "totals": totals(cases, doc.files, checks=checks, sequential=policy.sequential),
            "metrics": metric_summaries(cases),
            "stability": suite_stability(
                [case for case in cases if not case.quarantined],
                k=policy.sequential.min_runs if policy.sequential else None,
            ),
            "run": policy.record(doc.run),
        }
    )


def exit_code(doc: ResultsDocument) -> int:
    """0 passed, 1 the gate failed, 2 an eval file or config could not be used."""
    if any(finding.rule == "file_error" for finding in doc.findings) or doc.totals.file_errors:
        return 2
    return 0 if doc.status == RunStatus.PASSED else 1


def _spent_before(case: CaseResult) -> int:
    """The case's runs that earlier attempts of the job spent (a re-run continued their evidence)."""
    points = case.sequential.reopened_at if case.sequential else []
    return points[-1] if points else 0


def redecide(doc: ResultsDocument) -> tuple[ResultsDocument, list[str]]:
    """Saved results (``report``), which may have been written by anyone: every case and the run decided again
    from their evidence with the recorded policy, and what the file itself claimed differently."""
    policy = Policy.recorded(doc.run)
    cases = [decide_case(case, pass_rule=policy.pass_rule, sequential=policy.sequential) for case in doc.cases]
    decided = decide(doc.model_copy(update={"cases": cases}), doc.comparison, policy)
    claims = []
    if decided.status != doc.status:
        claims.append(f"status '{doc.status}', its cases say '{decided.status}'")
    for name in ("cases", "passed", "failed", "error", "not_evaluated", "quarantined"):
        claimed, counted_now = getattr(doc.totals, name), getattr(decided.totals, name)
        if claimed != counted_now:
            claims.append(f"totals.{name} {claimed}, its cases say {counted_now}")
    changed = sum(1 for before, after in zip(doc.cases, decided.cases, strict=True) if before.status != after.status)
    if changed:
        claims.append(f"{changed} case statuses differ from their runs and metrics")
    return decided, claims

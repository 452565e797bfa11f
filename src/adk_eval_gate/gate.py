"""gate: the verdict. Compare this run with the baseline, decide the run's status with the policy (thresholds,
``--allow-not-evaluated``, ``--fail-on-regression``), and turn it into the exit code.

The comparison itself is pure (``compare``); finding the baseline is I/O (``github.baseline``); this module joins
them and says what it found on the console. Publishing never decides anything here.
"""

from __future__ import annotations

from adk_eval_gate import aggregate
from adk_eval_gate.budgets import run_checks
from adk_eval_gate.compare import compare, counted
from adk_eval_gate.console import Console
from adk_eval_gate.github import baseline as baselines
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.noise import MIN_HISTORY
from adk_eval_gate.report.verdict import change_counts, comparison_words
from adk_eval_gate.results import Comparison, ResultsDocument, RunStatus
from adk_eval_gate.results_usage import BudgetLimits
from adk_eval_gate.settings import Settings


def exit_code(doc: ResultsDocument) -> int:
    """0 passed, 1 the gate failed, 2 an eval file or config could not be used."""
    if doc.totals.file_errors:
        return 2
    return 0 if doc.status == "passed" else 1


def decided(
    doc: ResultsDocument,
    comparison: Comparison | None,
    *,
    fail_on_regression: bool,
    tolerance: float,
    note: str | None = None,
    strict_comparison: bool = False,
    limits: BudgetLimits | None = None,
) -> ResultsDocument:
    """The document with its comparison, and its status decided again with ``--fail-on-regression`` and the run's
    budgets (``limits``)."""
    comparison = counted(comparison, doc, strict=strict_comparison) if comparison else None
    regressions = comparison.regressions if comparison else 0
    checks = run_checks(doc, comparison, limits)
    status: RunStatus = (
        "error"
        if doc.error
        else aggregate.overall_status(
            doc.totals,
            allow_not_evaluated=doc.run.allow_not_evaluated,
            significant_regressions=regressions,
            fail_on_regression=fail_on_regression,
            interrupted=doc.run.interrupted,
            budgets=checks,
        )
    )
    run = doc.run.model_copy(
        update={
            "regression_tolerance": tolerance,
            "fail_on_regression": fail_on_regression,
            "strict_comparison": strict_comparison,
            "baseline_note": None if comparison else (note or None),
            "budget_limits": limits,
        }
    )
    return doc.model_copy(update={"comparison": comparison, "status": status, "run": run, "budgets": checks})


def budget_limits(settings: Settings) -> BudgetLimits | None:
    limits = BudgetLimits(
        max_cost=settings.max_cost,
        max_cost_increase=settings.max_cost_increase,
        max_latency_increase=settings.max_latency_increase,
    )
    return limits if limits.model_dump(exclude_none=True) else None


def find_baseline(
    settings: Settings, client: GitHubClient | None, *, console: Console | None = None
) -> baselines.Baseline | baselines.NoBaseline:
    """``--baseline``, or in a pull request the base branch's artifact with up to ``--history`` earlier runs."""
    return baselines.resolve(
        baseline_file=settings.baseline,
        client=client if settings.github.base_branch else None,
        context=settings.github,
        artifact_name=settings.artifact_name,
        history=settings.history,
        cache_dir=settings.cache_dir,
        warn=console.warning if console else None,
    )


def comparison_with(
    doc: ResultsDocument, found: baselines.Baseline, *, settings: Settings, strict: bool | None = None
) -> Comparison:
    """This run against the baseline, with the base branch's history as the noise model when there is one."""
    return compare(
        doc,
        found.doc,
        baseline=found.info,
        tolerance=settings.regression_tolerance,
        history=[(run.info, run.doc) for run in found.history] if settings.history else [],
        history_requested=settings.history,
        strict=settings.strict_comparison if strict is None else strict,
    )


def compared(
    doc: ResultsDocument,
    *,
    settings: Settings,
    client: GitHubClient | None,
    console: Console,
    found: baselines.Baseline | baselines.NoBaseline | None = None,
) -> ResultsDocument:
    """Compared with the baseline (``found``, else looked up now) and decided."""
    found = found if found is not None else find_baseline(settings, client, console=console)
    if isinstance(found, baselines.NoBaseline):
        if found.warning:
            console.warning(found.warning)
        elif found.note:
            console.line(f"No comparison: {found.note}")
    comparison = None if isinstance(found, baselines.NoBaseline) else comparison_with(doc, found, settings=settings)
    result = decided(
        doc,
        comparison,
        fail_on_regression=settings.fail_on_regression,
        tolerance=settings.regression_tolerance,
        note=found.note if isinstance(found, baselines.NoBaseline) else None,
        strict_comparison=settings.strict_comparison,
        limits=budget_limits(settings),
    )
    if comparison is not None and isinstance(found, baselines.Baseline):
        console.line(f"Compared with {found.info.description}: {comparison_sentence(result)}")
        for difference in comparison.differences:
            console.line(f"  not like-for-like: {difference.message}")
    return result


def comparison_sentence(doc: ResultsDocument) -> str:
    """The comment's comparison counts, for the log."""
    counts = change_counts(doc)
    history = doc.comparison.history if doc.comparison else None
    against = (
        f" (noise from the last {len(history.runs)} base runs)" if history and len(history.runs) >= MIN_HISTORY else ""
    )
    return (" · ".join(comparison_words(counts)) if counts else "") + against


def recompared(
    doc: ResultsDocument, *, settings: Settings, client: GitHubClient | None, console: Console
) -> ResultsDocument:
    """Saved results (``report``): compared with ``--baseline``, or in a pull request with the base branch's
    artifact when they have no comparison yet (merged shards); else the saved comparison, decided again."""
    fail_on_regression = settings.fail_on_regression or doc.run.fail_on_regression
    strict = settings.strict_comparison or doc.run.strict_comparison
    if settings.baseline is not None or (doc.comparison is None and settings.github.base_branch):
        saved = doc.run.budget_limits or BudgetLimits()
        limits = {name: getattr(settings, name) or getattr(saved, name) for name in BudgetLimits.model_fields}
        effective = settings.model_copy(
            update={"fail_on_regression": fail_on_regression, "strict_comparison": strict, **limits}
        )
        return compared(doc, settings=effective, client=client, console=console)
    return decided(
        doc,
        doc.comparison,
        fail_on_regression=fail_on_regression,
        tolerance=doc.run.regression_tolerance or 0.0,
        note=doc.run.baseline_note,
        strict_comparison=strict,
        limits=budget_limits(settings) or doc.run.budget_limits,
    )

"""gate: the verdict. Compare this run with the baseline, decide the run's status with the policy (thresholds,
``--allow-not-evaluated``, ``--fail-on-regression``), and turn it into the exit code.

The comparison itself is pure (``compare``); finding the baseline is I/O (``github.baseline``); this module joins
them and says what it found on the console. Publishing never decides anything here.
"""

from __future__ import annotations

from adk_eval_gate import aggregate
from adk_eval_gate.compare import compare
from adk_eval_gate.console import Console
from adk_eval_gate.github import baseline as baselines
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.report.sections import plural
from adk_eval_gate.results import Comparison, ResultsDocument, RunStatus
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
) -> ResultsDocument:
    """The document with its comparison, and its status decided again with ``--fail-on-regression``."""
    regressions = comparison.regressions if comparison else 0
    status: RunStatus = (
        "error"
        if doc.error
        else aggregate.overall_status(
            doc.totals,
            allow_not_evaluated=doc.run.allow_not_evaluated,
            significant_regressions=regressions,
            fail_on_regression=fail_on_regression,
            interrupted=doc.run.interrupted,
        )
    )
    run = doc.run.model_copy(
        update={
            "regression_tolerance": tolerance,
            "fail_on_regression": fail_on_regression,
            "baseline_note": None if comparison else (note or None),
        }
    )
    return doc.model_copy(update={"comparison": comparison, "status": status, "run": run})


def compared(
    doc: ResultsDocument, *, settings: Settings, client: GitHubClient | None, console: Console
) -> ResultsDocument:
    """Compared with the baseline (``--baseline``, or in a pull request the base branch's artifact) and decided."""
    found = baselines.resolve(
        baseline_file=settings.baseline,
        client=client if settings.github.base_branch else None,
        context=settings.github,
        artifact_name=settings.artifact_name,
    )
    tolerance = settings.regression_tolerance
    if isinstance(found, baselines.NoBaseline):
        if found.warning:
            console.warning(found.warning)
        elif found.note:
            console.line(f"No comparison: {found.note}")
        return decided(doc, None, fail_on_regression=settings.fail_on_regression, tolerance=tolerance, note=found.note)
    comparison = compare(doc, found.doc, baseline=found.info, tolerance=tolerance)
    noisy = f" ({comparison.noisy_regressions} more within noise)" if comparison.noisy_regressions else ""
    console.line(
        f"Compared with {found.info.description}: {plural(comparison.regressions, 'regression')}{noisy}, "
        f"{plural(comparison.improvements, 'improvement')}, {comparison.new} new and {comparison.removed} removed cases"
    )
    return decided(doc, comparison, fail_on_regression=settings.fail_on_regression, tolerance=tolerance)


def recompared(
    doc: ResultsDocument, *, settings: Settings, client: GitHubClient | None, console: Console
) -> ResultsDocument:
    """Saved results (``report``): compared with ``--baseline``, or in a pull request with the base branch's
    artifact when they have no comparison yet (merged shards); else the saved comparison, decided again."""
    fail_on_regression = settings.fail_on_regression or doc.run.fail_on_regression
    if settings.baseline is not None or (doc.comparison is None and settings.github.base_branch):
        effective = settings.model_copy(update={"fail_on_regression": fail_on_regression})
        return compared(doc, settings=effective, client=client, console=console)
    return decided(
        doc,
        doc.comparison,
        fail_on_regression=fail_on_regression,
        tolerance=doc.run.regression_tolerance or 0.0,
        note=doc.run.baseline_note,
    )

"""gate: find the baseline, compare this run with it, and have the verdict decided (``verdict.decide``) with the
policy of the options; say on the console what was compared.

The comparison itself is pure (``compare``); finding the baseline is I/O (``github.baseline``); the rules are the
verdict's. This module joins them. Publishing never decides anything.
"""

from __future__ import annotations

import dataclasses

from adk_eval_gate.compare.changes import comparison_with
from adk_eval_gate.compare.found_baseline import Baseline, NoBaseline
from adk_eval_gate.compare.noise import MIN_HISTORY
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.github import baseline as baselines
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.model.results import BudgetLimits, Comparison, ResultsDocument
from adk_eval_gate.report.headline import change_counts, comparison_words
from adk_eval_gate.support.console import Console
from adk_eval_gate.verdict import Policy, decide, redecide


def decided(
    doc: ResultsDocument, comparison: Comparison | None, policy: Policy, *, note: str | None = None
) -> ResultsDocument:
    """The document decided with its comparison (``note``: why there is none)."""
    decided_doc = decide(doc, comparison, policy)
    return decided_doc.model_copy(
        update={"run": decided_doc.run.model_copy(update={"baseline_note": None if comparison else (note or None)})}
    )


def find_baseline(
    settings: Settings, client: GitHubClient | None, *, console: Console | None = None
) -> Baseline | NoBaseline:
    """``--baseline``, or in a pull request the base branch's artifact with up to ``--history`` earlier runs."""
    return baselines.resolve(
        baseline_file=settings.baseline,
        client=client if settings.github.base_branch else None,
        context=settings.github,
        artifact_name=settings.artifact_name,
        history=settings.history,
        cache_dir=settings.cache_dir,
        warn=console.warning if console else None,
        note=console.line if console else None,
    )


def compared(
    doc: ResultsDocument,
    *,
    settings: Settings,
    client: GitHubClient | None,
    console: Console,
    found: Baseline | NoBaseline | None = None,
    rules: Policy | None = None,
) -> ResultsDocument:
    """Compared with the baseline (``found``, else looked up now) and decided (``rules``: the policy, else the
    options')."""
    rules = rules or Policy.of(settings)
    found = found if found is not None else find_baseline(settings, client, console=console)
    if isinstance(found, NoBaseline):
        if found.warning:
            console.warning(found.warning)
        elif found.note:
            console.line(f"No comparison: {found.note}")
    comparison = None if isinstance(found, NoBaseline) else comparison_with(doc, found, settings=settings, rules=rules)
    result = decided(doc, comparison, rules, note=found.note if isinstance(found, NoBaseline) else None)
    if comparison is not None and isinstance(found, Baseline):
        if found.history_note and settings.history:
            console.line(found.history_note[:1].upper() + found.history_note[1:])
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
    """Saved results (``report``): decided again from their cases (the file may say otherwise: it is untrusted),
    with the recorded policy and the options given now; compared with ``--baseline``, or in a pull request with
    the base branch's artifact when they have no comparison yet (merged shards); else on the saved comparison."""
    doc, claims = redecide(doc)
    for claim in claims:
        console.warning(f"the results file claims {claim}: the reports use what its cases say")
    recorded = Policy.recorded(doc.run)
    given = Policy.of(settings)
    saved, limits = recorded.limits or BudgetLimits(), given.limits or BudgetLimits()
    merged_limits = BudgetLimits(
        **{name: getattr(limits, name) or getattr(saved, name) for name in BudgetLimits.model_fields}
    )
    effective = dataclasses.replace(
        recorded,
        fail_on_regression=recorded.fail_on_regression or given.fail_on_regression,
        strict_comparison=recorded.strict_comparison or given.strict_comparison,
        limits=merged_limits if merged_limits.model_dump(exclude_none=True) else None,
    )
    if settings.baseline is not None or (doc.comparison is None and settings.github.base_branch):
        again = dataclasses.replace(effective, tolerance=given.tolerance)
        return compared(doc, settings=settings, client=client, console=console, rules=again)
    return decided(doc, doc.comparison, effective, note=doc.run.baseline_note)

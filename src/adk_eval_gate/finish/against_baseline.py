"""This run against the baseline, decided: the baseline found (the command's ``FindBaseline``), the run compared with it
(``compare``), and the verdict decided (``verdict.decide``) with the policy of the options, or saved results decided
again (``report``); what was compared said on the console.

The comparison itself is pure; finding the baseline is I/O; the rules are the verdict's. This module joins them.
Publishing never decides anything.
"""

from __future__ import annotations

import dataclasses

from adk_eval_gate.compare.changes import comparison_with
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.model.results import Comparison, ResultsDocument
from adk_eval_gate.report.console_lines import comparison_sentence
from adk_eval_gate.selection.found_baseline import Baseline, FindBaseline, NoBaseline
from adk_eval_gate.support.console import Console
from adk_eval_gate.verdict import Policy, decide, redecide


def decide_with_comparison(
    doc: ResultsDocument, comparison: Comparison | None, policy: Policy, *, note: str | None = None
) -> ResultsDocument:
    """The document decided with its comparison (``note``: why there is none)."""
    decided = decide(doc, comparison, policy)
    return decided.model_copy(
        update={"run": decided.run.model_copy(update={"baseline_note": None if comparison else (note or None)})}
    )


def compare_and_decide(
    doc: ResultsDocument,
    *,
    settings: Settings,
    console: Console,
    find_baseline: FindBaseline,
    rules: Policy | None = None,
) -> ResultsDocument:
    """Compared with the baseline ``find_baseline`` gives and decided (``rules``: the policy, else the options')."""
    rules = rules or Policy.of(settings)
    found = find_baseline()
    if isinstance(found, NoBaseline):
        if found.warning:
            console.warning(found.warning)
        elif found.note:
            console.line(f"No comparison: {found.note}")
    comparison = None if isinstance(found, NoBaseline) else comparison_with(doc, found, settings=settings, rules=rules)
    result = decide_with_comparison(doc, comparison, rules, note=found.note if isinstance(found, NoBaseline) else None)
    if comparison is not None and isinstance(found, Baseline):
        if found.history_note and settings.history:
            console.line(found.history_note[:1].upper() + found.history_note[1:])
        console.line(f"Compared with {found.info.description}: {comparison_sentence(result)}")
        for difference in comparison.differences:
            console.line(f"  not like-for-like: {difference.message}")
    return result


def decide_saved(
    doc: ResultsDocument, *, settings: Settings, console: Console, find_baseline: FindBaseline
) -> ResultsDocument:
    """Saved results (``report``): decided again from their cases (the file may say otherwise: it is untrusted),
    with the recorded policy and the options given now; compared with ``--baseline``, or in a pull request with
    the base branch's artifact when they have no comparison yet (merged shards); else on the saved comparison."""
    doc, claims = redecide(doc)
    for claim in claims:
        console.warning(f"the results file claims {claim}: the reports use what its cases say")
    given = Policy.of(settings)
    effective = Policy.recorded(doc.run).with_options(given)
    if settings.baseline is not None or (doc.comparison is None and settings.github.base_branch):
        again = dataclasses.replace(effective, tolerance=given.tolerance)
        return compare_and_decide(doc, settings=settings, console=console, find_baseline=find_baseline, rules=again)
    return decide_with_comparison(doc, doc.comparison, effective, note=doc.run.baseline_note)

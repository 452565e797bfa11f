"""``--only-affected`` in the comment, the summary and the log: how many cases ran (the verdict's ``Totals``), why
every case ran when it did (``run.affected``), and the cases carried from the base run, each with the run its
result came from. Pure; every string from a results file goes through ``markdown``."""

from __future__ import annotations

import re

from adk_eval_gate.model.results import Carried, ResultsDocument
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report.sections import ICON, RUN_URL, within
from adk_eval_gate.support.words import plural

_SHA = re.compile(r"[0-9a-fA-F]{7,64}")


def origin_words(carried: Carried, *, markdown: bool = True) -> str:
    """Where a carried result came from: ``the baseline file base.json @ abc1234``, linked to its run if known."""
    sha = carried.sha[:7] if carried.sha and _SHA.fullmatch(carried.sha) else None
    if not markdown:
        return carried.description + (f" @ {sha}" if sha else "")
    where = md.inline(carried.description or "the base run", limit=200) + (f" @ {md.code(sha)}" if sha else "")
    return f"[{where}]({carried.run_url})" if carried.run_url and RUN_URL.match(carried.run_url) else where


def _changed(doc: ResultsDocument) -> str:
    return "this pull request changed" if doc.run.pull_request else "that changed since the base run"


def affected_line(doc: ResultsDocument, *, markdown: bool = True) -> str:
    """``**12 of 40 cases ran:** the rest depend on nothing this pull request changed ...``, or why every case ran;
    empty without ``--only-affected``."""
    info = doc.run.affected
    if info is None:
        return ""

    def bold(words: str) -> str:
        return f"**{words}:**" if markdown else f"{words}:"

    if info.everything:
        reason = md.inline(info.everything, limit=400) if markdown else info.everything
        return f"{bold('Every case ran')} only-affected could not tell which cases the changes touch: {reason}."
    totals = doc.totals
    ran = f"{totals.cases - totals.carried} of {plural(totals.cases, 'case')} ran"
    if not totals.carried:
        return f"{bold(ran)} each depends on something {_changed(doc)}."
    origin = next(case.carried for case in doc.cases if case.carried is not None)
    assert origin is not None
    return (
        f"{bold(ran)} the rest depend on nothing {_changed(doc)}; their results are those of "
        f"{origin_words(origin, markdown=markdown)}."
    )


def carried_cases(doc: ResultsDocument, *, limit: int | None, budget: int | None = None) -> str:
    """The cases carried from the base run, collapsed: each with its status, and its run when it came from an
    older one (it was carried there too)."""
    carried = [case for case in doc.cases if case.carried is not None]
    if not carried:
        return ""
    first = carried[0].carried
    shown = carried if limit is None else carried[:limit]
    items = []
    for case in shown:
        assert case.carried is not None
        older = f" (from {origin_words(case.carried)})" if case.carried != first else ""
        items.append(
            f"- {ICON.get(case.status, '❌')} {md.breakable(case.label, limit=120)} "
            f"({md.breakable(case.file, limit=160)}){older}"
        )
    body = "\n".join(within(items, budget))
    if len(carried) > len(shown):
        body += f"\n\n_… and {len(carried) - len(shown)} more: see the job summary and the results artifact._"
    return md.details(f"<strong>Carried from the base run</strong>: {plural(len(carried), 'case')}", body)

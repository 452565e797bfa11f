"""Links in the reports: only this repository's own workflow runs, as the trusted context names them."""

from __future__ import annotations

import re

from adk_eval_gate.config.github_context import GitHubContext
from adk_eval_gate.model.results import ResultsDocument


def trusted_links(doc: ResultsDocument, context: GitHubContext) -> ResultsDocument:
    """``doc`` keeping only links to this repository's own workflow runs, as the trusted context names it.

    results.json may come from an untrusted pull request (the fork set-up's ``report``), so the run and baseline
    links it carries are dropped unless they are ``{server}/{this repository}/actions/runs/{id}``.
    """
    own_run = (
        re.compile(re.escape(f"{context.server_url.rstrip('/')}/{context.repository}/actions/runs/") + "[0-9]+")
        if context.repository
        else None
    )

    def trusted(url: str | None) -> str | None:
        return url if url is not None and own_run is not None and own_run.fullmatch(url) else None

    run = doc.run.model_copy(update={"run_url": trusted(doc.run.run_url)})
    comparison = doc.comparison
    if comparison is not None:
        baseline = comparison.baseline.model_copy(update={"run_url": trusted(comparison.baseline.run_url)})
        comparison = comparison.model_copy(update={"baseline": baseline})
    return doc.model_copy(update={"run": run, "comparison": comparison})

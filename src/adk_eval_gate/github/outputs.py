"""The step's outputs (``GITHUB_OUTPUT``) and its job summary (``GITHUB_STEP_SUMMARY``).

``OUTPUT_NAMES`` is the contract with ``action.yml`` (a test compares them).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import limits

OUTPUT_NAMES = (
    "status",
    "passed",
    "failed",
    "errors",
    "infrastructure-errors",
    "not-evaluated",
    "flaky",
    "confirmed-failures",
    "quarantined",
    "regressions",
    "cost-usd",
    "tokens",
    "cost-change-pct",
    "results",
    "junit",
    "summary",
    "html",
    "comment-url",
)
STEP_SUMMARY_LIMIT = limits.STEP_SUMMARY_BYTES


def output_values(
    doc: ResultsDocument, *, results: Path, junit: Path, summary: Path, html: Path, comment_url: str | None
) -> dict[str, str]:
    totals = doc.totals
    values = {
        "status": doc.status,
        "passed": str(totals.passed),
        "failed": str(totals.failed),
        "errors": str(totals.error + totals.file_errors),
        "infrastructure-errors": str(totals.infrastructure_errors),
        "not-evaluated": str(totals.not_evaluated),
        "flaky": str(totals.flaky),
        "confirmed-failures": str(totals.confirmed_failures),
        "quarantined": str(totals.quarantined),
        "regressions": str(doc.comparison.regressions if doc.comparison else 0),
        **_usage_outputs(doc),
        "results": str(results),
        "junit": str(junit),
        "summary": str(summary),
        "html": str(html),
        "comment-url": comment_url or "",
    }
    assert tuple(values) == OUTPUT_NAMES
    return values


def _usage_outputs(doc: ResultsDocument) -> dict[str, str]:
    agent = doc.usage.agent if doc.usage else None
    cost = agent.cost_usd if agent and not agent.unpriced_models else None
    change = None
    if doc.comparison and doc.comparison.usage:
        change = next((c.change_pct for c in doc.comparison.usage.suite if c.quantity == "cost_usd"), None)
    return {
        "cost-usd": "" if cost is None else f"{cost:.6f}",
        "tokens": "" if agent is None or agent.tokens is None else str(agent.tokens),
        "cost-change-pct": "" if change is None else f"{change:.2f}",
    }


def format_outputs(values: Mapping[str, str]) -> str:
    """``name<<DELIMITER`` blocks: safe for any value, multi-line or not."""
    blocks = []
    for name, value in values.items():
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        while delimiter in value:
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
        blocks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(blocks)


def write_outputs(path: Path, values: Mapping[str, str]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(format_outputs(values))


def append_step_summary(path: Path, text: str) -> bool:
    """Appends ``text`` when it fits in what is left of the step's 1 MiB; False when it does not."""
    used = path.stat().st_size if path.exists() else 0
    if used + len(text.encode("utf-8")) > STEP_SUMMARY_LIMIT:
        return False
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
    return True

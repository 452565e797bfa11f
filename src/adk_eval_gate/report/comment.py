"""The pull-request comment: the verdict with its counts, one line against the baseline, cost and latency in one
line, the per-metric table, then collapsed sections (regressions, cases that did not pass, flaky, quarantined,
cost rises) whose headings carry the same counts. Pure: results in, Markdown out.

With every section closed it fits one screen and an 850 px wide comment: tables hold short cells that can wrap
(``markdown.breakable``), never a long code span. The body starts with a hidden marker,
``<!-- adk-eval-gate id=GATE digest=HEX -->``, that finds the comment again (with its author, see
``github.sticky_comment``) and tells whether anything changed since it was posted. It stays under GitHub's
65,536-character limit by dropping detail in a fixed order (``LEVELS``) and saying what was cut.
"""

from __future__ import annotations

import hashlib
import json
import re

from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import (
    carried,
    case_sections,
    change_sections,
    costs,
    headline,
    limits,
    sequential_sections,
)
from adk_eval_gate.report import markdown as md
from adk_eval_gate.report.judge_lines import judges_section
from adk_eval_gate.report.sections import (
    Cut,
    Detail,
    differences,
    fit,
    footer,
    links,
    metric_table,
    run_problems,
)
from adk_eval_gate.support.words import plural

COMMENT_LIMIT = limits.COMMENT_CHARS
RISES_SHOWN = 5  # cases whose cost or latency rose most; the summary lists them all
METRICS_SHOWN = 5  # rows of the metric table before the rest is folded: one screen with every section closed
_TARGET = COMMENT_LIMIT - 1_000
LEVELS = (
    Detail(text_limit=2000, max_cases=20, max_changes=30),
    Detail(text_limit=600, max_cases=20, max_changes=30),
    Detail(text_limit=200, max_cases=20, max_changes=30),
    Detail(text_limit=0, max_cases=50, max_changes=30),
    Detail(text_limit=0, max_cases=20, max_changes=20, max_metrics=50),
    Detail(text_limit=0, max_cases=0, max_changes=0, max_metrics=20),
)
MARKER = re.compile(r"\A<!-- adk-eval-gate id=(?P<gate>[A-Za-z0-9_.-]{1,64}) digest=(?P<digest>[0-9a-f]{1,64}) -->")


def safe_gate_id(gate_id: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", gate_id.strip())[:64]
    return cleaned or "default"


def marker(gate_id: str, digest: str) -> str:
    return f"<!-- adk-eval-gate id={safe_gate_id(gate_id)} digest={digest} -->"


def parse_marker(body: str) -> tuple[str, str] | None:
    """(gate id, digest) when ``body`` starts with our marker."""
    match = MARKER.match(body)
    return (match["gate"], match["digest"]) if match else None


def digest(doc: ResultsDocument) -> str:
    """Changes when the verdict, a case's status, or any graded score, status or comparison changes; not with
    times, links, or the informational figures that vary from run to run (tokens, durations, call counts), so
    ``comment-mode: on-change`` leaves the comment alone when a new commit evaluates the same."""
    state = {
        "status": doc.status,
        # which cases ran, which runs a 429 or a lost worker made run again, and how many runs a sequential verdict
        # took are not changes of the verdict
        "totals": doc.totals.model_dump(exclude={"carried", "retried_runs", "runs", "runs_fixed"}, exclude_none=True),
        "cases": [
            [
                c.id,
                c.status,
                [
                    [m.name, None if m.score is None else round(m.score, 6), m.status]
                    for m in c.metrics
                    if m.kind != "informational"
                ],
            ]
            for c in doc.cases
        ],
        "files": [[f.path, f.error] for f in doc.files if f.error],
        "changes": [[c.case_id, c.metric, c.kind, c.significance] for c in doc.comparison.changes]
        if doc.comparison
        else None,
    }
    encoded = json.dumps(state, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()[:16]


FILE_ERRORS_SHOWN = 10


def header(doc: ResultsDocument, *, gate_id: str) -> list[str]:
    """What the comment and the summary open with, in the same words."""
    broken = [finding.reason for finding in doc.findings if finding.rule == "file_error"]
    unusable = ""
    if broken:
        why = "\n".join(f"- {md.breakable(reason, limit=300)}" for reason in broken[:FILE_ERRORS_SHOWN])
        more = f"\n- … and {len(broken) - FILE_ERRORS_SHOWN} more" if len(broken) > FILE_ERRORS_SHOWN else ""
        unusable = f"**{plural(len(broken), 'eval file')} could not be used:**\n{why}{more}"
    return [
        headline.heading(doc, gate_id=gate_id) + "\n\n" + headline.counts_line(doc),
        headline.comparison_line(doc),
        sequential_sections.sequential_section(doc),
        carried.affected_line(doc),
        costs.cost_line(doc),
        costs.budget_lines(doc),
        run_problems(doc),
        unusable,
        differences(doc),
    ]


def _render(doc: ResultsDocument, *, gate_id: str, detail: Detail, level: int, budget: int) -> str:
    cut = Cut(text_limit=detail.text_limit if level and detail.text_limit else None)
    sections = [marker(gate_id, digest(doc)), *header(doc, gate_id=gate_id)]
    sections.append(metric_table(doc, limit=detail.max_metrics, cut=cut, fold_after=METRICS_SHOWN))
    sections.append(change_sections.regressions(doc, limit=detail.max_changes, budget=budget))
    sections.append(judges_section(doc))
    sections.append(case_sections.failing_cases(doc, detail=detail, budget=budget))
    sections.append(case_sections.flaky_cases(doc, limit=detail.max_cases))
    sections.append(case_sections.quarantined_cases(doc, limit=detail.max_cases))
    sections.append(carried.carried_cases(doc, limit=detail.max_cases, budget=budget))
    sections.append(costs.rising_cases(doc, limit=RISES_SHOWN))
    sections.append(cut.sentence(where="GitHub's comment limit"))
    sections.append(" · ".join(part for part in (links(doc), footer(doc)) if part))
    return "\n\n".join(section for section in sections if section) + "\n"


def render(doc: ResultsDocument, *, gate_id: str = "default", limit: int = COMMENT_LIMIT) -> str:
    return fit(
        LEVELS,
        lambda detail, level, budget: _render(doc, gate_id=gate_id, detail=detail, level=level, budget=budget),
        target=min(limit, _TARGET) if limit == COMMENT_LIMIT else limit,
        in_bytes=False,
        note="\n\n✂️ _Cut at GitHub's comment limit; see the job summary and the results artifact._\n",
    )

"""report.html: one self-contained page for the deep dive a comment cannot hold.

Everything is inline (styles, one script, SVG charts) and a Content-Security-Policy forbids every load from
anywhere: ``default-src 'none'``, the style and the script allowed by their sha256 hashes, images only as
``data:``. Text from eval files and agents is escaped where it is written (``parts.text``); the script never
builds HTML from text (it sets ``textContent``) except the case details, which are escaped HTML made here. Both
the case list and the details are JSON data in ``<script>`` elements (``json_for_script``: ``<``, ``>`` and ``&``
as ``\\u003c`` and so on, so nothing in them can close the element that holds them). The script builds the rows
from the list's data (``cases.case_rows``): the first screens at once, the rest in slices that let the page
answer meanwhile, the filters and the search over every case. The details are compressed (``packed_details``)
and put into a case when it is opened. So a page of 10,000 cases stays small and is ready in well under 2 s.
The page's script is its assets' scripts in one element (``SCRIPTS``: the labelling view's is ``labelling.js``).

``PAGE_SECTIONS`` lists the parts above the cases; a new part is one function of the document.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from adk_eval_gate.model.results import CaseResult, CaseStatus, ResultsDocument, case_label
from adk_eval_gate.report import costs, headline, sequential_sections
from adk_eval_gate.report.carried import affected_line
from adk_eval_gate.report.change_sections import significance_text
from adk_eval_gate.report.html import calibration_view, labelling_view
from adk_eval_gate.report.html.case_list import Context, case_details, case_rows, header_row
from adk_eval_gate.report.html.parts import (
    STATUS_LABELS,
    badge,
    count,
    element,
    json_for_script,
    key_values,
    number,
    seconds,
    table,
    text,
)
from adk_eval_gate.report.html.svg_charts import score_chart, status_chart
from adk_eval_gate.report.views import computed_by_label

VERDICTS = {"passed": "ADK eval gate passed", "failed": "ADK eval gate failed", "error": "ADK eval gate error"}


@cache
def _asset(name: str) -> str:
    return (resources.files("adk_eval_gate.report.html") / "assets" / name).read_text(encoding="utf-8")


def _sha256(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


def _content_security_policy(*, style: str, script: str) -> str:
    """Nothing may load from anywhere; only our own inline style and script run (by hash)."""
    return (
        f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _header(doc: ResultsDocument, context: Context) -> str:
    totals = doc.totals
    counts = " · ".join(headline.count_words(doc))  # the words of the comment, the summary and the log
    title = element("h1", badge(doc.status) + " " + text(VERDICTS.get(doc.status, doc.status)))
    files = totals.files or len(context.files)
    summary = element("p", text(f"{_plural(totals.cases, 'case')} in {_plural(files, 'file')}: {counts}"))
    error = element("pre", text(doc.error), cls="error") if doc.error else ""
    run = doc.run
    baseline = doc.comparison.baseline.description if doc.comparison else run.baseline_note
    facts = key_values(
        [
            ("repository", text(run.repository) if run.repository else None),
            ("commit", text(run.sha[:12]) if run.sha else None),
            ("ref", text(run.ref) if run.ref else None),
            ("runner", text(run.runner) if run.runner else None),
            ("agent", text(run.served_agent.label()) if run.served_agent else None),
            ("runs per case", text(sequential_sections.runs_per_case(doc))),
            ("pass rule", text(run.pass_rule) if run.num_runs > 1 else None),
            ("shards merged", text(run.shards_merged) if run.shards_merged else None),
            ("started", text(run.started_at) if run.started_at else None),
            ("duration", text(seconds(run.duration_seconds)) if run.duration_seconds is not None else None),
            ("baseline", text(baseline) if baseline else None),
            ("only affected", text(affected_line(doc, markdown=False)) if run.affected else None),
            ("tool version", text(run.tool_version) if run.tool_version else None),
        ]
    )
    return element("header", title + summary + error + facts)


_EFFECTS = {"error": "error", "failed": "failed", "not_evaluated": "not_evaluated", "none": "informational"}
_BUDGETS = {"passed": "passed", "failed": "failed", "unchecked": "error", "skipped": "informational"}


def _verdict(doc: ResultsDocument, context: Context) -> str:
    """What decided the run's status (the verdict's findings) and every budget of the run with its figures."""
    items = "".join(element("li", badge(_EFFECTS[finding.effect]) + text(finding.reason)) for finding in doc.findings)
    found = element("ul", items, cls="findings") if items else element("p", "Every gated case passed.", cls="muted")
    budgets = [[badge(_BUDGETS[check.status]), text(check.name), text(check.reason)] for check in doc.budgets]
    budget_table = element("h3", "Budgets") + table(["Status", "Budget", "Figures"], budgets) if budgets else ""
    return element("section", element("h2", "Verdict") + found + budget_table, cls="verdict")


def _usage(doc: ResultsDocument, context: Context) -> str:
    """The run's cost and latency, and their change against the baseline on the cases both sides ran."""
    line = costs.cost_line(doc, markdown=False)
    if not line:
        return ""
    compared = doc.comparison.usage if doc.comparison else None
    rows = [
        [
            text(costs.LABELS[change.quantity]),
            text(costs.figure(change, change.base)),
            text(costs.figure(change, change.head)),
            text(costs.percent(change) or "–"),
            text(significance_text(change.significance, change.noise)),
        ]
        for change in (compared.suite if compared else [])
    ]
    header = ["Agent", "Base", "Head", "Change", "Noise check"]
    body = element("p", text(line)) + (table(header, rows) if rows else "")
    return element("section", element("h2", "Cost and latency") + body)


DROPS_SHOWN = 200  # rows of the drops table; the rest are in their cases (10,000 rows would slow the page down)


def _comparison(doc: ResultsDocument, context: Context) -> str:
    """The baseline, the comparison's counts in the comment's words, and the first ``DROPS_SHOWN`` regressions that
    count (every case's details list its own changes)."""
    counts = headline.change_counts(doc)
    if doc.comparison is None or counts is None:
        note = doc.run.baseline_note or "no baseline was given or found"
        return element("section", element("h2", "Against the baseline") + element("p", text(f"No comparison: {note}")))
    base = doc.comparison.baseline
    where = base.description + (f" @ {base.sha[:7]}" if base.sha else "")
    intro = element("p", text(f"Against {where}: " + " · ".join(headline.comparison_words(counts))))
    drops = [*counts.regressions, *counts.noisy, *counts.incomparable]
    rows = [
        [
            text(case_label(*change.case_id.rpartition("::")[::2])),
            text(change.metric),
            text(number(change.base)),
            text(number(change.head)),
            text(number(change.delta)),
            text(significance_text(change.significance, change.noise)),
        ]
        for change in drops[:DROPS_SHOWN]
    ]
    header = ["Case", "Metric", "Base", "Head", "Delta", "Noise check"]
    more = len(drops) - DROPS_SHOWN
    note = element("p", text(f"… and {more:,} more: each case lists its own changes.")) if more > 0 else ""
    regressions = element("h3", "Drops") + table(header, rows) + note if rows else ""
    return element("section", element("h2", "Against the baseline") + intro + regressions)


def _confirmations(doc: ResultsDocument, context: Context) -> str:
    """``--confirm-failures``: each case run again, and what its re-runs did."""
    rows = [
        [
            text(case.label),
            badge(case.status),
            text("; ".join(f.reason for f in case.findings if f.rule == "confirmation")),
        ]
        for case in doc.cases
        if case.confirmation is not None and case.confirmation.extra_runs
    ]
    if not rows:
        return ""
    return element("section", element("h2", "Confirmed by re-runs") + table(["Case", "Status", "Re-runs"], rows))


def _sequential(doc: ResultsDocument, context: Context) -> str:
    """``--sequential``: the runs spent against a fixed ``--num-runs``, and how the verdicts came."""
    line = sequential_sections.sequential_line(doc)
    if not line:
        return ""
    return element("section", element("h2", "Sequential verdicts") + element("p", text(line)))


def _charts(doc: ResultsDocument, context: Context) -> str:
    charts = score_chart(doc) + status_chart(doc)
    return element("section", element("h2", "Charts") + charts, cls="charts") if charts else ""


def _metric_summaries(doc: ResultsDocument, context: Context) -> str:
    rows = [
        [
            text(m.name),
            text(m.kind + computed_by_label(m.name, m.computed_by)),
            text(number(m.threshold) if not m.thresholds else ", ".join(number(t) for t in m.thresholds)),
            text(number(m.mean)),
            text(f"{m.passed}/{m.cases}" if m.kind != "informational" else ""),
            text(m.failed or ""),
            text(m.not_evaluated or ""),
        ]
        for m in doc.metrics
    ]
    header = ["Metric", "Kind", "Threshold", "Mean", "Passed", "Failed", "Not evaluated"]
    return element("section", element("h2", "Metrics") + table(header, rows)) if rows else ""


def _judge(doc: ResultsDocument, context: Context) -> str:
    """The judge's calls for the evaluation, and apart from them those that calibrated it on the human labels."""
    judge, calibration = doc.judge, doc.calibration_judge
    if judge is None and calibration is None:
        return ""
    facts = ""
    if judge is not None:
        facts += key_values(
            [
                ("calls", text(judge.calls)),
                ("cached answers", text(judge.cached)),
                ("failed calls", text(judge.failed)),
                ("input tokens", text(count(judge.input_tokens))),
                ("output tokens", text(count(judge.output_tokens))),
            ]
        )
    if calibration is not None:
        facts += element("h3", "Calibration on the human labels") + key_values(
            [
                ("judges calibrated now", text(calibration.calibrated)),
                ("judges unchanged, from the cache", text(calibration.reused)),
                ("calls", text(calibration.calls)),
                ("cached answers", text(calibration.cached)),
                ("failed calls", text(calibration.failed)),
                ("input tokens", text(count(calibration.input_tokens))),
                ("output tokens", text(count(calibration.output_tokens))),
            ]
        )
    return element("section", element("h2", "LLM judge") + facts)


def _file_problems(doc: ResultsDocument, context: Context) -> str:
    rows = [
        [text(f"{f.path}:{f.line}" if f.line else f.path), text(f.error or "; ".join(f.warnings))]
        for f in doc.files
        if f.error or f.warnings
    ]
    return element("section", element("h2", "Files with problems") + table(["File", "Problem"], rows)) if rows else ""


PageSection = Callable[[ResultsDocument, Context], str]
PAGE_SECTIONS: tuple[PageSection, ...] = (
    _header,
    _verdict,
    _file_problems,
    _comparison,
    _usage,
    _confirmations,
    _sequential,
    _charts,
    _metric_summaries,
    _judge,
    lambda doc, context: calibration_view.calibrations(doc),
    lambda doc, context: labelling_view.labelling(doc),
)


def _options(names: list[str], *, everything: str) -> str:
    options = [element("option", text(everything), attrs={"value": ""})]
    options += [element("option", text(name), attrs={"value": str(i)}) for i, name in enumerate(names)]
    return "".join(options)


QUARANTINED = "quarantined"  # a filter of the page, not a status: a quarantined case keeps its own


def _filters(doc: ResultsDocument, context: Context) -> str:
    """The status boxes count what the verdict counted: quarantined cases apart, whatever they did."""
    boxes = []
    for status in [*CaseStatus, QUARANTINED]:
        n = getattr(doc.totals, status)
        if status == QUARANTINED and not n:
            continue
        label = f"{STATUS_LABELS[status]} ({n})"
        box = f'<input type="checkbox" name="status" value="{status}" checked>'
        boxes.append(element("label", box + text(label), cls=f"status-filter s-{status}"))
    file_select = element(
        "select", _options(context.files, everything="all files"), attrs={"id": "file-filter", "aria-label": "File"}
    )
    metrics = _options(context.metrics, everything="all metrics")
    metric_select = element("select", metrics, attrs={"id": "metric-filter", "aria-label": "Metric"})
    failing = element("label", '<input type="checkbox" id="metric-failing">' + text("only where it did not pass"))
    search = (
        '<input type="search" id="text-filter" placeholder="case id contains…" aria-label="Cases whose id contains">'
    )
    shown = element(
        "span",
        text(f"{len(doc.cases)} of {len(doc.cases)} cases shown"),
        attrs={"id": "shown-count", "role": "status", "aria-live": "polite"},
    )
    parts = "".join(boxes) + file_select + metric_select + failing + search + shown
    return element("div", parts, cls="filters", attrs={"id": "filters"})


def _listed_cases(doc: ResultsDocument) -> list[CaseResult]:
    """The cases in the order the page lists them: those that fail the gate first (the ones to look at, first
    even among thousands), then the quarantined ones that did not pass, then the rest, each in file order."""

    def rank(case: CaseResult) -> int:
        if case.status == CaseStatus.PASSED:
            return 2
        return 1 if case.quarantined else 0

    return sorted(doc.cases, key=rank)


NO_SCRIPT = "The cases are listed by this page's script: open the page in a browser with JavaScript on."


def _cases(doc: ResultsDocument, context: Context) -> str:
    """The filters and the list's header; the script adds the rows (``case_rows``), the first screens at once."""
    listing = element("div", header_row(), cls="case-list", attrs={"id": "case-list", "aria-busy": "true"})
    note = element("noscript", element("p", text(NO_SCRIPT)))
    title = element("h2", f"Cases ({len(doc.cases)})")
    return element("section", title + _filters(doc, context) + note + listing)


DETAILS_PER_CHUNK = 64  # cases whose details are packed together (and unpacked together when one is opened)


def packed_details(cases: list[CaseResult], context: Context) -> dict[str, Any]:
    """The cases' details for the page's script: escaped HTML, in chunks of ``DETAILS_PER_CHUNK`` cases, each a
    JSON list compressed (zlib, the script's ``DecompressionStream("deflate")``) and base64-encoded. The page
    carries them as data and makes a case's HTML only when the case is opened: similar cases compress to a few
    hundred bytes each, so a page of 10,000 cases stays small and opens fast."""
    chunks = []
    for start in range(0, len(cases), DETAILS_PER_CHUNK):
        details = [case_details(case, context) for case in cases[start : start + DETAILS_PER_CHUNK]]
        packed = zlib.compress(json.dumps(details, ensure_ascii=False).encode("utf-8"), 9)
        chunks.append(base64.b64encode(packed).decode("ascii"))
    return {"size": DETAILS_PER_CHUNK, "chunks": chunks}


SCRIPTS = ("report.js", "labelling.js")  # one inline script, so one hash in the policy


def render(doc: ResultsDocument) -> str:
    style, script = _asset("report.css"), "\n".join(_asset(name) for name in SCRIPTS)
    context = Context.of(doc)
    listed = _listed_cases(doc)
    rows = json_for_script(case_rows(listed, context))
    details = json_for_script(packed_details(listed, context))
    body = "".join(part(doc, context) for part in PAGE_SECTIONS) + _cases(doc, context)
    title = f"{VERDICTS.get(doc.status, doc.status)}: {doc.totals.passed} of {doc.totals.cases} cases passed"
    policy = _content_security_policy(style=style, script=script)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}"><meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(title)}</title><style>{style}</style></head>\n<body>{body}\n"
        f'<script type="application/json" id="case-rows">{rows}</script>\n'
        f'<script type="application/json" id="case-details">{details}</script>\n'
        f"<script>{script}</script></body></html>\n"
    )

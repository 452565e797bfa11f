"""results.json's text: compact, one case per line.

Each field at its default is left out (every reader, of this version or an earlier one, fills the same default
in); the document's own fields come first, the schema version and the status leading (the supervising parent
reads them, ``runners/workers/supervisor.py``), then one case per line, so that a diff of two results shows cases.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from adk_eval_gate.model.results.case_inputs import CaseInputs
from adk_eval_gate.model.results.document import CaseResult, ResultsDocument, file_inputs, run_figures


def dump_json(doc: ResultsDocument) -> str:
    return "".join(json_parts(doc))


def json_parts(doc: ResultsDocument) -> Iterator[str]:
    """``dump_json``'s text in parts, a case at a time: written as they come, a document of any size is never one
    string in memory."""
    left_out: dict[str, Any] = {"cases": True, **({"calibrations": True} if not doc.calibrations else {})}
    if doc.comparison is not None and not doc.comparison.judge_changes:
        left_out["comparison"] = {"judge_changes": True}
    if doc.calibration_judge is None:
        left_out["calibration_judge"] = True
    if doc.usage is not None and doc.usage.calibration is None:
        left_out["usage"] = {"calibration": True}
    head = _without_sequential_defaults(doc.model_dump(mode="json", exclude=left_out))
    fields = {"schema_version": doc.schema_version, "status": doc.status} | head
    parts = [f"{json.dumps(name)}:{_compact(value)}" for name, value in fields.items()]
    at = list(fields).index("totals") + 1 if "totals" in fields else len(parts)
    yield "{" + "".join(f"{part},\n" for part in parts[:at]) + '"cases":[\n'
    files = file_inputs(doc.files)
    for number, case in enumerate(doc.cases):
        yield (",\n" if number else "") + _case_text(case, files)
    yield "\n]" + "".join(f",\n{part}" for part in parts[at:]) + "}\n"


SEQUENTIAL_ONLY = {
    "run": ("sequential", "run_attempt", "continued_from_attempt"),
    "stability": ("k", "runs"),
    "totals": ("runs", "runs_fixed", "proven", "curtailed", "undecided"),
}


def _without_sequential_defaults(head: dict[str, Any]) -> dict[str, Any]:
    """The document's fields without those only ``--sequential`` fills, when it was not given: a run without it
    writes what it always wrote."""
    for part, names in SEQUENTIAL_ONLY.items():
        values = head.get(part)
        if not isinstance(values, dict):
            continue
        for name in names:
            if values.get(name) is None:
                values.pop(name, None)
    return head


def _case_text(case: CaseResult, files: dict[str, CaseInputs]) -> str:
    """The case's line: its fields that are not at their default, without what it holds twice or its file holds."""
    left_out = _repeated(case)
    if case.inputs is not None and case.inputs == files.get(case.file):
        left_out["inputs"] = True
    text = case.model_dump_json(exclude=left_out, exclude_defaults=True)
    if case.inputs is None and case.file in files:  # no inputs, not its file's: said, not left out
        text = text[:-1] + ',"inputs":null}'
    return text


def _repeated(case: CaseResult) -> dict[str, Any]:
    """What the case holds twice (``CaseResult`` puts it back when it is read): each run's per-turn scores of a
    metric, which the case's metric lists by run, and the case's metrics' run scores and passing runs, which are
    the runs' own (``run_figures``)."""
    by_name = {metric.name: dict(enumerate(metric.invocation_scores)) for metric in case.metrics}
    left_out: dict[str, Any] = {}
    runs: dict[int, Any] = {}
    scored_runs = [(index, run) for index, run in enumerate(case.runs) if run.metrics]
    for position, (index, run) in enumerate(scored_runs):
        same = {
            number
            for number, metric in enumerate(run.metrics)
            if position < len(by_name.get(metric.name, []))
            and by_name[metric.name][position] == metric.invocation_scores
        }
        if same:
            runs[index] = {"metrics": {number: {"invocation_scores"} for number in same}}
    if runs:
        left_out["runs"] = runs
    metrics = {}
    for number, metric in enumerate(case.metrics if scored_runs else []):
        scores, passed = run_figures(metric.name, case.runs)
        derived = {"run_scores"} if metric.run_scores == scores else set()
        derived |= {"passed_runs"} if metric.passed_runs == passed else set()
        if derived:
            metrics[number] = derived
    if metrics:
        left_out["metrics"] = metrics
    return left_out


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

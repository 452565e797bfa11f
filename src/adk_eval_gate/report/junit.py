"""JUnit XML: one ``testsuite`` per eval file, one ``testcase`` per eval case whose outcome is the gate's verdict
for that case (a case that passes on its mean over ``--num-runs`` passes here too, and says in ``system-out``
which runs failed).

Each testcase carries ``file`` and ``line`` (the eval file and the line of its ``eval_id``), so readers that
annotate (mikepenz/action-junit-report, dorny/test-reporter) point at the case; times have at most three
decimals; nothing outside the common JUnit structure (no ``disabled``). The per-run scores are the suite's
``properties`` and the testcase's ``system-out``, with the transcript of the run that shows what went wrong.
Read by EnricoMi/publish-unit-test-result-action, dorny/test-reporter and mikepenz/action-junit-report.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from adk_eval_gate.judge import platform_access
from adk_eval_gate.model.results import CaseResult, CaseStatus, FileResult, ResultsDocument, RunRecord
from adk_eval_gate.report import views
from adk_eval_gate.report.judge_lines import junit_properties
from adk_eval_gate.verdict import run_reasons

RUN_SUITE = "adk-eval-gate"


def seconds(value: float | None) -> str:
    """A JUnit time: seconds with at most three decimals, never float noise."""
    return f"{max(value or 0.0, 0.0):.3f}"


def transcript(run: RunRecord) -> str:
    lines = []
    for turn in views.turns(run):
        lines.append(f"--- turn {turn.number}")
        lines.append(f"user: {turn.user}")
        if turn.expected_calls is not None:
            lines.append("expected tool calls: " + (", ".join(turn.expected_calls) or "(none)"))
        if turn.actual_calls is not None:
            lines.append("actual tool calls:   " + (", ".join(turn.actual_calls) or "(none)"))
        if turn.expected_answer is not None:
            lines.append(f"expected answer: {turn.expected_answer}")
        if turn.actual_answer is not None:
            lines.append(f"actual answer:   {turn.actual_answer}")
    for metric in run.metrics:
        score = "n/a" if metric.score is None else f"{metric.score:.4g}"
        lines.append(
            f"metric {metric.name}{views.computed_by_label(metric.name, metric.computed_by)}: {score} ({metric.status})"
        )
    lines.extend(f"  {note}" for note in views.failing_metric_notes(run))
    lines.extend(f"note: {note}" for note in run.notes)
    return "\n".join(lines)


def _case_failures(case: CaseResult) -> list[str]:
    return views.case_reasons(case)


def _runs_text(case: CaseResult) -> str:
    """One line per run (status and scores), then the transcript of the run to look at."""
    lines = []
    if len(case.runs) > 1:
        failed = [run for run in case.runs if run.status != CaseStatus.PASSED]
        if failed and case.status == CaseStatus.PASSED:
            lines.append(
                f"passed on the mean over {len(case.runs)} runs; {len(failed)} of them did not pass: "
                + ", ".join(f"run {run.run} ({run.status})" for run in failed)
            )
        for run in case.runs:
            scores = ", ".join(f"{m.name}={'n/a' if m.score is None else f'{m.score:.4g}'}" for m in run.metrics)
            lines.append(f"run {run.run}: {run.status}" + (f" ({run.error})" if run.error else f"; {scores}"))
    shown = views.worst_run(case)
    if shown is not None:
        if len(case.runs) > 1:
            lines.append(f"=== run {shown.run}")
        lines.append(transcript(shown))
    return "\n".join(line for line in lines if line)


@dataclass
class _Counts:
    tests: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0
    time: float = 0.0

    def add(self, outcome: str | None, elapsed: float) -> None:
        self.tests += 1
        self.time += elapsed
        if outcome == "failure":
            self.failures += 1
        elif outcome == "error":
            self.errors += 1
        elif outcome == "skipped":
            self.skipped += 1

    def attributes(self, *, with_skipped: bool = True) -> dict[str, str]:
        counts = {"tests": self.tests, "failures": self.failures, "errors": self.errors}
        if with_skipped:  # a testsuite has it; the testsuites root does not, in the common schema
            counts["skipped"] = self.skipped
        return {**{name: str(value) for name, value in counts.items()}, "time": seconds(self.time)}


@dataclass
class _Suite:
    name: str
    file: str | None = None
    counts: _Counts = field(default_factory=_Counts)
    cases: list[ET.Element] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)

    def testcase(
        self, name: str, *, classname: str, elapsed: float, file: str | None = None, line: int | None = None
    ) -> ET.Element:
        element = ET.Element("testcase", {"name": name, "classname": classname, "time": seconds(elapsed)})
        if file:
            element.set("file", file)
        if line:
            element.set("line", str(line))
        self.cases.append(element)
        return element

    def outcome(
        self, testcase: ET.Element, kind: str | None, message: str = "", *, text: str = "", type_name: str = ""
    ) -> None:
        """``kind``: failure, error, skipped, or None (passed)."""
        if kind == "skipped":
            ET.SubElement(testcase, kind, {"message": message})
        elif kind is not None:
            ET.SubElement(testcase, kind, {"type": type_name or kind, "message": message}).text = text or message
        self.counts.add(kind, float(testcase.get("time", "0")))

    def element(self) -> ET.Element:
        attributes = {"name": self.name, **self.counts.attributes()}
        if self.file:
            attributes["file"] = self.file
        suite = ET.Element("testsuite", attributes)
        if self.properties:
            properties = ET.SubElement(suite, "properties")
            for name, value in self.properties.items():
                ET.SubElement(properties, "property", {"name": name, "value": value})
        suite.extend(self.cases)
        return suite


def _add_case(suite: _Suite, case: CaseResult, *, allow_not_evaluated: bool) -> None:
    elapsed = sum(run.duration_seconds or 0.0 for run in case.runs)
    testcase = suite.testcase(case.label, classname=case.file, elapsed=elapsed, file=case.file, line=case.line)
    failures = _case_failures(case)
    if (
        case.quarantined and case.status != CaseStatus.PASSED
    ):  # it never fails the gate: readers must not fail it either
        detail = case.error or "; ".join(failures) or case.status
        suite.outcome(testcase, "skipped", f"quarantined ({case.status.replace('_', ' ')}): {detail}")
    elif case.status == CaseStatus.ERROR:
        error = case.error or next((run.error for run in case.runs if run.error), None) or "error"
        suite.outcome(testcase, "error", error, type_name=case.error_kind or "error")
    elif case.status == CaseStatus.FAILED:
        suite.outcome(testcase, "failure", "; ".join(failures), text="\n".join(failures))
    elif case.status == CaseStatus.NOT_EVALUATED:
        message = "; ".join(failures) or "no thresholded metric could be evaluated"
        if allow_not_evaluated:
            suite.outcome(testcase, "skipped", message)
        else:
            suite.outcome(testcase, "failure", message, text="\n".join(failures), type_name="not_evaluated")
    else:
        suite.outcome(testcase, None)
    testcase.extend(rerun.element() for rerun in reruns(case))
    output = _runs_text(case)
    if output:
        ET.SubElement(testcase, "system-out").text = output
    shown = views.worst_run(case)
    if shown is not None and shown.log:
        ET.SubElement(testcase, "system-err").text = "\n".join(shown.log)
    suite.properties.update(case_properties(case))
    for run in case.runs:
        suffix = f"#{run.run}" if len(case.runs) > 1 else ""
        for metric in run.metrics:
            score = "n/a" if metric.score is None else f"{metric.score:.6g}"
            suite.properties[f"{case.label}{suffix}.{metric.name}"] = f"{score} ({metric.status})"
            computed_by = platform_access.recorded(metric.name, metric.computed_by)
            if computed_by is not None:
                suite.properties[f"{case.label}{suffix}.{metric.name}.computed_by"] = computed_by


@dataclass(frozen=True)
class Rerun:
    """One of Maven Surefire's re-run elements (``flakyFailure``, ``rerunFailure``, ...) of a testcase."""

    tag: str
    type: str
    message: str
    stack_trace: str

    def element(self) -> ET.Element:
        element = ET.Element(self.tag, {"type": self.type, "message": self.message})
        ET.SubElement(element, "stackTrace").text = self.stack_trace
        return element


def reruns(case: CaseResult) -> list[Rerun]:
    """Maven Surefire's elements, which JUnit readers show as retries: a case that passed although some of its
    runs did not has a ``flakyFailure`` (or ``flakyError``) per such run; a failed case that was run again
    (``--confirm-failures``) has a ``rerunFailure`` (or ``rerunError``) per re-run that did not pass either."""
    if case.quarantined:
        return []
    if case.status == CaseStatus.PASSED:
        runs, prefix = [run for run in case.runs if run.status != CaseStatus.PASSED], "flaky"
    elif case.status in (CaseStatus.FAILED, CaseStatus.ERROR) and case.confirmation is not None:
        runs, prefix = [run for run in case.runs if run.confirmation and run.status != CaseStatus.PASSED], "rerun"
    else:
        return []
    metrics = {metric.name: metric for metric in case.metrics}
    found = []
    for run in runs:
        reasons = run_reasons(run, metrics)
        found.append(
            Rerun(
                tag=f"{prefix}Error" if run.status == CaseStatus.ERROR else f"{prefix}Failure",
                type=run.error_kind or run.status,
                message=f"run {run.run}: {'; '.join(reasons)}",
                stack_trace="\n".join(reasons) or run.status,
            )
        )
    return found


def _sequential_properties(case: CaseResult) -> dict[str, str]:
    """With ``--sequential``: the case's decision, the runs it read, its e-values and its interval."""
    sequential = case.sequential
    if sequential is None:
        return {}
    low, high = sequential.interval
    return {
        f"{case.label}.sequential": sequential.decision or "none",
        f"{case.label}.sequential_runs": str(sequential.runs),
        f"{case.label}.e_pass": f"{sequential.e_pass:.6g}",
        f"{case.label}.e_fail": f"{sequential.e_fail:.6g}",
        f"{case.label}.interval": f"{low:.4g} {high:.4g}",
    }


def case_properties(case: CaseResult) -> dict[str, str]:
    """The case's runs taken together, as properties named ``EVAL_ID.NAME`` (readers show suite properties)."""
    properties: dict[str, str] = {}
    if len(case.runs) > 1:
        properties[f"{case.label}.runs"] = f"{case.runs_passed or 0} of {len(case.runs)} passed"
    if case.stability is not None:
        properties[f"{case.label}.stability"] = f"{case.stability} ({case.runs_passed}/{len(case.runs)} runs)"
        properties[f"{case.label}.pass_hat_k"] = str(case.pass_hat_k).lower()
        properties[f"{case.label}.pass_at_k"] = str(case.pass_at_k).lower()
    properties.update(_sequential_properties(case))
    usage = case.usage
    if usage is not None:
        for name, value in (
            ("tokens", usage.tokens),
            ("cost_usd", usage.cost_usd),
            ("model_calls", usage.model_calls),
            ("p95_turn_seconds", usage.p95_turn_seconds),
        ):
            if value is not None:
                properties[f"{case.label}.{name}"] = f"{value:.6g}"
    if case.carried is not None:  # --only-affected: the base run's result, not run again
        origin = case.carried
        properties[f"{case.label}.carried"] = " ".join(filter(None, [origin.description, origin.sha, origin.run_url]))
    if case.confirmation is not None:
        first = case.confirmation.first_status.replace("_", " ")
        properties[f"{case.label}.confirmation"] = (
            f"{case.confirmation.reason} first ({first}), {case.confirmation.extra_runs} more runs"
        )
    return properties


def wall_time(runs: list[RunRecord]) -> float | None:
    """From the first run's start to the last run's end: runs in parallel take less than the sum of their times.
    None when a run was not timed."""
    spans = [(run.started_at, run.duration_seconds) for run in runs]
    if not spans or any(start is None or length is None for start, length in spans):
        return None
    starts = [start for start, _ in spans if start is not None]
    ends = [start + length for start, length in spans if start is not None and length is not None]
    return max(ends) - min(starts)


def _file_suite(file: FileResult, cases: list[CaseResult], *, allow_not_evaluated: bool) -> _Suite:
    suite = _Suite(file.path, file=file.path)
    if file.error:
        broken = suite.testcase(
            PurePosixPath(file.path).name, classname=file.path, elapsed=0.0, file=file.path, line=file.line
        )
        suite.outcome(broken, "error", file.error, type_name="configuration")
    for case in cases:
        _add_case(suite, case, allow_not_evaluated=allow_not_evaluated)
    wall = wall_time([run for case in cases for run in case.runs])
    if wall is not None:
        suite.counts.time = wall
    return suite


def _run_suite(doc: ResultsDocument) -> _Suite | None:
    """The run's own error (a crash, a failed report) and the cases an interrupted run did not finish."""
    suite = _Suite(RUN_SUITE)
    if doc.error:
        suite.outcome(suite.testcase("(run)", classname=RUN_SUITE, elapsed=0.0), "error", doc.error)
    for case_id in doc.run.unfinished:
        unfinished = suite.testcase(case_id, classname=f"{RUN_SUITE}.unfinished", elapsed=0.0)
        suite.outcome(unfinished, "error", "the run was interrupted before this case finished")
    return suite if suite.cases else None


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(xml: str) -> str:
    """Characters XML 1.0 cannot hold (control characters from an agent's output) become U+FFFD. They can only
    come from texts and attribute values, which ElementTree writes as they are: one pass over the whole text."""
    return _NOT_XML.sub("\ufffd", xml)


def render(doc: ResultsDocument) -> str:
    allow = doc.run.allow_not_evaluated
    suites = [
        _file_suite(file, [c for c in doc.cases if c.file == file.path], allow_not_evaluated=allow)
        for file in doc.files
    ]
    suites = [suite for suite in suites if suite.cases]
    for suite in suites:
        suite.properties.update(junit_properties(doc))
    run_suite = _run_suite(doc)
    if run_suite is not None:
        suites.append(run_suite)
    total = _Counts()
    for suite in suites:
        for name in ("tests", "failures", "errors", "skipped"):
            setattr(total, name, getattr(total, name) + getattr(suite.counts, name))
        total.time += suite.counts.time
    if doc.run.duration_seconds is not None:
        total.time = doc.run.duration_seconds  # the run's wall time, not the sum of its parallel cases
    root = ET.Element("testsuites", {"name": RUN_SUITE, **total.attributes(with_skipped=False)})
    root.extend(suite.element() for suite in suites)
    ET.indent(root, space="\t")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + _clean(ET.tostring(root, encoding="unicode")) + "\n"

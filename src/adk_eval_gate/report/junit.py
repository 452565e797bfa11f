"""JUnit XML: one ``testsuite`` per eval file, one ``testcase`` per eval case and run.

A failing run has a ``failure`` whose message lists each failing metric as ``name: score < threshold``; the
scores are ``properties`` of the suite (the common JUnit schema has no per-testcase properties) and the
expected-versus-actual tool calls and answers are in ``system-out``. Read by dorny/test-reporter and
EnricoMi/publish-unit-test-result-action.
"""

from __future__ import annotations

from junit_xml import TestCase, TestSuite, to_xml_report_string

from adk_eval_gate.report import views
from adk_eval_gate.results import CaseResult, ResultsDocument, RunRecord


def _run_failures(run: RunRecord, case: CaseResult) -> list[str]:
    thresholds = {m.name: m.threshold for m in case.metrics}
    lines = []
    for metric in run.metrics:
        threshold = thresholds.get(metric.name)
        if metric.status == "failed" and metric.score is not None and threshold is not None:
            lines.append(f"{metric.name}: {metric.score:.4g} < {threshold:.4g}")
        elif metric.status == "not_evaluated":
            lines.append(f"{metric.name}: not evaluated ({metric.reason or 'no score'})")
    return lines


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
        lines.append(f"metric {metric.name}: {score} ({metric.status})")
    lines.extend(f"note: {note}" for note in run.notes)
    return "\n".join(lines)


def _testcase(case: CaseResult, run: RunRecord, *, allow_not_evaluated: bool) -> TestCase:
    name = case.eval_id if len(case.runs) <= 1 else f"{case.eval_id} (run {run.run}/{len(case.runs)})"
    testcase = TestCase(name=name, classname=case.file, elapsed_sec=run.duration_seconds, stdout=transcript(run))
    failures = _run_failures(run, case)
    if run.status == "error":
        testcase.add_error_info(message=run.error or "error", error_type="error")
    elif run.status == "failed":
        testcase.add_failure_info(message="; ".join(failures), output="\n".join(failures), failure_type="failure")
    elif run.status == "not_evaluated":
        message = "; ".join(failures) or "no thresholded metric could be evaluated"
        if allow_not_evaluated:
            testcase.add_skipped_info(message=message)
        else:
            testcase.add_failure_info(message=message, output=message, failure_type="not_evaluated")
    return testcase


def _properties(case: CaseResult) -> dict[str, str]:
    props = {}
    for run in case.runs:
        suffix = f"#{run.run}" if len(case.runs) > 1 else ""
        for metric in run.metrics:
            score = "n/a" if metric.score is None else f"{metric.score:.6g}"
            props[f"{case.eval_id}{suffix}.{metric.name}"] = f"{score} ({metric.status})"
    return props


def render(doc: ResultsDocument) -> str:
    allow = doc.run.allow_not_evaluated
    suites: list[TestSuite] = []
    for file in doc.files:
        cases = [c for c in doc.cases if c.file == file.path]
        testcases = []
        properties: dict[str, str] = {}
        if file.error:
            broken = TestCase(name="(load)", classname=file.path)
            broken.add_error_info(message=file.error, error_type="configuration")
            testcases.append(broken)
        for case in cases:
            if not case.runs:
                missing = TestCase(name=case.eval_id, classname=case.file)
                missing.add_error_info(message=case.error or "did not run", error_type="error")
                testcases.append(missing)
            testcases.extend(_testcase(case, run, allow_not_evaluated=allow) for run in case.runs)
            properties.update(_properties(case))
        if testcases:
            suites.append(TestSuite(name=file.path, test_cases=testcases, properties=properties or None))
    run_level = _run_problems(doc)
    if run_level:
        suites.append(TestSuite(name="adk-eval-gate", test_cases=run_level))
    return str(to_xml_report_string(suites, prettyprint=True, encoding="utf-8"))


def _run_problems(doc: ResultsDocument) -> list[TestCase]:
    """The run's own error (a crash, a failed report) and the cases an interrupted run did not finish."""
    problems = []
    if doc.error:
        crashed = TestCase(name="(run)", classname="adk-eval-gate", elapsed_sec=0.0)
        crashed.add_error_info(message=doc.error, error_type="error")
        problems.append(crashed)
    for case_id in doc.run.unfinished:
        unfinished = TestCase(name=case_id, classname="adk-eval-gate.unfinished", elapsed_sec=0.0)
        unfinished.add_error_info(message="the run was interrupted before this case finished", error_type="error")
        problems.append(unfinished)
    return problems

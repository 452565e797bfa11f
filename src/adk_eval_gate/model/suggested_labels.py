"""The labels a run suggests: each turn a judge metric scored, with the judge's verdict filled in as a suggestion
(valid or invalid for a 0/1 verdict, else the score) and ``confirmed: false``, for a person to confirm or flip
(``adk-eval-gate label`` writes them; report.html's labelling view shows them). Rubric metrics judge several
rubrics per turn and are left to label by hand: their rubric's text is not in results.json per turn."""

from __future__ import annotations

from collections.abc import Iterator

import pydantic

from adk_eval_gate.model.evalset import Invocation
from adk_eval_gate.model.judge_labels import EXPECTED_READERS, RUBRIC_PREFIX, JudgeLabel, JudgeLabelsFile
from adk_eval_gate.model.results import CaseResult, MetricResult, ResultsDocument, RunRecord


def _suggestion(score: float) -> str | float:
    if score in (0.0, 1.0):
        return "valid" if score == 1.0 else "invalid"
    return score


def _turn_labels(
    case: CaseResult, run: RunRecord, metric: MetricResult, apps: dict[str, dict[str, object]]
) -> Iterator[JudgeLabel]:
    scored = next((m for m in run.metrics if m.name == metric.name), None)
    if scored is None:
        return
    for record, score in zip(run.invocations, scored.invocation_scores, strict=False):
        if score is None:
            continue
        try:
            actual = record.actual_invocation(apps)
            expected = record.expected_invocation()
        except pydantic.ValidationError:
            continue
        if actual is None or (expected is None and metric.name in EXPECTED_READERS):
            continue  # a label without the turn it judges, or without the expected one its metric reads, is refused
        yield JudgeLabel(
            metric=metric.name,
            invocation=_judged(actual),
            expected_invocation=_judged(expected) if expected is not None else None,
            label=_suggestion(score),
            confirmed=False,
            case=case.id,
        )


def _judged(invocation: Invocation) -> Invocation:
    """What a judge reads of an invocation: its usage figures and app details are not part of a label."""
    return invocation.model_copy(update={"app_details": None, "duration": None, "creation_timestamp": 0.0})


def suggested_labels(doc: ResultsDocument) -> JudgeLabelsFile:
    """A label per judged turn of ``doc``'s judge metrics (rubric metrics left out), unconfirmed."""
    labels = [
        label
        for case in doc.cases
        for metric in case.metrics
        if metric.kind == "judge" and not metric.name.startswith(RUBRIC_PREFIX)
        for run in case.runs
        for label in _turn_labels(case, run, metric, doc.app_details)
    ]
    return JudgeLabelsFile(labels=labels)

"""``adk-eval-gate label RESULTS``: a labels file from a run's judged turns, for people to confirm.

Each turn a judge metric scored becomes a label with the judge's verdict filled in as a suggestion (valid or
invalid for a 0/1 verdict, else the score) and ``confirmed: false``: a suggestion never counts until a person
confirms it (or flips it and confirms it). Rubric metrics judge several rubrics per turn and are left to label by
hand (their rubric's text is not in results.json per turn)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pydantic

from adk_eval_gate.inputs import formats
from adk_eval_gate.inputs.saved_results import load_results
from adk_eval_gate.model.evalset import Invocation
from adk_eval_gate.model.judge_labels import JudgeLabel, JudgeLabelsFile, dumped
from adk_eval_gate.model.results import CaseResult, MetricResult, ResultsDocument, RunRecord
from adk_eval_gate.support.atomic import write_atomically
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.words import plural

DEFAULT_OUTPUT = f"suggested{formats.JUDGE_LABELS.suffixes[0]}"
_RUBRIC_PREFIX = "rubric_based_"


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
        if actual is None:
            continue
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
        if metric.kind == "judge" and not metric.name.startswith(_RUBRIC_PREFIX)
        for run in case.runs
        for label in _turn_labels(case, run, metric, doc.app_details)
    ]
    return JudgeLabelsFile(labels=labels)


def label_command(console: Console, *, results_file: str, output: str | None) -> int:
    doc = load_results(Path(results_file))
    labels = suggested_labels(doc)
    if not labels.labels:
        raise UsageError(
            f"{results_file} has no turn a judge metric scored", hint="run with an LLM judge metric in the criteria"
        )
    target = Path(output or DEFAULT_OUTPUT)
    if not write_atomically(target, dumped(labels)):
        raise UsageError(f"cannot write {target}", field="output")
    console.line(
        f"wrote {target}: {plural(len(labels.labels), 'suggested label')}, none confirmed: check each, flip the "
        'ones the judge got wrong, and set "confirmed": true'
    )
    return 0

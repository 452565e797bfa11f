"""Each labelled judge metric's judge run on its human labels, exactly as ``run`` runs it (the same configured
metric, its criterion, judge model, prompt and samples, through the run's ``MetricServices``: the same cache,
limits and providers), and its agreement with them (``support/agreement.py``). No agent runs: a label carries the
judged invocation.

A judge's verdict is put on the labels' scale before it is compared: for a rubric metric, the verdict on the
label's rubric; else the invocation's score; snapped to the nearest value the labels of that metric use (a
valid/invalid label: 0 or 1, so a share of supported sentences of 0.8 counts as valid). A label the judge gives no
verdict on is counted apart (``unjudged``), never as a disagreement.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from adk_eval_gate import __version__
from adk_eval_gate.inputs.labels_files import LoadedLabels, judged_key
from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, MetricServices
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.metrics.score import evaluate_metric
from adk_eval_gate.model.evalset import EvalCase, Invocation, Rubric, RubricContent, content_text
from adk_eval_gate.model.judge_labels import JudgeLabel
from adk_eval_gate.model.platform_cases import CASE_KEY, PlatformEvalCase, ResponseCandidate
from adk_eval_gate.model.results import CalibrationDocument, Disagreement, JudgeCalibration
from adk_eval_gate.support.agreement import agreement
from adk_eval_gate.support.words import plural

LABEL_RUBRIC_ID = "labelled_rubric"
DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"  # ADK's default judge


@dataclass(frozen=True)
class Labelled:
    """One confirmed label with where it is."""

    label: JudgeLabel
    file: str
    line: int | None


@dataclass(frozen=True)
class Verdict:
    value: float | None  # the judge's verdict on the label's scale; None: it gave none
    consistency: float | None  # the share of its samples that agreed with its majority, when known


def judge_model(configured: ConfiguredMetric) -> str:
    options = configured.judge_options
    return options.judge_model if options is not None else DEFAULT_JUDGE_MODEL


def fingerprint(configured: ConfiguredMetric, labelled: Sequence[Labelled]) -> str:
    """A hash of what the calibration depends on: the gate's version (its built-in prompts), the judge model, the
    metric's criterion or definition (its sampling, rubrics and prompt template), and the labels."""
    judge = [
        __version__,
        configured.name,
        judge_model(configured),
        configured.criterion.model_dump(mode="json") if configured.criterion else None,
        configured.definition.model_dump(mode="json") if configured.definition else None,
        sorted([judged_key(item.label), item.label.value] for item in labelled),
    ]
    return hashlib.sha256(json.dumps(judge, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _label_run(label: JudgeLabel, *, rubric_type: str | None = None) -> CaseRun:
    """The case run a label stands for: its invocation judged against its expected one (or, for a metric that reads
    none, its user's turn alone), with the label's rubric as the invocation's only rubric, of the metric's rubric
    type (a rubric metric judges only the invocation rubrics of its own type)."""
    actual = label.invocation
    if label.rubric is not None:
        content = RubricContent(text_property=label.rubric)
        rubric = Rubric(rubric_id=LABEL_RUBRIC_ID, rubric_content=content, type=rubric_type)
        actual = actual.model_copy(update={"rubrics": [rubric]})
    expected = label.expected_invocation or Invocation(user_content=label.invocation.user_content)
    case = EvalCase.model_validate(
        {"eval_id": label.case or "label", "conversation": [expected], CASE_KEY: _platform_case(label)}
    )
    return CaseRun(eval_case=case, actual=[actual], expected=[expected], scenario=None)


def _platform_case(label: JudgeLabel) -> dict[str, Any]:
    """The label as an Agent Platform dataset case with a recorded response, as agents-cli's judges read one."""
    reference = label.expected_invocation.final_response if label.expected_invocation else None
    case = PlatformEvalCase(
        prompt=label.invocation.user_content,
        responses=[ResponseCandidate(response=label.invocation.final_response)]
        if label.invocation.final_response
        else None,
        reference=ResponseCandidate(response=reference) if reference else None,
        eval_case_id=label.case,
    )
    return case.model_dump(mode="json", exclude_none=True)


def _verdict(outcome: MetricOutcome, label: JudgeLabel) -> Verdict:
    turn = outcome.per_invocation[0] if outcome.per_invocation else None
    if label.rubric is not None:
        scores = (turn.rubric_scores if turn else None) or outcome.rubric_scores or []
        value = next((s.score for s in scores if s.rubric_id == LABEL_RUBRIC_ID), None)
    else:
        value = turn.score if turn is not None and turn.score is not None else outcome.score
    votes = (outcome.details or {}).get("votes")
    counted = votes[0] if isinstance(votes, list) and votes and isinstance(votes[0], dict) else {}
    asked = sum(n for n in counted.values() if isinstance(n, int))
    consistency = max(counted.get("yes", 0), counted.get("no", 0)) / asked if asked else None
    return Verdict(value, consistency)


def _snapped(value: float, scale: Sequence[float]) -> float:
    return min(scale, key=lambda category: (abs(category - value), category))


async def judged(metric: Metric, labelled: Sequence[Labelled]) -> list[Verdict]:
    rubric_type = getattr(metric, "rubric_type", None) or None  # the rubric metrics' own (metrics/rubric_metrics.py)
    runs = [_label_run(item.label, rubric_type=rubric_type) for item in labelled]
    return [_verdict(await evaluate_metric(metric, run), item.label) for run, item in zip(runs, labelled, strict=True)]


def _calibration_of(
    configured: ConfiguredMetric,
    labelled: Sequence[Labelled],
    verdicts: Sequence[Verdict],
    *,
    mask: Callable[[str], str],
) -> JudgeCalibration:
    """The metric's agreement with its labels from the judge's ``verdicts`` (``judged``)."""
    scale = sorted({0.0, 1.0} if all(i.label.binary for i in labelled) else {i.label.value for i in labelled})
    pairs, disagreements = [], []
    for item, verdict in zip(labelled, verdicts, strict=True):
        if verdict.value is None:
            continue
        judge = _snapped(verdict.value, scale)
        pairs.append((item.label.value, judge))
        if judge != item.label.value:
            disagreements.append(_disagreement(item, judge, mask=mask))
    found = agreement(pairs, categories=scale, ordinal=len(scale) > 2)
    consistent = [v.consistency for v in verdicts if v.consistency is not None]
    return JudgeCalibration(
        metric=configured.name,
        judge_model=judge_model(configured),
        fingerprint=fingerprint(configured, labelled),
        labels=found.labels,
        unjudged=len(labelled) - found.labels,
        agreement=found.agreement,
        kappa=found.kappa,
        kappa_interval=found.interval,
        weighted=found.weighted,
        categories=list(found.categories),
        base_rate=list(found.first_rates),
        judge_rate=list(found.second_rates),
        confusion=[list(row) for row in found.confusion],
        self_consistency=sum(consistent) / len(consistent) if consistent else None,
        disagreements=disagreements,
    )


def _disagreement(item: Labelled, judge: float, *, mask: Callable[[str], str]) -> Disagreement:
    label = item.label
    return Disagreement(
        file=item.file,
        line=item.line,
        case=mask(label.case) if label.case else None,
        rubric=mask(label.rubric) if label.rubric else None,
        user=mask(content_text(label.invocation.user_content)),
        response=mask(content_text(label.invocation.final_response)),
        human=label.value,
        judge=judge,
    )


def _labelled_by_metric(files: Sequence[LoadedLabels]) -> dict[str, list[Labelled]]:
    """The confirmed labels of every file by metric, each judged invocation once (agreeing duplicates)."""
    by_metric: dict[str, dict[str, Labelled]] = {}
    for loaded in files:
        for label, line in loaded.confirmed:
            by_metric.setdefault(label.metric, {}).setdefault(judged_key(label), Labelled(label, loaded.display, line))
    return {metric: list(labels.values()) for metric, labels in by_metric.items()}


async def calibrate(
    files: Sequence[LoadedLabels],
    *,
    in_use: dict[str, ConfiguredMetric],
    services: MetricServices,
    mask: Callable[[str], str],
    cached: Callable[[str], JudgeCalibration | None] = lambda _: None,
) -> CalibrationDocument:
    """Every judge metric in use (``in_use``) calibrated on its confirmed labels (one with none: 0 labels), or
    taken from ``cached`` (by fingerprint) when it was calibrated before; the labels of a metric not in use are
    noted, not judged."""
    by_metric = _labelled_by_metric(files)
    notes = [
        f"{plural(len(labels), 'label')} of {metric}: no eval file's config uses it, so they were not judged"
        for metric, labels in by_metric.items()
        if metric not in in_use
    ]
    calibrations = []
    for name, configured in in_use.items():
        labelled = by_metric.get(name, [])
        kept = cached(fingerprint(configured, labelled))
        if kept is None:
            verdicts = await judged(configured.build(services), labelled)
            kept = _calibration_of(configured, labelled, verdicts, mask=mask)
        calibrations.append(kept)
    return CalibrationDocument(metrics=calibrations, notes=[mask(note) for note in notes])

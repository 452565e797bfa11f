"""``adk-eval-gate calibrate``: each judge metric in use run on its human labels exactly as ``run`` runs it, and its
agreement with them written to ``calibration.json`` and ``calibration.md``. ``run`` calibrates the same way first
(``calibrated_judges``) when labels are present, and a judge metric that has not earned its gate does not gate.

A calibration is kept in the cache folder (``--cache-dir``) under its fingerprint (the judge's model, prompt,
sampling and the labels): an unchanged judge on unchanged labels is not asked again."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pydantic

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.labels_files import LoadedLabels, labels_files, load_labels
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.inputs.prepare import prepare, repository_root
from adk_eval_gate.judge.service import JudgeCounters
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.model.results import CalibrationDocument, CalibrationJudgeStats, JudgeCalibration
from adk_eval_gate.model.tokens import Tokens
from adk_eval_gate.report.judge_lines import calibration_markdown, judge_line
from adk_eval_gate.runners import label_judging
from adk_eval_gate.runners.services import build_services, judge_metric_names
from adk_eval_gate.support.atomic import read_regular, write_atomically
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError, UsageError
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict import Policy, earned_gate, ungated_reasons

CALIBRATION_FILE = "calibration.json"
_MAX_CACHED_BYTES = 16 * 1024 * 1024


def loaded_labels(settings: Settings, console: Console) -> tuple[list[LoadedLabels], int]:
    """The labels files of the run (``--judge-labels``, else those found under the paths) and how many could not be
    used (each said in one line; the others are used)."""
    loaded, bad = [], 0
    root = repository_root(settings)
    found = labels_files(settings.search_paths, given=settings.judge_labels, root=root)
    for path, display in found:
        try:
            loaded.append(load_labels(path, display=display, root=root))
        except GateError as error:
            bad += 1
            for problem in error.every_problem():
                console.error(console.mask(problem.one_line()), file=problem.file, line=problem.line)
    return loaded, bad


def _judge_metrics_in_use(planned: list[PlannedFile]) -> dict[str, ConfiguredMetric]:
    """Each judge metric the gate's judge scores, by name, as the first file configures it."""
    names = set(judge_metric_names(planned))
    in_use: dict[str, ConfiguredMetric] = {}
    for file in planned:
        for configured in file.config.metrics:
            if configured.name in names:
                in_use.setdefault(configured.name, configured)
    return in_use


def _cached(cache_dir: Path | None, fingerprint: str) -> JudgeCalibration | None:
    if cache_dir is None:
        return None
    data = read_regular(cache_dir / "calibrations" / f"{fingerprint}.json", max_bytes=_MAX_CACHED_BYTES)
    if isinstance(data, str):
        return None
    try:
        return JudgeCalibration.model_validate_json(data)
    except pydantic.ValidationError:
        return None


def _keep(cache_dir: Path | None, document: CalibrationDocument) -> None:
    if cache_dir is None:
        return
    for made in document.metrics:
        write_atomically(cache_dir / "calibrations" / f"{made.fingerprint}.json", made.model_dump_json())


@dataclasses.dataclass(frozen=True)
class Calibrated:
    """The judges' calibration, and what it asked of them (apart from the evaluation's judge figures): the counts,
    and each answered call's tokens for its cost."""

    document: CalibrationDocument
    spend: CalibrationJudgeStats
    calls: list[Tokens]


def calibrated_judges(
    settings: Settings, console: Console, *, planned: list[PlannedFile], labels: list[LoadedLabels]
) -> Calibrated:
    """Every judge metric in use calibrated on the labels (as ``run`` scores it: its configured metric, with
    services of its own built as ``run`` builds them, in a loop of their own, so its calls are counted apart), each
    with whether it gates under the options."""
    reused: list[str] = []

    def cached(fingerprint: str) -> JudgeCalibration | None:
        found = _cached(settings.cache_dir, fingerprint)
        if found is not None:
            reused.append(fingerprint)
        return found

    async def calibrated() -> tuple[CalibrationDocument, JudgeCounters | None]:
        services = build_services(settings, planned, console)
        try:
            document = await label_judging.calibrate(
                labels, in_use=_judge_metrics_in_use(planned), services=services, mask=console.mask, cached=cached
            )
            return document, services.judge.counters if services.judge else None
        finally:
            await services.aclose()

    document, counters = asyncio.run(calibrated())
    _keep(settings.cache_dir, document)
    policy = Policy.of(settings)
    spend = _spend(counters, calibrated=len(document.metrics) - len(reused), reused=len(reused))
    console.line(_spend_line(spend))
    return Calibrated(
        document.model_copy(update={"metrics": [earned_gate(made, policy) for made in document.metrics]}),
        spend,
        list(counters.model_calls) if counters else [],
    )


def _spend(counters: JudgeCounters | None, *, calibrated: int, reused: int) -> CalibrationJudgeStats:
    counted = (
        {}
        if counters is None
        else {
            "calls": counters.calls,
            "cached": counters.cached,
            "failed": counters.failed,
            "input_tokens": counters.input_tokens,
            "output_tokens": counters.output_tokens,
            "implausible_counts": counters.implausible_counts,
        }
    )
    return CalibrationJudgeStats(calibrated=calibrated, reused=reused, **counted)


def _spend_line(spend: CalibrationJudgeStats) -> str:
    reused = (
        f"{plural(spend.reused, 'judge')} unchanged since {'its' if spend.reused == 1 else 'their'} last calibration, "
        "taken from the cache"
        if spend.reused
        else ""
    )
    if not spend.calibrated:
        return f"Judge calibration: {reused or 'no judge metric in use'}, no judge calls"
    asked = (
        f"{spend.calls} calls, {spend.cached} cached, {spend.failed} failed, {spend.input_tokens} input / "
        f"{spend.output_tokens} output tokens (not counted in the evaluation's judge figures)"
    )
    return f"Judge calibration: {asked}" + (f"; {reused}" if reused else "")


def gate_judges(planned: list[PlannedFile], document: CalibrationDocument, settings: Settings) -> None:
    """Marks each configured judge metric that has not earned its gate (its cases decide it informational)."""
    reasons = ungated_reasons(document.metrics)
    for file in planned:
        file.config.metrics[:] = [
            dataclasses.replace(
                configured,
                uncalibrated=reasons[configured.name],
                calibration_required=settings.require_calibrated_judges,
            )
            if configured.name in reasons
            else configured
            for configured in file.config.metrics
        ]


def calibrate_command(settings: Settings, console: Console) -> int:
    prepared = prepare(settings, console, import_functions=False)
    for error in prepared.errors:
        console.error(error.one_line(), file=error.file, line=error.line)
    labels, bad = loaded_labels(settings, console)
    if not labels and not bad:
        raise UsageError("no labels files (*.labels.json) found", field="judge-labels", hint="give --judge-labels FILE")
    document = calibrated_judges(settings, console, planned=prepared.planned, labels=labels).document
    settings.output_dir.mkdir(parents=True, exist_ok=True)
    (settings.output_dir / CALIBRATION_FILE).write_text(document.model_dump_json(indent=2) + "\n", encoding="utf-8")
    (settings.output_dir / "calibration.md").write_text(calibration_markdown(document), encoding="utf-8")
    for made in document.metrics:
        console.line(judge_line(made))
    for note in document.notes:
        console.line(f"note {note}")
    console.line(f"wrote {settings.output_dir / CALIBRATION_FILE}")
    return 2 if bad or prepared.errors else 0

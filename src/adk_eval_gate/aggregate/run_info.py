"""What a run ran with, as results.json records it: the run's settings with the verdict's policy (``run_info``),
each metric's judge (``judge_settings``) and each file's criteria digests (``with_digests``). The comparison reads
them to tell whether head's and base's scores are like for like (``compare.likeforlike``); ``--only-affected``
reads them to tell whether a case's inputs changed (``selection.affected``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from importlib import metadata
from typing import Any

from adk_eval_gate import __version__
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.judge import platform_access
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.model.results import AffectedRun, ComputedBy, FileResult, JudgeSetting, RunInfo, ServedAgent
from adk_eval_gate.verdict import Policy


def _digest(value: Any) -> str:
    encoded = json.dumps(value, sort_keys=True, default=str, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


def criteria_digests(metrics: Iterable[ConfiguredMetric]) -> tuple[str, dict[str, str]]:
    """The digest of a file's criteria (thresholds included), and per metric that of its criterion without the
    threshold (what changes its scores); an agents-cli metric's definition (its code, template, judge or
    parameters) counts as its criterion."""
    graded = [metric for metric in metrics if metric.criterion is not None or metric.definition is not None]
    whole = _digest(
        [[m.name, m.criterion.model_dump(mode="json") if m.criterion else None, *_defined(m)] for m in graded]
    )
    per_metric = {
        m.name: _digest(
            [m.criterion.model_dump(mode="json", exclude={"threshold"}) if m.criterion else None, *_defined(m)]
        )
        for m in graded
    }
    return whole, per_metric


def _defined(metric: ConfiguredMetric) -> list[Any]:
    """An agents-cli metric's definition as data (nothing for the others, so their digests stay as they were)."""
    return [metric.definition.model_dump(mode="json")] if metric.definition is not None else []


SERVICE_MODEL = "Google's evaluation service"


def judge_settings(metrics: Iterable[ConfiguredMetric], *, service: bool = False) -> dict[str, JudgeSetting]:
    """Per judge metric, its judge model and sampling (the first file's, when files configure it differently:
    their criteria digests tell those apart); for ADK's service-backed metrics also who computes them (``service``:
    Google's evaluation service, whose model and sampling are its own)."""
    settings: dict[str, JudgeSetting] = {}
    for metric in metrics:
        options = metric.judge_options
        if metric.spec.kind != "judge" or options is None or metric.name in settings:
            continue
        computed_by = _computed_by(metric.name, service=service)
        if computed_by == platform_access.AGENT_PLATFORM:
            settings[metric.name] = JudgeSetting(
                model=SERVICE_MODEL, sampling="the service's", provider=computed_by, computed_by=computed_by
            )
            continue
        config = options.judge_model_config
        sampled = config.model_dump(mode="json", exclude_none=True, exclude={"http_options"}) if config else {}
        parts = [f"{options.num_samples} sample{'s' if options.num_samples != 1 else ''}"]
        parts += [f"{key} {json.dumps(value, sort_keys=True)}" for key, value in sorted(sampled.items())]
        settings[metric.name] = JudgeSetting(
            model=options.judge_model,
            sampling=", ".join(parts),
            provider=judge_provider(options.judge_model),
            computed_by=computed_by,
        )
    return settings


def _computed_by(name: str, *, service: bool) -> ComputedBy | None:
    if name not in platform_access.SERVICE_METRICS:
        return None
    return platform_access.AGENT_PLATFORM if service else platform_access.GATE_JUDGE


def judge_provider(model: str) -> str | None:
    """How the judge model is reached here (``judge.model_classes``); None when it cannot be (the run says why)."""
    from adk_eval_gate.judge.model_classes import ModelUnavailable, resolve_model

    try:
        return resolve_model(model).provider
    except ModelUnavailable:
        return None


def adk_version() -> str | None:
    try:
        return metadata.version("google-adk")
    except metadata.PackageNotFoundError:
        return None


def with_digests(files: list[FileResult], planned: list[PlannedFile]) -> list[FileResult]:
    """The file results with the digests of their criteria."""
    digests = {p.loaded.display: criteria_digests(p.config.metrics) for p in planned}
    return [
        file.model_copy(update={"criteria_digest": digests[file.path][0], "metric_digests": digests[file.path][1]})
        if file.path in digests
        else file
        for file in files
    ]


def run_info(  # parameters: one keyword per field of results.json's RunInfo the run knows only at its end
    settings: Settings,
    *,
    started_at: str | None,
    duration: float | None = None,
    interrupted: bool = False,
    unfinished: list[str] | None = None,
    selection: str | None = None,
    planned: list[PlannedFile] | None = None,
    commit: str | None = None,
    environment_inputs: list[str] | None = None,
    affected: AffectedRun | None = None,
    served_agent: ServedAgent | None = None,
) -> RunInfo:
    """The run's settings as results.json records them, with the verdict's policy. ``commit``: the commit the run
    evaluated when known beyond ``GITHUB_SHA`` (``selection.only_affected.Inputs``); ``environment_inputs``: what the
    environment depends on; ``affected``: what ``--only-affected`` ran; ``served_agent``: the agent a remote runner
    reached (the a2a runner's agent card)."""
    metrics = [metric for planned_file in planned or [] for metric in planned_file.config.metrics]
    info = RunInfo(
        tool_version=__version__,
        runner=settings.runner,
        num_runs=max([settings.num_runs, *(file.num_runs or 0 for file in planned or [])]),
        shard=str(settings.shard) if settings.shard else None,
        selection=selection,
        gate_id=settings.gate_id,
        confirm_failures=settings.confirm_failures,
        adk_version=adk_version() if settings.runner_kind.needs_agent and planned else None,
        served_agent=served_agent,
        judges=judge_settings(metrics, service=platform_access.choose(settings.environment).service),
        started_at=started_at,
        duration_seconds=round(duration, 3) if duration is not None else None,
        repository=settings.github.repository,
        sha=commit or settings.github.sha,
        ref=settings.github.ref,
        run_url=settings.github.run_url,
        pull_request=settings.github.pull_request_number,
        interrupted=interrupted,
        unfinished=unfinished or [],
        environment_inputs=environment_inputs or [],
        affected=affected,
        run_attempt=settings.github.attempt if settings.sequential else None,
    )
    return Policy.of(settings).record(info)

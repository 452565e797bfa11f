"""Build the shared services the configured metrics need (the LLM judge for judge metrics), and report
what the judge did at the end of a run."""

from __future__ import annotations

from adk_eval_gate.console import Console
from adk_eval_gate.metrics.base import MetricServices
from adk_eval_gate.plan import PlannedFile
from adk_eval_gate.results import JudgeStats
from adk_eval_gate.settings import Settings


def judge_metric_names(planned: list[PlannedFile]) -> list[str]:
    names: dict[str, None] = {}
    for planned_file in planned:
        for configured in planned_file.config.metrics:
            if configured.spec.kind == "judge":
                names[configured.name] = None
    return list(names)


def build_services(settings: Settings, planned: list[PlannedFile], console: Console) -> MetricServices:
    names = judge_metric_names(planned)
    if not names:
        return MetricServices()
    from adk_eval_gate.judge.cache import JudgeCache
    from adk_eval_gate.judge.client import GeminiJudge
    from adk_eval_gate.judge.credentials import MissingCredentials, resolve_credentials
    from adk_eval_gate.judge.service import JudgeService

    try:
        credentials = resolve_credentials(settings.environment)
    except MissingCredentials as missing:
        console.warning(f"{', '.join(names)} will not be evaluated: {missing}")
        return MetricServices(judge=JudgeService(backend=None, unavailable=str(missing)))
    if credentials.api_key:
        console.add_secret(credentials.api_key)
    backend = GeminiJudge(credentials)
    try:
        if credentials.vertexai and credentials.project:
            backend.make_client().close()  # fails now, not once per case, when there are no Google credentials
    except Exception as error:
        reason = f"the LLM judge client could not be set up ({credentials.describe()}): {error}"
        console.warning(f"{', '.join(names)} will not be evaluated: {reason}")
        return MetricServices(judge=JudgeService(backend=None, unavailable=reason))
    cache = JudgeCache(settings.cache_dir, warn=console.warning) if settings.cache_dir else None
    console.line(
        f"LLM judge: {credentials.describe()}, at most {settings.judge_parallelism} calls at once"
        + (f", cache {settings.cache_dir}" if settings.cache_dir else "")
    )
    judge = JudgeService(
        backend=backend, parallelism=settings.judge_parallelism, cache=cache, description=credentials.describe()
    )
    return MetricServices(judge=judge)


def finish_judge(services: MetricServices, console: Console) -> JudgeStats | None:
    """The judge's counters for results.json, and one console line; None when the run had no judge metric."""
    judge = services.judge
    if judge is None:
        return None
    counters = judge.counters
    if judge.backend is None:
        console.line(f"LLM judge: not available ({judge.unavailable})")
    else:
        console.line(
            f"LLM judge: {counters.calls} calls, {counters.cached} cached, {counters.failed} failed, "
            f"{counters.retries} retries, {counters.input_tokens} input / {counters.output_tokens} output tokens"
        )
    return JudgeStats(
        calls=counters.calls,
        cached=counters.cached,
        failed=counters.failed,
        input_tokens=counters.input_tokens,
        output_tokens=counters.output_tokens,
    )

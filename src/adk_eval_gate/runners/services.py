"""Build the shared services the configured metrics need (the LLM judge for judge metrics), and report
what the judge did at the end of a run.

Each judge model is reached the way ADK resolves it (``judge.model_classes``): Gemini through google-genai with the
Gemini or Vertex AI credentials, every other model through ADK's model class and the provider's own environment
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...). A judge or user simulator model whose package is missing stops
the run before any agent runs (``UsageError``); ``validate`` reports the same problems.

ADK's service-backed metrics (``judge.platform_access.SERVICE_METRICS``) go to Google's evaluation service when a
Google Cloud project is configured and Google's SDK is installed (``services.platform``); they then need no judge.
"""

from __future__ import annotations

from typing import Any

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.judge import platform_access
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.model.results import JudgeStats
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError


def _judged(configured: Any, service: bool) -> bool:
    """Whether the gate's judge scores this metric (not when the evaluation service computes it)."""
    computed = service and configured.definition is None and configured.name in platform_access.SERVICE_METRICS
    return bool(configured.spec.kind == "judge" and not computed)


def judge_metric_names(planned: list[PlannedFile], *, service: bool = False) -> list[str]:
    names: dict[str, None] = {}
    for planned_file in planned:
        for configured in planned_file.config.metrics:
            if _judged(configured, service):
                names[configured.name] = None
    return list(names)


def _service_metric_names(planned: list[PlannedFile]) -> list[str]:
    names = (configured.name for file in planned for configured in file.config.metrics)
    return list(dict.fromkeys(name for name in names if name in platform_access.SERVICE_METRICS))


def _judge_model(criterion: Any) -> str:
    options = getattr(criterion, "judge_model_options", None)
    if isinstance(options, dict):
        options = options.get("judge_model") or options.get("judgeModel")
    else:
        options = getattr(options, "judge_model", None)
    return options if isinstance(options, str) and options else "gemini-2.5-flash"  # ADK's default judge


def judge_models(planned: list[PlannedFile], *, service: bool = False) -> dict[str, list[str]]:
    """Each judge model of the run, with the judge metrics that use it (``service``: not those the evaluation
    service computes; never agents-cli's built-in metrics, which only the service computes)."""
    models: dict[str, dict[str, None]] = {}
    for planned_file in planned:
        for configured in planned_file.config.metrics:
            options = configured.judge_options
            if not _judged(configured, service) or (configured.definition is not None and options is None):
                continue
            model = options.judge_model if options is not None else _judge_model(configured.criterion)
            models.setdefault(model, {})[configured.name] = None
    return {model: list(names) for model, names in models.items()}


def model_problems(planned_file: PlannedFile, *, service: bool = False) -> list[str]:
    """Why a judge model or the user simulator's model of this file cannot be used here (missing packages)."""
    from adk_eval_gate.judge.model_classes import check_model

    problems = [check_model(model, role="judge model") for model in judge_models([planned_file], service=service)]
    simulator = planned_file.config.config.user_simulator_config
    if simulator is not None and any(case.conversation_scenario for case in planned_file.loaded.eval_set.eval_cases):
        problems.append(check_model(simulator.model, role="user simulator model"))
    return list(dict.fromkeys(problem for problem in problems if problem))


def build_services(settings: Settings, planned: list[PlannedFile], console: Console) -> MetricServices:
    choice = platform_access.choose(settings.environment)
    problems = [problem for file in planned for problem in model_problems(file, service=choice.service)]
    if problems:
        raise UsageError(problems[0], hint=f"and {len(problems) - 1} more" if len(problems) > 1 else None)
    platform = _platform_service(settings, _service_metric_names(planned), choice, console)
    models = judge_models(planned, service=platform is not None)
    functions = _function_processes(settings, planned, console)
    judge = _judge_service(settings, models, console) if models else None
    return MetricServices(
        judge=judge, platform=platform, functions=functions, lenient_labels=settings.lenient_judge_labels
    )


def _platform_service(settings: Settings, names: list[str], choice: platform_access.Choice, console: Console) -> Any:
    """Google's evaluation service when the run chose it (also for files planned later, as pytest plans them), or
    None (then the gate's judge scores ADK's service-backed metrics); for the run's such metrics one line says
    which, and why. Nothing is imported or asked here."""
    if not choice.service or choice.access is None:
        if names:
            console.line(
                f"{', '.join(names)}: computed by the gate's own judge, not by Google's evaluation service as ADK "
                f"does: {choice.reason}"
            )
        return None
    from adk_eval_gate.judge.platform_service import PlatformService

    access = choice.access
    if access.api_key:
        console.add_secret(access.api_key)
    service = PlatformService(access=access, parallelism=settings.judge_parallelism, mask=console.mask)
    if names and access.problem:
        console.warning(f"{', '.join(names)} will not be evaluated: {access.problem}")
    elif names:
        console.line(f"{', '.join(names)}: computed by {service.describe()}, as ADK computes them")
    return service


def _function_processes(settings: Settings, planned: list[PlannedFile], console: Console) -> Any:
    """Where agents-cli's metric code runs (``runners/workers/function_process.py``), when a file has such a metric; the
    secrets of the ``.env`` files it loads are masked."""
    from adk_eval_gate.model.agents_cli_config import FunctionDefinition

    definitions = [
        configured.definition
        for planned_file in planned
        for configured in planned_file.config.metrics
        if isinstance(configured.definition, FunctionDefinition)
    ]
    if not definitions:
        return None
    from adk_eval_gate.runners.workers.function_process import FunctionProcesses, env_secrets

    for env_file in {definition.env_file for definition in definitions if definition.env_file}:
        for secret in env_secrets(env_file):
            console.add_secret(secret)
    return FunctionProcesses(timeout=settings.timeout, parallelism=settings.parallelism, on_output=console.line)


def _gemini_backend(settings: Settings, gemini_metrics: list[str], console: Console) -> tuple[Any, str | None]:
    """The google-genai judge, or None and why (said once, naming the metrics it leaves unevaluated)."""
    from adk_eval_gate.judge.credentials import MissingCredentials, resolve_credentials
    from adk_eval_gate.judge.gemini_client import GeminiJudge

    try:
        credentials = resolve_credentials(settings.environment)
    except MissingCredentials as missing:
        console.warning(f"{', '.join(gemini_metrics)} will not be evaluated: {missing}")
        return None, str(missing)
    if credentials.api_key:
        console.add_secret(credentials.api_key)
    backend = GeminiJudge(credentials)
    try:
        if credentials.vertexai and credentials.project:
            backend.make_client().close()  # fails now, not once per case, when there are no Google credentials
    except Exception as error:
        reason = f"the LLM judge client could not be set up ({credentials.describe()}): {error}"
        console.warning(f"{', '.join(gemini_metrics)} will not be evaluated: {reason}")
        return None, reason
    return backend, None


def _judge_service(settings: Settings, models: dict[str, list[str]], console: Console) -> Any:
    from adk_eval_gate.judge.cache import JudgeCache
    from adk_eval_gate.judge.model_classes import resolve_model
    from adk_eval_gate.judge.service import JudgeService

    routes = {model: resolve_model(model) for model in models}
    gemini_metrics = list(
        dict.fromkeys(name for model, names in models.items() if routes[model].gemini for name in names)
    )
    others = sorted({f"{model} ({route.provider})" for model, route in routes.items() if not route.gemini})
    gemini, unavailable = _gemini_backend(settings, gemini_metrics, console) if gemini_metrics else (None, None)
    if others:
        from adk_eval_gate.judge.adk_models import AdkModelJudge
        from adk_eval_gate.judge.routing import RoutedJudge

        backend: Any = RoutedJudge(gemini=gemini, gemini_unavailable=unavailable, adk=AdkModelJudge())
    elif gemini is None:
        return JudgeService(backend=None, unavailable=unavailable)
    else:
        backend = gemini
    described = [gemini.credentials.describe()] if gemini is not None else []
    described += [f"{', '.join(others)} through ADK's model classes"] if others else []
    cache = JudgeCache(settings.cache_dir, warn=console.warning) if settings.cache_dir else None
    console.line(
        f"LLM judge: {'; '.join(described)}, at most {settings.judge_parallelism} calls at once"
        + (f", cache {settings.cache_dir}" if settings.cache_dir else "")
    )
    return JudgeService(
        backend=backend,
        parallelism=settings.judge_parallelism,
        cache=cache,
        description="; ".join(described),
        mask=console.mask,  # answers are masked before anything keeps them: the cache folder has no secrets
        warn=console.warning,
    )


def finish_judge(services: MetricServices, console: Console) -> JudgeStats | None:
    """The judge's counters for results.json, and one console line; None when the run had no judge metric."""
    if services.platform is not None and (services.platform.counters.calls or services.platform.counters.failed):
        sent = services.platform.counters
        console.line(
            f"Google's evaluation service: {sent.calls} requests, {sent.retries} retries, {sent.failed} failed"
        )
    judge = services.judge
    if judge is None:
        return None
    counters = judge.counters
    if judge.backend is None:
        console.line(f"LLM judge: not available ({judge.unavailable})")
    else:
        implausible = (
            f", {counters.implausible_counts} answers with impossible token counts (clamped)"
            if counters.implausible_counts
            else ""
        )
        console.line(
            f"LLM judge: {counters.calls} calls, {counters.cached} cached, {counters.failed} failed, "
            f"{counters.retries} retries, {counters.input_tokens} input / {counters.output_tokens} output tokens"
            + implausible
        )
    return JudgeStats(
        calls=counters.calls,
        cached=counters.cached,
        failed=counters.failed,
        input_tokens=counters.input_tokens,
        output_tokens=counters.output_tokens,
        implausible_counts=counters.implausible_counts,
    )

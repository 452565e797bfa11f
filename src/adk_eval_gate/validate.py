"""``adk-eval-gate validate``: load and check every eval file and config, and that each file has what ``run`` will
need: its agent (adk runner), the functions of its custom metrics, and the packages of its judge and user simulator
models. No agent runs, no service is called."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.console import Console
from adk_eval_gate.errors import GateError
from adk_eval_gate.metrics.base import NotEvaluated
from adk_eval_gate.metrics.custom import import_function
from adk_eval_gate.metrics.services import model_problems
from adk_eval_gate.plan import PlannedFile
from adk_eval_gate.prepare import prepare
from adk_eval_gate.report.sections import plural
from adk_eval_gate.runners.agents import find_agent, parse_agent_option
from adk_eval_gate.settings import Settings


def validate(settings: Settings, console: Console) -> int:
    prepared = prepare(settings, console)
    bad = len(prepared.errors)
    for planned in prepared.planned:
        loaded = planned.loaded
        for eval_id, row_error in loaded.row_errors.items():  # a dataset's bad rows, one line each
            console.error(row_error, file=loaded.display, line=loaded.case_lines.get(eval_id))
        problems = run_problems(planned, settings, root=prepared.root)
        for problem in problems:
            console.error(f"{loaded.display}: {problem}", file=loaded.display)
        if problems or loaded.row_errors:
            bad += 1
            continue
        file = next(f for f in prepared.files if f.path == planned.loaded.display)
        console.line(f"ok   {file.path}: {plural(file.cases, 'case')} ({file.format}), criteria from {file.config}")
    total = len(prepared.files)
    if bad:
        console.line(f"{bad} of {total} files have problems")
        return 2
    console.line(f"all {total} files are valid")
    return 0


def run_problems(planned: PlannedFile, settings: Settings, *, root: Path) -> list[str]:
    """What would stop ``run`` for this file: no agent for the adk runner (when a case needs one), a custom metric
    that does not import, a judge or user simulator model whose package is missing."""
    loaded = planned.loaded
    problems = []
    needs_agent = len(loaded.eval_set.eval_cases) > len(loaded.recorded) + len(loaded.row_errors)
    if settings.runner == "adk" and settings.agent:
        try:
            parse_agent_option(settings.agent, root=root)
        except GateError as error:
            problems.append(error.one_line())
    elif settings.runner == "adk" and needs_agent and find_agent(loaded.path, root=root) is None:
        problems.append(
            "no ADK agent folder found above it (a folder with __init__.py and agent.py): give one with --agent, "
            "or use --runner http or recorded"
        )
    for metric in planned.config.metrics:
        if metric.custom_function_path:
            try:
                import_function(metric.custom_function_path)
            except NotEvaluated as error:
                problems.append(f"custom metric {metric.name}: {error}")
    problems.extend(model_problems(planned))
    return problems

"""``adk-eval-gate validate``: load and check every eval file and config, and that each file has what ``run`` will
need: its agent (adk runner), imported in a worker process as ``run`` imports it, the functions of its custom
metrics, and the packages of its judge and user simulator models. No agent runs, no service is called."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.inputs.prepare import prepare
from adk_eval_gate.metrics.base import NotEvaluated
from adk_eval_gate.metrics.custom import import_function
from adk_eval_gate.runners.agents import AgentRef, find_agent, import_problems_in_worker, parse_agent_option
from adk_eval_gate.runners.services import model_problems
from adk_eval_gate.support.console import Console, relayed_output
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.support.words import plural


def validate(settings: Settings, console: Console) -> int:
    prepared = prepare(settings, console)
    bad = len(prepared.errors)
    agents = agent_problems(prepared.planned, settings, console=console, root=prepared.root)
    for planned in prepared.planned:
        loaded = planned.loaded
        for eval_id, row_error in loaded.row_errors.items():  # a dataset's bad rows, one line each
            console.error(row_error, file=loaded.display, line=loaded.case_lines.get(eval_id))
        with relayed_output(console):  # what custom metric modules print when imported
            problems = run_problems(planned, settings, root=prepared.root)
        agent = _agent_of(planned, settings, root=prepared.root)
        if agent is not None and agent in agents:
            problems.append(agents[agent])
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


def _needs_agent(planned: PlannedFile) -> bool:
    loaded = planned.loaded
    return len(loaded.eval_set.eval_cases) > len(loaded.recorded) + len(loaded.row_errors)


def _agent_of(planned: PlannedFile, settings: Settings, *, root: Path) -> AgentRef | None:
    """The agent ``run`` would import for the file (None: no runner that imports one, or none is found)."""
    if settings.runner != "adk" or not _needs_agent(planned):
        return None
    if not settings.agent:
        return find_agent(planned.loaded.path, root=root)
    try:
        return parse_agent_option(settings.agent, root=root)
    except GateError:
        return None  # run_problems reports it


def agent_problems(
    planned: list[PlannedFile], settings: Settings, *, console: Console, root: Path
) -> dict[AgentRef, str]:
    """Each agent that cannot be imported, reported once (at the line of its code that failed), and what the
    files that use it say about it."""
    refs = list(dict.fromkeys(ref for file in planned if (ref := _agent_of(file, settings, root=root)) is not None))
    if not refs:
        return {}
    from adk_eval_gate.runners.adk import AdkMissingError, require_adk

    try:
        require_adk()
    except AdkMissingError as missing:
        return dict.fromkeys(refs, missing.one_line())
    found = import_problems_in_worker(refs, root=root, on_output=console.line, timeout=settings.timeout)
    for problem in found.values():
        console.error(problem.one_line(), file=problem.source_file, line=problem.source_line)
    return {ref: problem.reason() for ref, problem in found.items()}


def run_problems(planned: PlannedFile, settings: Settings, *, root: Path) -> list[str]:
    """What would stop ``run`` for this file: no agent for the adk runner (when a case needs one), a custom metric
    that does not import, a judge or user simulator model whose package is missing."""
    loaded = planned.loaded
    problems = []
    if settings.runner == "adk" and settings.agent:
        try:
            parse_agent_option(settings.agent, root=root)
        except GateError as error:
            problems.append(error.one_line())
    elif settings.runner == "adk" and _needs_agent(planned) and find_agent(loaded.path, root=root) is None:
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
            except SystemExit as error:  # the module's own code at import: validate would end with its exit code
                problems.append(
                    f"custom metric {metric.name}: importing {metric.custom_function_path!r} called "
                    f"sys.exit({error.code!r}): a metric's module must not exit when it is imported"
                )
    problems.extend(model_problems(planned))
    return problems

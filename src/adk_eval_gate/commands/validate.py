"""``adk-eval-gate validate``: load and check every eval file and config, and that each file has what ``run`` will
need: its agent (adk runner) and the functions of its custom metrics, each imported in a process of its own as
``run``'s workers import the agents, and the packages of its judge and user simulator models. No agent runs, no
service is called. Code that ends its process or blocks when imported is a problem of its agent or metric, never
``validate``'s own end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.inputs.prepare import prepare
from adk_eval_gate.metrics.base import NotEvaluated
from adk_eval_gate.metrics.custom import import_function
from adk_eval_gate.runners.agents import AgentRef, find_agent, import_problems_in_worker, parse_agent_option
from adk_eval_gate.runners.services import model_problems
from adk_eval_gate.runners.worker_call import WorkerLost, call_in_worker
from adk_eval_gate.support.console import Console, relayed_output
from adk_eval_gate.support.errors import GateError, UnknownField
from adk_eval_gate.support.words import plural


def validate(settings: Settings, console: Console) -> int:
    prepared = prepare(settings, console, import_functions=False)
    bad = len(prepared.errors)
    agents = agent_problems(prepared.planned, settings, console=console, root=prepared.root)
    functions = function_problems(prepared.planned, console=console, timeout=settings.timeout)
    for planned in prepared.planned:
        loaded = planned.loaded
        for eval_id, row_error in loaded.row_errors.items():  # a dataset's bad rows, one line each
            console.error(row_error, file=loaded.display, line=loaded.case_lines.get(eval_id))
        with relayed_output(console):  # what the judge models' packages print when imported
            problems = run_problems(planned, settings, root=prepared.root, functions=functions)
        agent = _agent_of(planned, settings, root=prepared.root)
        if agent is not None and agent in agents:
            problems.append(agents[agent])
        problems += unknown_field_problems(planned, settings)
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


def unknown_field_problems(planned: PlannedFile, settings: Settings) -> list[str]:
    """The keys of the file and its config that ADK ignores, listed above as warnings: a problem unless expected.
    ADK goes on without them (a misspelt ``match_type`` scores the trajectory as EXACT), and so does ``run``."""
    unknown = [
        warning for warning in [*planned.config.warnings, *planned.loaded.warnings] if isinstance(warning, UnknownField)
    ]
    if not unknown or settings.allow_unknown_fields:
        return []
    return [
        f"{plural(len(unknown), 'key')} that ADK ignores (the warnings above): fix the spelling, or give "
        f"{settings.option_name('allow_unknown_fields')} when they are meant for another tool"
    ]


def function_problems(planned: list[PlannedFile], *, console: Console, timeout: float) -> dict[str, str]:
    """Why each custom metric function of the files (by its ``code_config.name``) cannot be imported, all of them
    imported in a process of their own (what they print goes through ``console``)."""
    paths = [
        path
        for path in dict.fromkeys(metric.custom_function_path for file in planned for metric in file.config.metrics)
        if path
    ]
    return _imported_in_worker(paths, on_output=console.line, timeout=timeout)


def _imported_in_worker(paths: list[str], *, on_output: Callable[[str], None], timeout: float) -> dict[str, str]:
    """A module that ends that process (``os._exit``, a crash, a signal) or does not finish importing within
    ``timeout`` seconds takes only the process with it: then each function is imported alone, to name the one."""
    if not paths:
        return {}
    try:
        return call_in_worker(
            lambda: {path: problem for path in paths if (problem := _import_problem(path))},
            on_output=on_output,
            timeout=timeout,
        )
    except WorkerLost as lost:
        if len(paths) == 1:
            return {paths[0]: f"importing {paths[0]!r}: {lost}: a metric's module must not end its process or block"}
    problems: dict[str, str] = {}
    for path in paths:
        problems.update(_imported_in_worker([path], on_output=on_output, timeout=timeout))
    return problems


def _import_problem(path: str) -> str | None:
    """Why the function does not import here (in the process of ``_imported_in_worker``), or None."""
    try:
        import_function(path)
    except NotEvaluated as error:
        return str(error)
    except SystemExit as error:  # the module's own code at import
        return (
            f"importing {path!r} called sys.exit({error.code!r}): a metric's module must not exit when it is imported"
        )
    except BaseException as error:  # KeyboardInterrupt and the like, raised by the module's own code
        return f"importing {path!r} raised {type(error).__name__}: {error}".removesuffix(": ")
    return None


def run_problems(planned: PlannedFile, settings: Settings, *, root: Path, functions: dict[str, str]) -> list[str]:
    """What would stop ``run`` for this file: no agent for the adk runner (when a case needs one), a custom metric
    whose function does not import (``functions``: why, by ``code_config.name``), a judge or user simulator model
    whose package is missing."""
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
        problem = functions.get(metric.custom_function_path or "")
        if problem:
            problems.append(f"custom metric {metric.name}: {problem}")
    problems.extend(model_problems(planned))
    return problems

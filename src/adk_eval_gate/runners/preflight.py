"""What would stop ``run`` for an eval file, checked without running anything (``validate``): its agent does not
import (each agent imported in a process of its own, as ``run``'s workers import it), a custom metric's function
does not import (the same), a judge or user simulator model's package is missing, keys ADK ignores. Code that ends
its process or blocks when imported is a problem of its agent or metric, never the check's own end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pydantic

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.agent_sources import AgentChoice, AgentRef
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.inputs.prepare import needs_agent
from adk_eval_gate.metrics.custom import import_function
from adk_eval_gate.metrics.metric import NotEvaluated
from adk_eval_gate.model.agents_cli_config import UnsupportedDefinition
from adk_eval_gate.runners.agents import import_problems_in_worker
from adk_eval_gate.runners.services import model_problems
from adk_eval_gate.runners.workers.forked_call import WorkerLost, call_in_worker
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UnknownField
from adk_eval_gate.support.words import plural


def agent_of(planned: PlannedFile, settings: Settings) -> AgentRef | None:
    """The agent ``run`` would import for the file (None: no runner that imports one, or none was found)."""
    if settings.runner != "adk" or not needs_agent(planned.loaded) or not isinstance(planned.agent, AgentChoice):
        return None
    return planned.agent.ref


def agent_problems(
    planned: list[PlannedFile], settings: Settings, *, console: Console, root: Path
) -> dict[AgentRef, str]:
    """Each agent that cannot be imported, reported once (at the line of its code that failed), and what the
    files that use it say about it."""
    refs = list(dict.fromkeys(ref for file in planned if (ref := agent_of(file, settings)) is not None))
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


_PROBLEMS = pydantic.TypeAdapter(dict[str, str])  # what the import process sends back: read as this, never unpickled


def _imported_in_worker(paths: list[str], *, on_output: Callable[[str], None], timeout: float) -> dict[str, str]:
    """A module that ends that process (``os._exit``, a crash, a signal) or does not finish importing within
    ``timeout`` seconds takes only the process with it: then each function is imported alone, to name the one."""
    if not paths:
        return {}
    try:
        return call_in_worker(
            lambda: {path: problem for path in paths if (problem := _import_problem(path))},
            answer=_PROBLEMS,
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


def run_problems(planned: PlannedFile, *, functions: dict[str, str]) -> list[str]:
    """What would stop ``run`` for this file besides its agent: a custom metric whose function does not import
    (``functions``: why, by ``code_config.name``), a judge or user simulator model whose package is missing."""
    problems = []
    for metric in planned.config.metrics:
        problem = functions.get(metric.custom_function_path or "")
        if problem:
            problems.append(f"custom metric {metric.name}: {problem}")
        if isinstance(metric.definition, UnsupportedDefinition):  # every case would leave it not evaluated
            problems.append(metric.definition.reason)
    problems.extend(model_problems(planned))
    return problems

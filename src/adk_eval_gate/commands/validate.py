"""``adk-eval-gate validate``: load and check every eval file and config, and that each file has what ``run`` will
need: its agent (adk runner), imported in a worker process as ``run`` imports it, the functions of its custom
metrics, and the packages of its judge and user simulator models. No agent runs, no service is called."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.agent_sources import AgentChoice, AgentRef, NoAgent
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.inputs.prepare import needs_agent, prepare
from adk_eval_gate.metrics.base import NotEvaluated
from adk_eval_gate.metrics.custom import import_function
from adk_eval_gate.runners.agents import import_problems_in_worker
from adk_eval_gate.runners.services import model_problems
from adk_eval_gate.support.console import Console, relayed_output
from adk_eval_gate.support.words import plural


def validate(settings: Settings, console: Console) -> int:
    prepared = prepare(settings, console)
    for skipped in prepared.locator.skipped_calls() if prepared.locator else []:
        console.line(f"note {skipped}: not used to find agents")
    bad = len(prepared.errors)
    agents = agent_problems(prepared.planned, settings, console=console, root=prepared.root)
    for planned in prepared.planned:
        loaded = planned.loaded
        for eval_id, row_error in loaded.row_errors.items():  # a dataset's bad rows, one line each
            console.error(row_error, file=loaded.display, line=loaded.case_lines.get(eval_id))
        with relayed_output(console):  # what custom metric modules print when imported
            problems = run_problems(planned, settings, root=prepared.root)
        agent = _agent_of(planned, settings)
        if agent is not None and agent in agents:
            problems.append(agents[agent])
        if isinstance(planned.agent, NoAgent) and settings.runner == "adk" and needs_agent(loaded):
            problems.insert(0, planned.agent.reason)
        for problem in problems:
            console.error(f"{loaded.display}: {problem}", file=loaded.display)
        if problems or loaded.row_errors:
            bad += 1
            continue
        file = next(f for f in prepared.files if f.path == planned.loaded.display)
        found = f", agent {file.agent}" if file.agent else ""
        console.line(
            f"ok   {file.path}: {plural(file.cases, 'case')} ({file.format}), criteria from {file.config}{found}"
        )
    total = len(prepared.files)
    if bad:
        console.line(f"{bad} of {total} files have problems")
        return 2
    console.line(f"all {total} files are valid")
    return 0


def _agent_of(planned: PlannedFile, settings: Settings) -> AgentRef | None:
    """The agent ``run`` would import for the file (None: no runner that imports one, or none was found)."""
    if settings.runner != "adk" or not needs_agent(planned.loaded) or not isinstance(planned.agent, AgentChoice):
        return None
    return planned.agent.ref


def agent_problems(
    planned: list[PlannedFile], settings: Settings, *, console: Console, root: Path
) -> dict[AgentRef, str]:
    """Each agent that cannot be imported, reported once (at the line of its code that failed), and what the
    files that use it say about it."""
    refs = list(dict.fromkeys(ref for file in planned if (ref := _agent_of(file, settings)) is not None))
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
    """What would stop ``run`` for this file besides its agent (``prepare`` reports a file without one): a custom
    metric that does not import, a judge or user simulator model whose package is missing."""
    problems = []
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

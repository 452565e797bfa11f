"""``adk-eval-gate validate``: load and check every eval file and config, and that each file has what ``run`` will
need (``runners.preflight``): its agent (adk runner) and the functions of its custom metrics, each imported in a
process of its own, and the packages of its judge and user simulator models. No agent runs, no service is called."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.agent_sources import NoAgent
from adk_eval_gate.inputs.labels_files import labels_files, load_labels
from adk_eval_gate.inputs.prepare import needs_agent, prepare
from adk_eval_gate.model.results import FileResult
from adk_eval_gate.runners.preflight import (
    agent_of,
    agent_problems,
    function_problems,
    run_problems,
    unknown_field_problems,
)
from adk_eval_gate.support.console import Console, relayed_output
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.support.words import plural


def validate(settings: Settings, console: Console) -> int:
    """0 when every file is valid; 2 when a file has a problem, or when anything printed an error at all."""
    errors_before = console.errors_reported
    prepared = prepare(settings, console, import_functions=False)
    for skipped in prepared.locator.skipped_calls() if prepared.locator else []:
        console.line(f"note {skipped}: not used to find agents")
    for unawaited in prepared.locator.unawaited_notes() if prepared.locator else []:
        console.warning(unawaited)
    bad = len(prepared.errors)
    agents = agent_problems(prepared.planned, settings, console=console, root=prepared.root)
    functions = function_problems(prepared.planned, console=console, timeout=settings.timeout)
    for planned in prepared.planned:
        loaded = planned.loaded
        for eval_id, row_error in loaded.row_errors.items():  # a dataset's bad rows, one line each
            console.error(row_error, file=loaded.display, line=loaded.case_lines.get(eval_id))
        with relayed_output(console):  # what the judge models' packages print when imported
            problems = run_problems(planned, functions=functions)
        agent = agent_of(planned, settings)
        if agent is not None and agent in agents:
            problems.append(agents[agent])
        if isinstance(planned.agent, NoAgent) and settings.runner_kind.needs_agent and needs_agent(loaded):
            problems.insert(0, planned.agent.reason)
        problems += unknown_field_problems(planned, settings)
        for problem in problems:
            console.error(f"{loaded.display}: {problem}", file=loaded.display)
        file = next(f for f in prepared.files if f.path == loaded.display)
        console.line(f"{'bad ' if problems or loaded.row_errors else 'ok  '} {_described(file, settings)}")
        if problems or loaded.row_errors:
            bad += 1
    labels_bad, labels_total = _validate_labels(settings, console, root=prepared.root)
    bad += labels_bad
    total = len(prepared.files) + labels_total
    if bad:
        console.line(f"{bad} of {total} files have problems")
        return 2
    if console.errors_reported > errors_before:  # an error no file's count holds is still an error
        console.line(f"{plural(total, 'file')} checked, with the errors above")
        return 2
    console.line(f"all {total} files are valid")
    return 0


def _described(file: FileResult, settings: Settings) -> str:
    """``evals/a.test.json: 2 cases (evalset), criteria from ..., agent ... , 3 runs``: what ``run`` will do
    with the file, whatever else validate says about it."""
    agent = f", agent {file.agent}" if file.agent else ""
    said = file.agent is not None and file.num_runs is not None  # the agent's line says the call's runs
    runs = "" if said else f", {plural(file.num_runs or settings.num_runs, 'run')} per case"
    return f"{file.path}: {plural(file.cases, 'case')} ({file.format}), criteria from {file.config}{agent}{runs}"


def _validate_labels(settings: Settings, console: Console, *, root: Path) -> tuple[int, int]:
    """Each labels file (``--judge-labels``, else the ``*.labels.json`` under the paths) checked as ``run`` and
    ``calibrate`` read it, one line each: (files with problems, files)."""
    found = labels_files(settings.search_paths, given=settings.judge_labels, root=root)
    bad = 0
    for path, display in found:
        try:
            loaded = load_labels(path, display=display, root=root)
        except GateError as error:
            bad += 1
            for problem in error.every_problem():
                console.error(console.mask(problem.one_line()), file=problem.file, line=problem.line)
            console.line(f"bad  {display}")
            continue
        metrics = len({label.metric for label in loaded.labels})
        confirmed = len(loaded.confirmed)
        console.line(
            f"ok   {display}: {plural(len(loaded.labels), 'label')} ({confirmed} confirmed) of "
            f"{plural(metrics, 'judge metric')}"
        )
    return bad, len(found)

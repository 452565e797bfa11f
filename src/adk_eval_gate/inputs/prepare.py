"""discover -> load: eval files with their configs, and a file result (maybe an error) for each."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate.config.options import BY_FIELD
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs import formats
from adk_eval_gate.inputs.agent_locator import AgentLocator, read_mappings
from adk_eval_gate.inputs.agent_sources import AgentChoice, NoAgent, kept_inside, parse_agent_value
from adk_eval_gate.inputs.configs import (
    DATASET_CONFIG_NAMES,
    ConfigCache,
    LoadedConfig,
    find_config,
    find_repository_root,
)
from adk_eval_gate.inputs.discover import EvalFileRef, discover, display_path, misnamed_eval_files
from adk_eval_gate.inputs.load import LoadedEvalSet, with_session_beside
from adk_eval_gate.inputs.plan import PlannedFile, select_cases
from adk_eval_gate.model.results import FileResult
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import (
    ConfigError,
    EvalFileError,
    GateError,
    UnknownField,
    UsageError,
    unexpected,
)


@dataclass
class Prepared:
    root: Path
    planned: list[PlannedFile]
    files: list[FileResult]
    errors: list[GateError]
    locator: AgentLocator | None = None  # how the files' agents were found (None: the runner needs none)


def repository_root(settings: Settings) -> Path:
    workspace = settings.github.workspace
    if workspace and workspace.is_dir():
        return workspace.resolve()
    return find_repository_root(Path.cwd())


def prepare(settings: Settings, console: Console, *, import_functions: bool = True) -> Prepared:
    """Loads every discovered file; a broken file or config is recorded and the others go on.

    ``import_functions``: whether loading a config imports its Vertex-style custom metric functions (``validate``
    imports every custom metric function itself, in a process of its own).

    Raises ``UsageError`` only for what stops everything: paths that do not exist or match nothing, and
    unknown case ids in selectors.
    """
    root = repository_root(settings)
    try:
        refs = discover(
            settings.search_paths,
            root=root,
            include=settings.include,
            exclude=settings.exclude,
            datasets=settings.dataset,
        )
    except UsageError as no_files:
        raise _as_written(no_files, settings) from None
    _warn_misnamed(settings, console)
    configs = ConfigCache(root, import_functions=import_functions)
    locator = agent_locator(settings, root)
    planned: list[PlannedFile] = []
    files: list[FileResult] = []
    errors: list[GateError] = []
    reported_warnings: set[str] = set()
    reported_errors: set[str] = set()  # a broken config shared by many eval files is reported once
    for ref in refs:
        result, planned_file, error = _prepare_one(ref, settings, configs, root, locator)
        files.append(result)
        if error:
            errors.append(error)
            for problem in error.every_problem():
                if problem.one_line() not in reported_errors:
                    reported_errors.add(problem.one_line())
                    console.error(problem.one_line(), file=problem.file, line=problem.line)
            unlisted = f"{error.file}: and {error.unlisted:,} more problems, not listed: fix these first"
            if error.unlisted and unlisted not in reported_errors:
                reported_errors.add(unlisted)
                console.error(unlisted, file=error.file)
            continue
        assert planned_file is not None
        try:
            select_cases(planned_file)  # unknown case ids stop the run here, before any agent runs
        except UsageError as unknown_case:
            raise _as_written(unknown_case, settings) from None
        planned.append(planned_file)
        for warning in [*planned_file.config.warnings, *planned_file.loaded.warnings]:
            if warning not in reported_warnings:
                reported_warnings.add(warning)
                console.warning(warning)
    for unused in locator.unused_mappings() if locator else []:
        console.warning(unused)
    return Prepared(root, planned, files, errors, locator)


def without_unimportable_functions(prepared: Prepared, problems: dict[str, str], console: Console) -> Prepared:
    """``prepared`` less the files whose Vertex-style custom metric function cannot be imported, each now that
    file's config error as loading it here would have made it. ``problems``: why each function path does not import,
    found in a process of its own (``runners.preflight.function_problems``), so that no metric module's code runs
    in the gate's process."""
    planned, files, errors = [], list(prepared.files), list(prepared.errors)
    for file in prepared.planned:
        config = file.config.config
        vertex = [name for name, custom in (config.custom_metrics or {}).items() if custom.signature == "vertex"]
        bad = next((name for name in vertex if config.custom_function_path(name) in problems), None)
        if bad is None:
            planned.append(file)
            continue
        source = file.config.source.path
        error = ConfigError(
            problems[config.custom_function_path(bad) or ""],
            file=display_path(source, prepared.root) if source else file.loaded.display,
            field=f"custom_metrics.{bad}.code_config.name",
            hint="write package.module.function, importable from the repository root",
        )
        console.error(error.one_line(), file=error.file)
        at = next(index for index, result in enumerate(files) if result.path == file.loaded.display)
        files[at] = FileResult(path=file.loaded.display, config=files[at].config, error=error.one_line())
        errors.append(error)
    return dataclasses.replace(prepared, planned=planned, files=files, errors=errors)


def _warn_misnamed(settings: Settings, console: Console) -> None:
    outputs = [settings.output_dir, settings.results_path]
    for misnamed in misnamed_eval_files(settings.search_paths, outputs=outputs) if settings.search_paths else []:
        console.warning(
            f"{misnamed} looks like an eval file but is not named *.test.json, *.evalset.json or *-dataset.json, so "
            "it was not run: rename it, or pass it explicitly as a path",
            file=misnamed,
        )


def agent_locator(settings: Settings, root: Path) -> AgentLocator | None:
    """How each file's agent is found, for the runners that run agents (the recorded runner needs none); a bad
    ``--agent`` or mapping stops the run (exit code 2)."""
    if settings.runner_kind.replays:
        return None
    field = settings.option_name("agent_map")
    mappings = read_mappings(settings.agent_map, root=root, field=field)
    option = None
    if settings.agent and settings.runner_kind.needs_agent:
        option = parse_agent_value(settings.agent, root=root, field=settings.option_name("agent"))
    return AgentLocator(
        root=root,
        option=option,
        option_name=settings.option_name("agent"),
        mappings=mappings,
        runs_wanted=not ("num_runs" in settings.from_cli or "num_runs" in settings.from_inputs),
    )


def _as_written(error: UsageError, settings: Settings) -> UsageError:
    """The error with its option named as the user wrote it (``input 'paths'`` in the action)."""
    if error.field in BY_FIELD:
        return dataclasses.replace(error, field=settings.option_name(error.field))
    return error


def _prepare_one(
    ref: EvalFileRef, settings: Settings, configs: ConfigCache, root: Path, locator: AgentLocator | None
) -> tuple[FileResult, PlannedFile | None, GateError | None]:
    if ref.problem:
        problem = EvalFileError(ref.problem, file=ref.display)
        return FileResult(path=ref.display, error=problem.one_line()), None, problem
    source = find_config(ref.path, root=root, option=settings.config)
    described = source.describe(root)
    try:
        loaded = formats.load(ref.path, display=ref.display, dataset=ref.dataset)
        loaded = with_session_beside(loaded, read=settings.legacy_session_file)
        if graded_by_agents_cli(loaded):
            source = find_config(ref.path, root=root, option=settings.config, names=DATASET_CONFIG_NAMES)
            described = source.describe(root)
        loaded_config = configs.get(source)
        config_mismatch(loaded, loaded_config, option=settings.option_name("config"), root=root)
        agent = _agent_of(ref, locator, root=root)
    except (RecursionError, MemoryError, OSError, ValueError) as surprise:  # one bad file never stops the others
        error = EvalFileError(f"cannot be loaded ({unexpected(surprise)})", file=ref.display)
        return (
            FileResult(path=ref.display, config=described, error=error.one_line()),
            None,
            error,
        )
    except GateError as error:
        more = error.more()
        text = error.one_line() + (f" (and {more:,} more problem{'s' if more > 1 else ''} in it)" if more else "")
        return (
            FileResult(path=ref.display, config=described, error=text, line=error.line),
            None,
            error,
        )
    runs_wanted = locator is not None and locator.runs_wanted  # --num-runs given: the calls' num_runs are not used
    num_runs = agent.num_runs if isinstance(agent, AgentChoice) and runs_wanted else None
    agent_described = None
    if isinstance(agent, AgentChoice) and settings.runner_kind.needs_agent:
        agent_described = agent.describe(runs=num_runs is not None)
    result = FileResult(
        path=ref.display,
        format=loaded.format,
        eval_set_id=loaded.eval_set.eval_set_id,
        config=described,
        agent=agent_described,
        num_runs=num_runs,
        cases=len(loaded.eval_set.eval_cases),
        warnings=[  # what the reports list: an unknown field only when it is not expected (--allow-unknown-fields)
            warning
            for warning in [*loaded_config.warnings, *loaded.warnings]
            if not (settings.allow_unknown_fields and isinstance(warning, UnknownField))
        ],
    )
    return result, PlannedFile(loaded, loaded_config, ref.case_ids, agent, num_runs), None


def _agent_of(ref: EvalFileRef, locator: AgentLocator | None, *, root: Path) -> AgentChoice | NoAgent | None:
    """The file's agent (None: the runner needs none); a surprise on the way, such as a path in a repository file
    that the file system refuses, is ``EvalFileError`` for this file, never the end of the run."""
    if locator is None:
        return None
    try:
        return kept_inside(locator.choose(ref.path), option=locator.option, root=root)
    except (RecursionError, MemoryError, OSError, ValueError) as surprise:
        raise EvalFileError(f"its agent cannot be found ({unexpected(surprise)})", file=ref.display) from None


def needs_agent(loaded: LoadedEvalSet) -> bool:
    """Whether a case of the file runs an agent (a dataset's recorded rows and broken rows do not)."""
    return len(loaded.eval_set.eval_cases) > len(loaded.recorded) + len(loaded.row_errors)


def graded_by_agents_cli(loaded: LoadedEvalSet) -> bool:
    """Whether the file's format is graded by agents-cli's eval_config.yaml (an Agent Platform dataset)."""
    return formats.BY_NAME[loaded.format].agents_cli_config


def config_mismatch(loaded: LoadedEvalSet, config: LoadedConfig, *, option: str, root: Path) -> None:
    """An Agent Platform dataset is graded by agents-cli's eval_config.yaml, an ADK eval file by ADK's criteria."""
    platform, display = graded_by_agents_cli(loaded), loaded.display
    if platform and config.source.path is None:
        raise ConfigError(
            "has no eval_config.yaml beside or above it, so nothing says which metrics to grade",
            file=display,
            hint="add tests/eval/eval_config.yaml with metrics_to_run, as agents-cli scaffolds it",
        )
    if platform and not config.agents_cli:
        raise ConfigError(
            f"is an Agent Platform dataset, but its config {config.source.describe(root)} is ADK's criteria",
            file=display,
            hint=f"give agents-cli's eval_config.yaml with {option}, or none",
        )
    if not platform and config.agents_cli:
        raise ConfigError(
            f"is an ADK eval file, but its config {config.source.describe(root)} is agents-cli's (for Agent Platform "
            "datasets)",
            file=display,
            hint=f"give a test_config.json with {option}",
        )

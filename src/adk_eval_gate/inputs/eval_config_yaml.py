"""agents-cli's ``eval_config.yaml`` (or the same as JSON), read as agents-cli's ``load_eval_config`` and
``prepare_eval_metrics`` read it, for the Agent Platform datasets beside or below it.

agents-cli's checks are kept, each an error naming the file, line and field: ``metrics_to_run`` lists the metrics
(none is an error), a ``custom_metrics`` item is an object, ``rubric_group_name`` is refused, a built-in metric's
name is not taken by a definition of its own, an item that defines nothing names a built-in metric, not both
``custom_function`` and ``custom_function_file``, that file exists (relative to the config's folder), ``execution``
is ``local`` or ``remote``. Code is never run here: a ``custom_function`` is compiled and must define
``evaluate``, as agents-cli requires; it runs where the metric scores (a process of its own). Unlike agents-cli, an
unknown metric name is an error here, not at grading time.

The gate's section, ``adk_eval_gate`` (``thresholds``, ``budgets``), is checked as strictly: a threshold of a metric
``metrics_to_run`` does not list is an error. What agents-cli ignores is warned about: other top-level keys, the
keys of an item that no metric reads, items without a name, and definitions ``metrics_to_run`` does not list.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import json
from pathlib import Path
from typing import Any

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.inputs.configs import ConfigSource, LoadedConfig
from adk_eval_gate.inputs.discover import display_path, file_problem
from adk_eval_gate.metrics import agents_cli_specs, registry
from adk_eval_gate.model import agents_cli_config as acli
from adk_eval_gate.model.eval_config import EvalConfig, JudgeModelOptions
from adk_eval_gate.support import safe_yaml, sanitize
from adk_eval_gate.support.errors import ConfigError, UnknownField
from adk_eval_gate.support.jsonpos import JsonPositions, format_path
from adk_eval_gate.support.pydantic_errors import every_error, locate

MAX_FILE_BYTES = 1_048_576  # an eval config or a metric's code file: a few KB


def read_small_text(path: Path, *, display: str, root: Path, what: str) -> str:
    """A config or code file as text: a regular file of the repository (a FIFO would block), at most 1 MiB, UTF-8."""
    problem = file_problem(path, root=root)
    if problem is not None:
        raise ConfigError(f"{what} {problem}", file=display)
    try:
        raw = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else b""
    except OSError as error:
        raise ConfigError(f"{what} cannot be read: {error.strerror}", file=display) from None
    if not raw and path.stat().st_size > MAX_FILE_BYTES:
        raise ConfigError(f"{what} is larger than 1 MiB", file=display, hint="a config or a metric's code is a few KB")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ConfigError(
            f"{what} is not UTF-8 (byte 0x{raw[error.start]:02x} at offset {error.start})",
            file=display,
            line=line,
            hint="save the file as UTF-8",
        ) from None


class _Lines:
    """The line of a key path, in the YAML document or the JSON text."""

    def __init__(self, *, node: Any = None, text: str | None = None) -> None:
        self.node = node
        self.positions = JsonPositions(text) if text is not None else None

    def __call__(self, path: list[str | int]) -> int | None:
        if self.positions is not None:
            return locate(self.positions, path)
        return safe_yaml.line_of(self.node, path)


def _parse(text: str, *, display: str, yaml_file: bool) -> tuple[Any, _Lines]:
    if yaml_file:
        try:
            data, node = safe_yaml.load(text)
        except safe_yaml.UnsafeYaml as error:
            raise ConfigError(str(error), file=display, line=error.line) from None
        return data, _Lines(node=node)
    try:
        return sanitize.loads(text, max_depth=sanitize.MAX_EVAL_FILE_DEPTH), _Lines(text=text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"invalid JSON: {error.msg}", file=display, line=error.lineno, column=error.colno) from None
    except sanitize.UnsafeJson as error:
        raise ConfigError(f"cannot be used: {error}", file=display, line=error.line) from None


@dataclasses.dataclass
class _Check:
    """The problems and warnings of one config, gathered so that all are reported at once."""

    display: str
    lines: _Lines
    problems: list[ConfigError] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)

    def error(self, message: str, path: list[str | int], hint: str | None = None) -> None:
        self.problems.append(
            ConfigError(message, file=self.display, line=self.lines(path), field=format_path(path) or None, hint=hint)
        )

    def warn(self, message: str, path: list[str | int], *, ignored: bool = True) -> None:
        """``ignored``: a key agents-cli ignores (``validate`` fails on it unless --allow-unknown-fields)."""
        text = f"{self.display}:{self.lines(path) or 1}: {format_path(path)}: {message}"
        self.warnings.append(UnknownField(text) if ignored else text)

    def validation(
        self, error: pydantic.ValidationError, data: Any, *, model: type[pydantic.BaseModel], at: list[Any]
    ) -> None:
        found, _ = every_error(error, data, model=model)
        for path, message in found:
            self.error(message.replace("ADK rejects", "agents-cli rejects"), [*at, *path])


def load_agents_cli_config(source: ConfigSource, *, root: Path) -> LoadedConfig:
    assert source.path is not None
    display = display_path(source.path, root)
    yaml_file = source.path.suffix.lower() in (".yaml", ".yml")
    text = read_small_text(source.path, display=display, root=root, what="the config")
    data, lines = _parse(text, display=display, yaml_file=yaml_file)
    if not isinstance(data, dict):
        raise ConfigError(
            "must be a mapping with metrics_to_run and custom_metrics (agents-cli's eval config)", file=display, line=1
        )
    if source.twin is not None:
        twin_text = read_small_text(source.twin, display=display_path(source.twin, root), root=root, what="the config")
        twin = display_path(source.twin, root)
        if _parse(twin_text, display=twin, yaml_file=True)[0] != data:
            raise ConfigError(
                f"{twin} is beside it with different content, so it is not clear which to use",
                file=display,
                hint=f"keep one of {source.path.name} and {source.twin.name}",
            )
    check = _Check(display, lines)
    try:
        config = acli.AgentsCliConfig.model_validate(data)
    except pydantic.ValidationError as error:
        check.validation(error, data, model=acli.AgentsCliConfig, at=[])
        raise _all(check) from None
    for key in data:
        if key not in (*acli.AGENTS_CLI_KEYS, acli.GATE_SECTION):
            close = difflib.get_close_matches(key, [*acli.AGENTS_CLI_KEYS, acli.GATE_SECTION], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            check.warn(f"is not a key agents-cli or the gate reads, and is ignored{hint}", [key])
    pool = _pool(config, check)
    metrics, files = _metrics(config, pool, check, folder=source.path.parent, root=root)
    if check.problems:
        raise _all(check)
    if not any(metric.threshold is not None for metric in metrics):
        check.warnings.append(
            f"{display}: no metric of metrics_to_run has a threshold, so no case can pass: give thresholds in "
            f"{acli.GATE_SECTION}.thresholds (agents-cli ignores that key)"
        )
    gate = config.adk_eval_gate
    metrics.extend(registry.ConfiguredMetric(registry.BUILT_IN[name], None) for name in registry.EFFICIENCY_METRICS)
    return LoadedConfig(source, EvalConfig(budgets=gate.budgets), metrics, check.warnings, agents_cli=True, files=files)


def _all(check: _Check) -> ConfigError:
    problems = sorted(check.problems, key=lambda problem: problem.line or 0)
    return dataclasses.replace(problems[0], also=tuple(problems[1:]))


def _pool(config: acli.AgentsCliConfig, check: _Check) -> dict[str, tuple[int, acli.CustomMetricEntry]]:
    """The ``custom_metrics`` items by name (a later one with the same name wins, as in agents-cli)."""
    pool: dict[str, tuple[int, acli.CustomMetricEntry]] = {}
    for index, raw in enumerate(config.custom_metrics):
        path: list[str | int] = ["custom_metrics", index]
        if not isinstance(raw, dict):
            check.error("must be an object with a name (agents-cli refuses any other item)", path)
            continue
        if not raw.get("name"):
            check.warn("has no name; agents-cli ignores it", path)
            continue
        try:
            entry = acli.CustomMetricEntry.model_validate(raw)
        except pydantic.ValidationError as error:
            check.validation(error, raw, model=acli.CustomMetricEntry, at=path)
            continue
        for key in sorted(entry.model_extra or {}):
            close = difflib.get_close_matches(key, list(acli.CustomMetricEntry.model_fields), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            check.warn(f"is not a field agents-cli's metrics read, and is ignored{hint}", [*path, key])
        if entry.name in pool:
            check.warn(
                f"defines {entry.name} again; the last definition is used, as in agents-cli", path, ignored=False
            )
        pool[entry.name] = (index, entry)
    return pool


def _metrics(
    config: acli.AgentsCliConfig,
    pool: dict[str, tuple[int, acli.CustomMetricEntry]],
    check: _Check,
    *,
    folder: Path,
    root: Path,
) -> tuple[list[registry.ConfiguredMetric], list[Path]]:
    if not config.metrics_to_run:
        check.error(
            "lists no metrics, and agents-cli needs at least one",
            ["metrics_to_run"],
            hint="list the metrics to grade, e.g. metrics_to_run: [my_metric]",
        )
    thresholds = config.adk_eval_gate.thresholds
    for name in thresholds:
        if name not in config.metrics_to_run:
            check.error(
                f"is a threshold of {name}, which metrics_to_run does not list",
                [acli.GATE_SECTION, "thresholds", name],
                hint="add the metric to metrics_to_run, or remove its threshold",
            )
    for name, (index, _) in pool.items():
        if name not in config.metrics_to_run:
            check.warn(
                f"{name} is defined but metrics_to_run does not list it, so neither agents-cli nor the gate runs it",
                ["custom_metrics", index],
                ignored=False,
            )
    metrics: list[registry.ConfiguredMetric] = []
    files: list[Path] = []
    for position, name in enumerate(dict.fromkeys(config.metrics_to_run)):
        path: list[str | int] = ["metrics_to_run", position]
        found = pool.get(name)
        definition = (
            _defined(name, found[1], check, path=["custom_metrics", found[0]], folder=folder, root=root)
            if found
            else _built_in(name, None, check, path=path)
        )
        if definition is None:
            continue
        if isinstance(definition, acli.FunctionDefinition) and definition.file is not None:
            files.append(Path(definition.file) if Path(definition.file).is_absolute() else root / definition.file)
        metrics.append(agents_cli_specs.configured(name, definition, threshold=thresholds.get(name)))
    return metrics, files


def _built_in(name: str, entry: acli.CustomMetricEntry | None, check: _Check, *, path: list[str | int]) -> Any:
    resolved = acli.resolve_predefined(name)
    if resolved is None and not acli.sdk_computed(name):
        close = difflib.get_close_matches(name.lower(), acli.built_in_names(), n=1)
        check.error(
            f"{name} is neither a built-in metric nor defined in custom_metrics",
            path,
            hint=f"did you mean {close[0]!r}?"
            if close
            else "define it in custom_metrics (custom_function or "
            "prompt_template), or name a built-in metric (agents-cli eval metric list)",
        )
        return None
    parameters = entry.metric_spec_parameters if entry else None
    return acli.BuiltInDefinition(metric=resolved or name.lower(), metric_spec_parameters=parameters)


def _defined(
    name: str, entry: acli.CustomMetricEntry, check: _Check, *, path: list[str | int], folder: Path, root: Path
) -> Any:
    """The definition of a ``custom_metrics`` item that ``metrics_to_run`` lists, with agents-cli's checks."""
    if entry.rubric_group_name is not None:
        check.error(
            "rubric_group_name is not supported, as agents-cli refuses it",
            [*path, "rubric_group_name"],
            hint="grade rubric_groups with a built-in rubric metric and metric_spec_parameters.rubric_group_key",
        )
        return None
    built_in = acli.resolve_predefined(name)
    if entry.defines_own_body() and built_in is not None and name.lower() == built_in:
        check.error(f"{name} is reserved by the evaluation service", [*path, "name"], hint=f"rename it, e.g. my_{name}")
        return None
    if not entry.defines_own_body():
        if built_in is None and not acli.sdk_computed(name):
            check.error(
                "needs a prompt_template or a custom_function, unless its name is a built-in metric",
                [*path, "name"],
            )
            return None
        return _built_in(name, entry, check, path=[*path, "name"])
    if entry.custom_function is not None and entry.custom_function_file is not None:
        check.error("has both custom_function and custom_function_file: give one", [*path, "custom_function_file"])
        return None
    if entry.custom_function is not None or entry.custom_function_file is not None:
        execution = entry.execution or "local"
        if execution not in ("local", "remote"):
            check.error(f"execution is {execution!r}: use local or remote", [*path, "execution"])
            return None
        if execution == "remote":
            reason = agents_cli_specs.unsupported_reason(name)
            check.warnings.append(f"{check.display}:{check.lines([*path, 'execution']) or 1}: {reason.reason}")
            return reason
        return _function(name, entry, check, path=path, folder=folder, root=root)
    if entry.prompt_template is None:
        check.error("remote_custom_function runs in Google's sandbox, which the gate does not support", path)
        return None
    return _template(entry)


def _function(
    name: str, entry: acli.CustomMetricEntry, check: _Check, *, path: list[str | int], folder: Path, root: Path
) -> acli.FunctionDefinition | None:
    file = None
    if entry.custom_function_file is not None:
        where = [*path, "custom_function_file"]
        target = Path(entry.custom_function_file)
        target = target if target.is_absolute() else folder / target
        if not target.exists() and not target.is_symlink():
            check.error(f"{entry.custom_function_file} not found (resolved relative to the config's folder)", where)
            return None
        file = display_path(target, root)
        try:
            source = read_small_text(target, display=file, root=root, what="the function file")
        except ConfigError as problem:
            check.problems.append(problem)
            return None
        origin, line_offset = file, 0
    else:
        source = entry.custom_function or ""
        origin, line_offset = check.display, (check.lines([*path, "custom_function"]) or 1)
    filename = f"<custom_metric:{name}>"
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        message = getattr(error, "msg", str(error))
        at = (line or 0) + line_offset if line else None
        check.problems.append(
            ConfigError(f"custom metric {name}: its code does not compile: {message}", file=origin, line=at)
        )
        return None
    if not _defines_evaluate(tree):
        check.error(f"custom metric {name} must define evaluate(instance), as agents-cli requires", path)
        return None
    env = _env_file(folder, root)
    return acli.FunctionDefinition(source=source, filename=filename, file=file, env_file=env)


def _defines_evaluate(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "evaluate":
            return True
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "evaluate" for t in node.targets):
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any(
            (alias.asname or alias.name) == "evaluate" for alias in node.names
        ):
            return True
    return False


def _env_file(folder: Path, root: Path) -> str | None:
    """The ``.env`` agents-cli loads for its metrics: the nearest at or above the config's folder (in the
    repository)."""
    resolved_root = root.resolve()
    for candidate in (folder.resolve(), *folder.resolve().parents):
        if (candidate / ".env").is_file():
            return str(candidate / ".env")
        if candidate == resolved_root:
            break
    return None


def _template(entry: acli.CustomMetricEntry) -> acli.TemplateDefinition:
    model = entry.judge_model or JudgeModelOptions().judge_model
    model = model.rsplit("/models/", 1)[-1]  # a publisher model's resource name: the model's own name
    settings: dict[str, Any] = {}
    if entry.judge_model_generation_config is not None:
        known = genai_types.GenerateContentConfig.model_fields
        given = entry.judge_model_generation_config.model_dump(exclude_none=True)
        settings = {key: value for key, value in given.items() if key in known}
    if entry.judge_model_system_instruction:
        settings["system_instruction"] = entry.judge_model_system_instruction
    samples = entry.judge_model_sampling_count or acli.DEFAULT_SAMPLING_COUNT
    options = JudgeModelOptions(
        judge_model=model,
        judge_model_config=genai_types.GenerateContentConfig(**settings) if settings else None,
        num_samples=samples,
        parallelism_limit=samples,
    )
    return acli.TemplateDefinition(prompt_template=entry.prompt_template or "", judge_model_options=options)

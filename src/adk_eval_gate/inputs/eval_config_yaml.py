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

import json
from pathlib import Path
from typing import Any

import pydantic

from adk_eval_gate.inputs.agents_cli_metrics import Check, Lines, built_in, defined, read_small_text
from adk_eval_gate.inputs.configs import ConfigSource, LoadedConfig
from adk_eval_gate.inputs.discover import display_path
from adk_eval_gate.metrics import agents_cli_specs, registry
from adk_eval_gate.model import agents_cli_config as acli
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.support import safe_yaml, sanitize
from adk_eval_gate.support.errors import ConfigError, first_of
from adk_eval_gate.support.words import did_you_mean


def _parse(text: str, *, display: str, yaml_file: bool) -> tuple[Any, Lines]:
    if yaml_file:
        try:
            data, node = safe_yaml.load(text)
        except safe_yaml.UnsafeYaml as error:
            raise ConfigError(str(error), file=display, line=error.line) from None
        return data, Lines(node=node)
    try:
        return sanitize.loads(text, max_depth=sanitize.MAX_EVAL_FILE_DEPTH), Lines(text=text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"invalid JSON: {error.msg}", file=display, line=error.lineno, column=error.colno) from None
    except sanitize.UnsafeJson as error:
        raise ConfigError(f"cannot be used: {error}", file=display, line=error.line) from None


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
    check = Check(display, lines)
    try:
        config = acli.AgentsCliConfig.model_validate(data)
    except pydantic.ValidationError as error:
        check.validation(error, data, model=acli.AgentsCliConfig, at=[])
        raise _all(check) from None
    for key in data:
        if key not in (*acli.AGENTS_CLI_KEYS, acli.GATE_SECTION):
            close = did_you_mean(key, [*acli.AGENTS_CLI_KEYS, acli.GATE_SECTION])
            hint = f"; did you mean {close!r}?" if close else ""
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


def _all(check: Check) -> ConfigError:
    return first_of(check.problems, unlisted=check.unlisted)


def _pool(config: acli.AgentsCliConfig, check: Check) -> dict[str, tuple[int, acli.CustomMetricEntry]]:
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
            close = did_you_mean(key, acli.CustomMetricEntry.model_fields)
            hint = f"; did you mean {close!r}?" if close else ""
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
    check: Check,
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
            defined(name, found[1], check, path=["custom_metrics", found[0]], folder=folder, root=root)
            if found
            else built_in(name, None, check, path=path)
        )
        if definition is None:
            continue
        if isinstance(definition, acli.FunctionDefinition) and definition.file is not None:
            files.append(Path(definition.file) if Path(definition.file).is_absolute() else root / definition.file)
        metrics.append(agents_cli_specs.configured(name, definition, threshold=thresholds.get(name)))
    return metrics, files

"""Where each eval file's criteria come from, and whether they are usable.

Resolution: ``--config`` if given; else ``test_config.json`` (or ``eval_config.json``, the name agents-cli's
scaffolds give ADK's EvalConfig) in the file's folder; else the nearest one in a parent folder up to the repository
root; else ADK's defaults. The source is always reported. Both names in one folder must say the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pydantic

from adk_eval_gate.inputs.config_checks import check_config
from adk_eval_gate.inputs.discover import display_path
from adk_eval_gate.metrics import registry
from adk_eval_gate.model import eval_config
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.errors import ConfigError
from adk_eval_gate.support.jsonpos import JsonPositions
from adk_eval_gate.support.pydantic_errors import file_problems

CONFIG_NAME = "test_config.json"
CONFIG_NAMES = (CONFIG_NAME, "eval_config.json")  # ADK's pytest and adk eval name; agents-cli's scaffolds before 0.3
DATASET_CONFIG_NAMES = ("eval_config.yaml", "eval_config.yml")  # agents-cli 0.3 and later, for its datasets
SourceKind = Literal["option", "folder", "parent", "default"]


@dataclass(frozen=True)
class ConfigSource:
    kind: SourceKind
    path: Path | None
    twin: Path | None = None  # the other name in the same folder: it must give the same criteria

    def describe(self, root: Path) -> str:
        if self.path is None:
            return "ADK defaults (tool_trajectory_avg_score 1.0, response_match_score 0.8)"
        return f"{display_path(self.path, root)} ({self.kind})"


@dataclass
class LoadedConfig:
    source: ConfigSource
    config: eval_config.EvalConfig
    metrics: list[registry.ConfiguredMetric]
    warnings: list[str] = field(default_factory=list)
    agents_cli: bool = False  # agents-cli's eval_config.yaml (for Agent Platform datasets), not ADK's criteria
    files: list[Path] = field(default_factory=list)  # the files it reads besides itself (custom_function_file)


def find_repository_root(start: Path) -> Path:
    """The nearest ancestor holding ``.git``; else the current folder when it contains ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    cwd = Path.cwd().resolve()
    if start == cwd or cwd in start.parents:
        return cwd
    return start if start.is_dir() else start.parent


def find_config(
    eval_file: Path, *, root: Path, option: Path | None, names: tuple[str, ...] = CONFIG_NAMES
) -> ConfigSource:
    """``names``: the file names to look for (ADK's, or agents-cli's for its datasets)."""
    if option is not None:
        return ConfigSource("option", option)
    folder = eval_file.resolve().parent
    root = root.resolve()
    levels: list[tuple[SourceKind, Path]] = [("folder", folder), *(("parent", parent) for parent in folder.parents)]
    for kind, candidate in levels:
        if kind == "parent" and root != candidate and root not in candidate.parents:
            break
        present = [candidate / name for name in names if (candidate / name).is_file()]
        if present:
            return ConfigSource(kind, present[0], present[1] if len(present) > 1 else None)
    return ConfigSource("default", None)


class ConfigCache:
    """Loads each config file once; a broken config is an error for every eval file that uses it.

    ``import_functions``: whether loading imports Vertex-style custom metric functions (``load_config``)."""

    def __init__(self, root: Path, *, import_functions: bool = True) -> None:
        self.root = root
        self.import_functions = import_functions
        self._loaded: dict[Path | None, LoadedConfig | ConfigError] = {}

    def get(self, source: ConfigSource) -> LoadedConfig:
        key = source.path.resolve() if source.path else None
        if key not in self._loaded:
            try:
                self._loaded[key] = load_config(source, root=self.root, import_functions=self.import_functions)
            except ConfigError as error:
                self._loaded[key] = error
        found = self._loaded[key]
        if isinstance(found, ConfigError):
            raise found
        return found


def load_config(source: ConfigSource, *, root: Path, import_functions: bool = True) -> LoadedConfig:
    """``import_functions``: import each Vertex-style custom metric's function now, its failure an error of the
    config (False: the caller imports them itself, as ``validate`` does in a process of its own)."""
    if source.path is None:
        config = eval_config.default_config()
        return LoadedConfig(source, config, registry.configured_metrics(config))
    display = display_path(source.path, root)
    if not source.path.is_file():
        raise ConfigError(
            "config file not found",
            file=display,
            hint="check the path given with --config / the config input",
        )
    if source.path.suffix.lower() in (".yaml", ".yml"):
        from adk_eval_gate.inputs.eval_config_yaml import load_agents_cli_config  # its YAML and metrics on use

        return load_agents_cli_config(source, root=root)
    try:
        text = source.path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"is not UTF-8 (byte 0x{error.object[error.start]:02x} at offset {error.start})",
            file=display,
            hint="save the file as UTF-8",
        ) from None
    try:
        data = sanitize.loads(text, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    except json.JSONDecodeError as error:
        raise ConfigError(f"invalid JSON: {error.msg}", file=display, line=error.lineno, column=error.colno) from None
    except sanitize.UnsafeJson as error:
        raise ConfigError(f"cannot be used: {error}", file=display, line=error.line) from None
    if not isinstance(data, dict):
        raise ConfigError('must be a JSON object with a "criteria" object', file=display, line=1)
    if "criteria" not in data and ("metrics_to_run" in data or isinstance(data.get("custom_metrics"), list)):
        from adk_eval_gate.inputs.eval_config_yaml import load_agents_cli_config  # agents-cli's config as JSON

        return load_agents_cli_config(source, root=root)
    if source.twin is not None:
        _same_as_twin(data, twin=source.twin, display=display, root=root)
    return config_from_data(source, data=data, text=text, display=display, import_functions=import_functions)


def config_from_data(
    source: ConfigSource, *, data: dict[str, Any], text: str, display: str, import_functions: bool = True
) -> LoadedConfig:
    """A ``test_config.json``'s parsed ``data`` (and its ``text``, for the lines of its problems), validated and
    checked: its metrics, or every problem at once."""
    positions = JsonPositions(text)
    try:
        config = eval_config.EvalConfig.model_validate(data)
    except pydantic.ValidationError as error:  # every problem of the file at once, in the file's order
        raise file_problems(
            error,
            data,
            model=eval_config.EvalConfig,
            text=text,
            display=display,
            kind=ConfigError,
            hint=_criterion_hint,
        ) from None
    warnings = check_config(config, data=data, display=display, positions=positions, import_functions=import_functions)
    return LoadedConfig(source, config, registry.configured_metrics(config), warnings)


def _same_as_twin(data: dict[str, Any], *, twin: Path, display: str, root: Path) -> None:
    """Two config files in one folder (test_config.json and eval_config.json) must give the same criteria."""
    twin_display = display_path(twin, root)
    try:
        twin_data = sanitize.loads(twin.read_bytes().decode("utf-8-sig"), max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    except (OSError, UnicodeDecodeError, ValueError, sanitize.UnsafeJson):
        twin_data = None
    if twin_data != data:
        raise ConfigError(
            f"{twin_display} is beside it with different content, so it is not clear which criteria to use",
            file=display,
            hint=f"keep one of {Path(display).name} and {twin.name}, or give them the same content",
        )


def _criterion_hint(path: list[str | int]) -> str | None:
    if len(path) >= 2 and path[0] == "criteria":
        return 'a criterion is a number (the threshold) or an object with a numeric "threshold"'
    return None

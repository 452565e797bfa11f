"""What each metric of an agents-cli ``eval_config.yaml`` is (``model.agents_cli_config``'s definitions), with
agents-cli's checks of a ``custom_metrics`` item (``prepare_eval_metrics``): ``rubric_group_name`` refused, a built-in
metric's name not taken by a definition of its own, an item that defines nothing naming a built-in metric, not both
``custom_function`` and ``custom_function_file``, that file found relative to the config's folder, ``execution``
``local`` or ``remote``. Code is never run here: it is compiled and must define ``evaluate``, as agents-cli requires.

``Check`` gathers a config's problems and warnings, so that all are reported at once (``inputs/eval_config_yaml.py``).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import difflib
from pathlib import Path
from typing import Any

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.inputs.discover import display_path, file_problem
from adk_eval_gate.inputs.load import read_text
from adk_eval_gate.metrics import agents_cli_specs
from adk_eval_gate.model import agents_cli_config as acli
from adk_eval_gate.model.eval_config import JudgeModelOptions
from adk_eval_gate.support import safe_yaml
from adk_eval_gate.support.errors import ConfigError, UnknownField
from adk_eval_gate.support.jsonpos import JsonPositions, format_path
from adk_eval_gate.support.pydantic_errors import every_error, locate
from adk_eval_gate.support.repository_paths import code_outside_repository, path_value_problem, shown

MAX_FILE_BYTES = 1_048_576  # an eval config or a metric's code file: a few KB


def read_small_text(path: Path, *, display: str, root: Path, what: str) -> str:
    """A config or code file as text: a regular file of the repository (a FIFO would block), at most 1 MiB, UTF-8."""
    problem = file_problem(path, root=root)
    if problem is not None:
        raise ConfigError(f"{what} {problem}", file=display)
    with contextlib.suppress(OSError):  # read_text says why it cannot be read
        if path.stat().st_size > MAX_FILE_BYTES:
            hint = "a config or a metric's code is a few KB"
            raise ConfigError(f"{what} is larger than 1 MiB", file=display, hint=hint)
    return read_text(path, display, ConfigError, what=what)


class Lines:
    """The line of a key path, in the YAML document or the JSON text."""

    def __init__(self, *, node: Any = None, text: str | None = None) -> None:
        self.node = node
        self.positions = JsonPositions(text) if text is not None else None

    def __call__(self, path: list[str | int]) -> int | None:
        if self.positions is not None:
            return locate(self.positions, path)
        return safe_yaml.line_of(self.node, path)


@dataclasses.dataclass
class Check:
    """The problems and warnings of one config, gathered so that all are reported at once."""

    display: str
    lines: Lines
    problems: list[ConfigError] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    unlisted: int = 0  # problems only counted (a validation error lists at most MAX_LISTED)

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
        found, unlisted = every_error(error, data, model=model)
        self.unlisted += unlisted
        for path, message in found:
            self.error(message.replace("ADK rejects", "the gate rejects"), [*at, *path])


def built_in(name: str, entry: acli.CustomMetricEntry | None, check: Check, *, path: list[str | int]) -> Any:
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


def defined(
    name: str, entry: acli.CustomMetricEntry, check: Check, *, path: list[str | int], folder: Path, root: Path
) -> Any:
    """The definition of a ``custom_metrics`` item that ``metrics_to_run`` lists, with agents-cli's checks."""
    if entry.rubric_group_name is not None:
        check.error(
            "rubric_group_name is not supported, as agents-cli refuses it",
            [*path, "rubric_group_name"],
            hint="grade rubric_groups with a built-in rubric metric and metric_spec_parameters.rubric_group_key",
        )
        return None
    registered = acli.resolve_predefined(name)
    if entry.defines_own_body() and registered is not None and name.lower() == registered:
        check.error(f"{name} is reserved by the evaluation service", [*path, "name"], hint=f"rename it, e.g. my_{name}")
        return None
    if not entry.defines_own_body():
        if registered is None and not acli.sdk_computed(name):
            check.error(
                "needs a prompt_template or a custom_function, unless its name is a built-in metric",
                [*path, "name"],
            )
            return None
        return built_in(name, entry, check, path=[*path, "name"])
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
    name: str, entry: acli.CustomMetricEntry, check: Check, *, path: list[str | int], folder: Path, root: Path
) -> acli.FunctionDefinition | None:
    file = None
    if entry.custom_function_file is not None:
        where = [*path, "custom_function_file"]
        named = entry.custom_function_file
        target = folder / named  # an absolute path stays itself
        unusable = path_value_problem(named) or path_value_problem(target)
        if unusable is not None:
            check.error(f"{shown(named)} {unusable}", where, hint="name the function's file beside the config")
            return None
        if not target.exists() and not target.is_symlink():
            check.error(f"{shown(named)} not found (resolved relative to the config's folder)", where)
            return None
        outside = code_outside_repository(target, root=root)
        if outside is not None:
            check.error(f"{shown(named)} {outside}", where)
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

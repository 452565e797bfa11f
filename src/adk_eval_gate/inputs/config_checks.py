"""A ``test_config.json``'s checks beyond its schema (``check_config``): the criteria it names are metrics with
usable options, a custom metric's function can be imported, and the keys ADK ignores are warned about (with the
key meant, when one is close)."""

from __future__ import annotations

import math
from typing import Any

import pydantic
from pydantic import alias_generators

from adk_eval_gate.metrics import registry
from adk_eval_gate.metrics.metric import NotEvaluated
from adk_eval_gate.model import eval_config
from adk_eval_gate.support.errors import ConfigError, UnknownField, first_of
from adk_eval_gate.support.jsonpos import JsonPositions, format_path
from adk_eval_gate.support.pydantic_errors import best_error, locate
from adk_eval_gate.support.words import did_you_mean

OUR_KEYS = frozenset({"$schema"})  # top-level keys of test_config.json that this tool reads and ADK ignores


def check_config(
    config: eval_config.EvalConfig,
    *,
    data: dict[str, Any],
    display: str,
    positions: JsonPositions,
    import_functions: bool = True,
) -> list[str]:
    """Raises ConfigError for what would make a metric unusable; returns warnings for what ADK ignores."""
    warnings: list[str] = []
    if not config.criteria:
        raise ConfigError(
            "no criteria configured",
            file=display,
            line=1,
            field="criteria",
            hint='add at least one metric, e.g. {"criteria": {"tool_trajectory_avg_score": 1.0}}',
        )
    warnings += _unknown_top_level_keys(data, display=display, positions=positions)
    problems: list[ConfigError] = []
    for name in config.criteria:
        try:
            warnings += _check_criterion(config, name, data=data, display=display, positions=positions)
            if import_functions:
                _check_vertex_function(config, name, data=data, display=display, positions=positions)
        except ConfigError as problem:  # every criterion is checked: all of a config's problems at once
            problems.append(problem)
    if problems:
        raise first_of(problems)
    return warnings


def _check_vertex_function(
    config: eval_config.EvalConfig, name: str, *, data: dict[str, Any], display: str, positions: JsonPositions
) -> None:
    """A Vertex-style custom metric's function must import now (ADK never calls it, so nothing is lost)."""
    custom = (config.custom_metrics or {}).get(name)
    if custom is None or custom.signature != "vertex":
        return
    from adk_eval_gate.metrics.custom import import_function  # only for configs that have one

    try:
        import_function(custom.code_config.name)
    except NotEvaluated as error:
        section = _key(data, "custom_metrics")
        entry = data.get(section, {}).get(name, {})
        path: list[str | int] = [section, name, _key(entry, "code_config"), "name"]
        raise ConfigError(
            str(error),
            file=display,
            line=locate(positions, path),
            field=format_path(path),
            hint="write package.module.function, importable from the repository root",
        ) from None


def _key(data: Any, name: str) -> str:
    """The key ``name`` as the file writes it (snake_case or camelCase)."""
    camel = alias_generators.to_camel(name)
    return camel if isinstance(data, dict) and camel in data and name not in data else name


def _unknown_top_level_keys(data: dict[str, Any], *, display: str, positions: JsonPositions) -> list[str]:
    """ADK ignores unknown top-level keys of test_config.json; a misspelt "criteria" would lose every threshold."""
    known = [
        name
        for field_name, info in eval_config.EvalConfig.model_fields.items()
        for name in (field_name, info.alias or field_name)
    ]
    extra = [key for key in data if key not in known and key not in OUR_KEYS]
    return [
        UnknownField(
            f"{display}:{locate(positions, [key]) or 1}: {key} is not a key of test_config.json and is ignored (as "
            f"ADK does){_did_you_mean(key, known)}"
        )
        for key in extra
    ]


def _did_you_mean(key: str, known: list[str]) -> str:
    close = did_you_mean(key, known)
    return f"; did you mean {close!r}?" if close else ""


def _check_criterion(
    config: eval_config.EvalConfig, name: str, *, data: dict[str, Any], display: str, positions: JsonPositions
) -> list[str]:
    """One criterion: a known metric, a usable threshold, valid options (errors); unknown options (warnings)."""
    path: list[str | int] = ["criteria", name]
    line = locate(positions, path)
    field_name = format_path(path)
    spec = registry.spec_for(name, config)
    if spec is None:
        close = registry.suggest(name, config)
        raise ConfigError(
            f"unknown metric {name!r}",
            file=display,
            line=line,
            field=field_name,
            hint=f"did you mean {close!r}?"
            if close
            else "see docs/metrics.md for the metrics supported, declare it in custom_metrics, or give it criteria and "
            "a rating_rubric (a templated judge metric)",
        )
    if spec.informational:
        raise ConfigError(
            f"{name} is informational and always reported; it takes no threshold",
            file=display,
            line=line,
            field=field_name,
            hint="remove it from criteria",
        )
    criterion = config.criterion(name)
    threshold = criterion.threshold
    if not math.isfinite(threshold):
        raise ConfigError("threshold must be a finite number", file=display, line=line, field=field_name)
    if spec.value_range and not spec.value_range[0] <= threshold <= spec.value_range[1]:
        low, high = spec.value_range
        raise ConfigError(
            f"threshold {threshold:g} is outside the metric's range [{low:g}, {high:g}]",
            file=display,
            line=locate(positions, [*path, "threshold"]) or line,
            field=field_name,
            hint=f"use a value between {low:g} and {high:g}",
        )
    try:
        typed = spec.criterion.model_validate(criterion.model_dump())
    except pydantic.ValidationError as error:
        raw = data.get("criteria", {}).get(name)
        if not isinstance(raw, dict):
            raw = criterion.model_dump()
        sub_path, message = best_error(error, raw, prefix=path)
        raise ConfigError(
            message,
            file=display,
            line=locate(positions, sub_path) or line,
            field=format_path(sub_path),
            hint=_option_hint(sub_path, spec.criterion),
        ) from None
    ignored = _ignored_options(typed, spec.criterion, name, display=display, line=line, positions=positions)
    return _string_threshold(data, name, display=display, positions=positions) + ignored


def _string_threshold(data: dict[str, Any], name: str, *, display: str, positions: JsonPositions) -> list[str]:
    """ADK reads a threshold written as a string ("0.8") as the number; so do we, and say so."""
    raw = data.get("criteria", {}).get(name) if isinstance(data.get("criteria"), dict) else None
    path: list[str | int] = ["criteria", name]
    if isinstance(raw, dict):
        raw, path = raw.get("threshold"), [*path, "threshold"]
    if not isinstance(raw, str):
        return []
    return [
        f"{display}:{locate(positions, path) or 1}: {format_path(path)} is the string {raw!r}; ADK reads it as the "
        f"number {float(raw):g}, and so does this tool: write it as a number"
    ]


def _ignored_options(
    typed: eval_config.BaseCriterion,
    criterion_type: type[eval_config.BaseCriterion],
    name: str,
    *,
    display: str,
    line: int | None,
    positions: JsonPositions,
) -> list[str]:
    """A warning for each option the metric does not have (ADK ignores them), with the closest real one; an
    error for a metric only this tool has (``unknown_options_are_errors``)."""
    ignored: list[str] = []
    options = [f for f in criterion_type.model_fields if f != "threshold"]
    for key in sorted(typed.model_extra or {}):
        suggestion = _did_you_mean(key, options)
        if criterion_type.unknown_options_are_errors:
            own = [option for option in options if option != "include_intermediate_responses_in_final"]
            raise ConfigError(
                f"{key} is not an option of {name}{suggestion}",
                file=display,
                line=locate(positions, ["criteria", name, key]) or line,
                field=f"criteria.{name}.{key}",
                hint=f"its options: {', '.join(own) or 'threshold only'}",
            )
        ignored.append(
            UnknownField(
                f"{display}:{locate(positions, ['criteria', name, key]) or line}: criteria.{name}.{key} is not an "
                f"option of {name} and is ignored (as ADK does){suggestion}"
            )
        )
    return ignored


def _option_hint(path: list[str | int], criterion_type: type[eval_config.BaseCriterion]) -> str | None:
    if path and path[-1] in {"match_type", "matchType"} and criterion_type is eval_config.ToolTrajectoryCriterion:
        return "use EXACT, IN_ORDER or ANY_ORDER"
    return None

"""One typed settings object, from command-line flags or the action's ``INPUT_*`` variables.

A flag given on the command line wins over the input; an empty input (GitHub sets every declared input) is
unset. Errors name the flag or the input the user wrote, so ``num-runs: zero`` gives a line about ``num-runs``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import pydantic

from adk_eval_gate.config.environment import current_environment
from adk_eval_gate.config.github_context import GitHubContext, read_context
from adk_eval_gate.config.options import BY_FIELD, OPTIONS, Option
from adk_eval_gate.config.runner_kinds import RUNNER_KINDS, RUNNER_NAMES, RunnerKind
from adk_eval_gate.config.shard import Shard
from adk_eval_gate.support.errors import UsageError

DEFAULT_OUTPUT_DIR = "adk-eval-results"
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


class Settings(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, arbitrary_types_allowed=True)

    command: str = "run"
    paths: list[str] = pydantic.Field(default_factory=lambda: ["."])
    dataset: list[str] = pydantic.Field(default_factory=list)
    include: list[str] = pydantic.Field(default_factory=list)
    exclude: list[str] = pydantic.Field(default_factory=list)
    config: Path | None = None
    allow_unknown_fields: bool = False
    legacy_session_file: bool = False
    lenient_judge_labels: bool = False
    runner: str = "adk"  # a name of config.runner_kinds.RUNNER_KINDS
    agent: str | None = None
    agent_map: list[str] = pydantic.Field(default_factory=list)
    agent_url: str | None = None
    agent_headers: list[str] = pydantic.Field(default_factory=list)
    recorded: Path | None = None
    num_runs: int = 1
    parallelism: int = 8
    workers: int | None = None  # adk runner processes; None: one per core, at most one per case run at once
    timeout: float = 300.0
    shard: Shard | None = None
    judge_parallelism: int = 8
    cache_dir: Path | None = None
    judge_labels: list[Path] = pydantic.Field(default_factory=list)
    min_judge_kappa: float = 0.6
    min_judge_labels: int = 30
    require_calibrated_judges: bool = False
    output_dir: Path = Path(DEFAULT_OUTPUT_DIR)
    results: Path | None = None
    junit: Path | None = None
    summary: Path | None = None
    html: Path | None = None
    baseline: Path | None = None
    artifact_name: str = "adk-eval-results"
    regression_tolerance: float = 0.0
    fail_on_regression: bool = False
    allow_not_evaluated: bool = False
    verbose: bool = False
    pass_rule: Literal["mean", "all", "majority"] = "mean"
    confirm_failures: int = 0
    sequential: bool = False
    confidence: float = 0.95
    margin: float = 0.10
    min_runs: int = 2
    undecided: Literal["point", "neutral", "fail"] = "point"
    # not an option: the cases of the whole suite (every shard), set by run once its files are planned; under
    # --undecided neutral the error of a proven failure is split across them
    sequential_cases: int = 1
    history: int = 10
    only_affected: bool = False
    always_affected: list[str] = pydantic.Field(default_factory=list)
    strict_comparison: bool = False
    prices: Path | None = None
    max_cost: float | None = None
    max_cost_increase: float | None = None
    max_latency_increase: float | None = None
    quarantine: list[str] = pydantic.Field(default_factory=list)
    comment_mode: Literal["always", "on-change", "on-failure", "off"] = "always"
    gate_id: str = "default"
    github_token: pydantic.SecretStr | None = None
    requirements: str | None = None
    github: GitHubContext = pydantic.Field(default_factory=GitHubContext)
    from_inputs: frozenset[str] = frozenset()  # fields whose value came from an action input (INPUT_*)
    from_cli: frozenset[str] = frozenset()  # fields given on the command line
    environment: dict[str, str] = pydantic.Field(default_factory=dict, repr=False, exclude=True)
    # the process environment the settings were read from: the judge's credentials, the http runner's
    # $VAR headers and the terminal check read it here, never os.environ

    @pydantic.field_validator("runner")
    @classmethod
    def _known_runner(cls, runner: str) -> str:
        if runner not in RUNNER_KINDS:
            raise ValueError(f"the runner must be one of {', '.join(RUNNER_NAMES)}")
        return runner

    @property
    def runner_kind(self) -> RunnerKind:
        """What the runner of ``--runner`` can do: the stages ask this, never the runner's name."""
        return RUNNER_KINDS[self.runner]

    @property
    def results_path(self) -> Path:
        return self.results or self.output_dir / "results.json"

    @property
    def junit_path(self) -> Path:
        return self.junit or self.output_dir / "junit.xml"

    @property
    def summary_path(self) -> Path:
        return self.summary or self.output_dir / "summary.md"

    @property
    def search_paths(self) -> list[str]:
        """The PATHs to discover eval files in: none when only ``--dataset`` files were named."""
        given = "paths" in self.from_cli or "paths" in self.from_inputs
        return self.paths if given or not self.dataset else []

    @property
    def html_path(self) -> Path:
        return self.html or self.output_dir / "report.html"

    @property
    def comment_path(self) -> Path:
        """The pull-request comment's body, written by ``run`` and ``report`` whether or not it is posted."""
        return self.output_dir / "comment.md"

    def option_name(self, field: str) -> str:
        """How the user wrote this option: ``input 'num-runs'`` in the action, ``--num-runs`` on the command line."""
        option = BY_FIELD[field]
        in_action = self.github.in_actions or bool(self.from_inputs)
        if option.input and (field in self.from_inputs or (in_action and field not in self.from_cli)):
            return f"input {option.input!r}"
        return "PATH" if field == "paths" else option.flag

    def token(self) -> str | None:
        return self.github_token.get_secret_value() if self.github_token else None


def _name(option: Option, from_input: bool) -> str:
    return f"input {option.input!r}" if from_input and option.input else option.flag


def _split(value: str, kind: str) -> list[str]:
    if kind == "lines":
        return [line.strip() for line in value.splitlines() if line.strip()]
    return [item for item in re.split(r"[\n,]+|\s+", value) if item]


def _convert(option: Option, raw: Any, *, from_input: bool) -> Any:
    """The option's value from the command line or its input, as its row in the table declares it."""
    name = _name(option, from_input)
    if option.kind in {"list", "lines"}:
        return raw if isinstance(raw, list) else _split(str(raw), option.kind)
    if option.kind == "bool":
        return _boolean(raw, name)
    if option.kind in {"int", "float"}:
        return _bounded(option, _number(option, raw, name), raw, name)
    text = str(raw).strip()
    if option.choices and text not in option.choices:
        raise UsageError(f"{name} must be one of {', '.join(option.choices)}, got {raw!r}")
    if option.kind == "shard":
        return Shard.parse(text, field=name)
    return Path(text) if option.kind == "path" else text


def _boolean(raw: Any, name: str) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise UsageError(f"{name} must be true or false, got {raw!r}")


def _number(option: Option, raw: Any, name: str) -> float:
    whole = option.kind == "int"
    try:
        number = int(str(raw).strip()) if whole else float(str(raw).strip())
    except ValueError:
        raise UsageError(f"{name} must be a {'whole number' if whole else 'number'}, got {raw!r}") from None
    if not math.isfinite(number):
        raise UsageError(f"{name} must be a finite number, got {raw!r}")
    return number


def _bounded(option: Option, number: float, raw: Any, name: str) -> float:
    low, high = option.minimum, option.maximum
    if low is not None and (number <= low if option.above else number < low):
        if option.above:
            raise UsageError(f"{name} must be more than {low:g}{' ' + option.unit if option.unit else ''}, got {raw!r}")
        raise UsageError(
            f"{name} must be at least {low:g}, got {raw!r}" if low else f"{name} must not be negative, got {raw!r}"
        )
    if high is not None and number > high:
        raise UsageError(f"{name} must be at most {high:g}, got {raw!r}")
    return number


def input_value(env: Mapping[str, str], option: Option) -> str | None:
    """The value of an action input; GitHub keeps hyphens and upper-cases the name."""
    if not option.input:
        return None
    name = "INPUT_" + option.input.replace(" ", "_").upper()
    value = env.get(name)
    if value is None:
        value = env.get(name.replace("-", "_"))
    return value if value not in (None, "") else None


def build_settings(command: str, cli_values: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Settings:
    """``cli_values``: what the command line set (absent or None: not given)."""
    env = current_environment() if env is None else env
    values: dict[str, Any] = {"command": command}
    from_inputs: set[str] = set()
    from_cli: set[str] = set()
    for option in OPTIONS:
        raw = cli_values.get(option.field)
        from_input = False
        if raw is None or raw == []:
            raw = input_value(env, option)
            from_input = raw is not None
        if raw is None:
            continue
        (from_inputs if from_input else from_cli).add(option.field)
        values[option.field] = _convert(option, raw, from_input=from_input)
    values["from_inputs"], values["from_cli"] = frozenset(from_inputs), frozenset(from_cli)
    token = values.pop("github_token", None) or env.get("GITHUB_TOKEN") or None
    values["github_token"] = pydantic.SecretStr(token) if token else None
    values["github"] = read_context(env)
    values["environment"] = dict(env)
    return _checked(Settings(**values))


def _checked(settings: Settings) -> Settings:
    name = settings.option_name

    if settings.command == "run":
        if settings.runner_kind.runs_remote and not settings.agent_url:
            raise UsageError(
                f"the {settings.runner} runner needs the agent's base URL",
                field=name("agent_url"),
                hint="set --agent-url / agent-url, e.g. http://127.0.0.1:8000",
            )
        if settings.runner_kind.replays and not settings.recorded:
            raise UsageError(
                f"the {settings.runner} runner needs recorded results",
                field=name("recorded"),
                hint="set --recorded / recorded to an ADK *.evalset_result.json, a folder, or a results.json",
            )
        if settings.agent_url and not re.match(r"^https?://", settings.agent_url):
            raise UsageError(f"{settings.agent_url!r} is not an http(s) URL", field=name("agent_url"))
        if settings.sequential and settings.min_runs > settings.num_runs:
            raise UsageError(
                f"--sequential starts each case with {settings.min_runs} runs, more than the {settings.num_runs} "
                "it may have",
                field=name("min_runs"),
                hint=f"raise {name('num_runs')}, the most runs a case gets, or lower {name('min_runs')}",
            )
    for option in OPTIONS:
        path = getattr(settings, option.field) if option.must_exist else None
        if path is not None and not path.is_file():
            raise UsageError(
                f"{option.must_exist} {str(path)!r} does not exist", field=name(option.field), hint=option.hint
            )
    if settings.requirements and settings.requirements != "pyproject" and not Path(settings.requirements).is_file():
        raise UsageError(
            f"requirements file {settings.requirements!r} does not exist",
            field=name("requirements"),
            hint="give a requirements file relative to the repository root, or 'pyproject'",
        )
    return settings

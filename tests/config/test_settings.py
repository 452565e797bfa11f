"""One settings object from flags or INPUT_* variables; errors name what the user wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.config.options import ACTION_INPUTS, OPTIONS
from adk_eval_gate.config.settings import Settings, build_settings
from adk_eval_gate.config.shard import Shard
from adk_eval_gate.support.errors import UsageError


def test_defaults() -> None:
    settings = build_settings("run", {}, env={})
    assert settings.paths == ["."] and settings.runner == "adk" and settings.num_runs == 1
    assert settings.parallelism == 8 and settings.timeout == 300 and settings.comment_mode == "always"
    assert settings.results_path == Path("adk-eval-results/results.json")


def test_inputs_are_read_with_hyphens_kept() -> None:
    env = {
        "INPUT_PATHS": "agents/a\nagents/b.evalset.json:case1",
        "INPUT_NUM-RUNS": "3",
        "INPUT_SHARD": "2/4",
        "INPUT_FAIL-ON-REGRESSION": "true",
        "INPUT_ALLOW-NOT-EVALUATED": "False",
        "INPUT_INCLUDE": "**/*.evalset.json, smoke/*",
        "INPUT_AGENT-HEADERS": "Authorization: Bearer $TOKEN\nX-Env: ci",
        "INPUT_REGRESSION-TOLERANCE": "0.05",
        "INPUT_COMMENT-MODE": "on-failure",
        "INPUT_GITHUB-TOKEN": "ghs_secret",
        "INPUT_RUNNER": "",  # GitHub sets every declared input; empty means unset
    }
    settings = build_settings("run", {}, env=env)
    assert settings.paths == ["agents/a", "agents/b.evalset.json:case1"]
    assert settings.num_runs == 3 and settings.shard == Shard(2, 4)
    assert settings.fail_on_regression is True and settings.allow_not_evaluated is False
    assert settings.include == ["**/*.evalset.json", "smoke/*"]
    assert settings.agent_headers == ["Authorization: Bearer $TOKEN", "X-Env: ci"]
    assert settings.regression_tolerance == 0.05 and settings.comment_mode == "on-failure"
    assert settings.token() == "ghs_secret" and "ghs_secret" not in repr(settings)
    assert settings.runner == "adk"


def test_flags_win_over_inputs() -> None:
    settings = build_settings("run", {"num_runs": 2}, env={"INPUT_NUM-RUNS": "5"})
    assert settings.num_runs == 2


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"INPUT_RUNNER": "docker"}, "input 'runner' must be one of adk, http, a2a, recorded, got 'docker'"),
        ({"INPUT_NUM-RUNS": "zero"}, "input 'num-runs' must be a whole number, got 'zero'"),
        ({"INPUT_NUM-RUNS": "0"}, "input 'num-runs' must be at least 1"),
        ({"INPUT_SHARD": "3/2"}, "input 'shard': shard '3/2' is out of range"),
        ({"INPUT_SHARD": "half"}, "input 'shard': 'half' is not a shard"),
        ({"INPUT_TIMEOUT": "-1"}, "input 'timeout' must be more than 0 seconds"),
        ({"INPUT_FAIL-ON-REGRESSION": "maybe"}, "input 'fail-on-regression' must be true or false"),
        ({"INPUT_REQUIREMENTS": "missing-requirements.txt"}, "input 'requirements': requirements file"),
        ({"INPUT_RUNNER": "http"}, "input 'agent-url': the http runner needs"),
        ({"INPUT_RUNNER": "a2a"}, "input 'agent-url': the a2a runner needs the agent's base URL"),
        ({"INPUT_CONFIDENCE": "1.5"}, "input 'confidence' must be at most 0.999"),
        ({"INPUT_MARGIN": "-0.1"}, "input 'margin' must not be negative, got '-0.1'"),
        ({"INPUT_UNDECIDED": "maybe"}, "input 'undecided' must be one of point, neutral, fail, got 'maybe'"),
        (
            {"INPUT_SEQUENTIAL": "true", "INPUT_MIN-RUNS": "5", "INPUT_NUM-RUNS": "3"},
            "input 'min-runs': --sequential starts each case with 5 runs, more than the 3 it may have",
        ),
    ],
)
def test_bad_inputs_name_the_input(env: dict[str, str], needle: str) -> None:
    with pytest.raises(UsageError) as caught:
        build_settings("run", {}, env=env)
    assert needle in caught.value.one_line()


def test_bad_flags_name_the_flag() -> None:
    with pytest.raises(UsageError, match="--num-runs must be at least 1"):
        build_settings("run", {"num_runs": "0"}, env={})


def test_every_option_is_a_settings_field() -> None:
    fields = set(Settings.model_fields)
    assert {option.field for option in OPTIONS} <= fields
    assert all(name == name.lower() and "_" not in name for name in ACTION_INPUTS)


def test_github_context_is_read_once(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text('{"pull_request": {"number": 7, "head": {"repo": {"full_name": "fork/repo"}}}}')
    settings = build_settings(
        "run",
        {},
        env={
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "owner/repo",
            "GITHUB_RUN_ID": "42",
            "GITHUB_SERVER_URL": "https://ghe.example",
            "GITHUB_TOKEN": "ghs_env",
        },
    )
    assert settings.github.pull_request_number == 7 and settings.github.is_fork_pull_request
    assert settings.github.run_url == "https://ghe.example/owner/repo/actions/runs/42"
    assert settings.token() == "ghs_env"

"""test_config.json: resolution order, every option of ADK's section 2, and one clear line per problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pydantic
import pytest
from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig

from adk_eval_gate.inputs.configs import ConfigSource, find_config, load_config
from adk_eval_gate.metrics.registry import configured_metrics
from adk_eval_gate.model import eval_config
from adk_eval_gate.support.errors import ConfigError
from tests.conftest import write_json


def _load(tmp_path: Path, data: Any, *, raw: str | None = None) -> Any:
    path = tmp_path / "test_config.json"
    path.write_text(raw if raw is not None else json.dumps(data, indent=2), encoding="utf-8")
    return load_config(ConfigSource("folder", path), root=tmp_path)


def _error(tmp_path: Path, data: Any, *, raw: str | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, data, raw=raw)
    return caught.value


def test_resolution_order(repo: Path) -> None:
    eval_file = repo / "agents" / "weather" / "evals" / "a.evalset.json"
    eval_file.parent.mkdir(parents=True)
    assert find_config(eval_file, root=repo, option=None).kind == "default"
    write_json(repo / "test_config.json", {"criteria": {"response_match_score": 0.5}})
    assert find_config(eval_file, root=repo, option=None) == ConfigSource("parent", repo / "test_config.json")
    write_json(repo / "agents" / "test_config.json", {"criteria": {"response_match_score": 0.6}})
    assert find_config(eval_file, root=repo, option=None).path == repo / "agents" / "test_config.json"
    write_json(eval_file.parent / "test_config.json", {"criteria": {"response_match_score": 0.7}})
    assert find_config(eval_file, root=repo, option=None).kind == "folder"
    explicit = repo / "other.json"
    assert find_config(eval_file, root=repo, option=explicit) == ConfigSource("option", explicit)


def test_agents_cli_eval_config_json_is_read_where_test_config_json_is(repo: Path) -> None:
    """agents-cli's scaffolds (before 0.3) keep ADK's EvalConfig as tests/eval/eval_config.json, a folder above
    their evalsets: it is found, said, and two names that disagree in one folder are an error naming both."""
    eval_file = repo / "tests" / "eval" / "evalsets" / "basic.evalset.json"
    eval_file.parent.mkdir(parents=True)
    write_json(repo / "tests" / "eval" / "eval_config.json", {"criteria": {"response_match_score": 0.3}})
    source = find_config(eval_file, root=repo, option=None)
    assert source == ConfigSource("parent", repo / "tests" / "eval" / "eval_config.json")
    assert source.describe(repo) == "tests/eval/eval_config.json (parent)"
    assert load_config(source, root=repo).config.criteria == {"response_match_score": 0.3}
    write_json(repo / "tests" / "eval" / "test_config.json", {"criteria": {"response_match_score": 0.3}})
    same = find_config(eval_file, root=repo, option=None)
    assert same.path == repo / "tests" / "eval" / "test_config.json"
    assert load_config(same, root=repo).config.criteria == {"response_match_score": 0.3}  # the same content: fine
    write_json(repo / "tests" / "eval" / "test_config.json", {"criteria": {"response_match_score": 0.9}})
    with pytest.raises(ConfigError) as raised:
        load_config(find_config(eval_file, root=repo, option=None), root=repo)
    assert raised.value.one_line() == (
        "tests/eval/test_config.json: tests/eval/eval_config.json is beside it with different content, so it is not "
        "clear which criteria to use (keep one of test_config.json and eval_config.json, or give them the same "
        "content)"
    )


def test_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    write_json(tmp_path / "test_config.json", {"criteria": {"response_match_score": 0.5}})
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    eval_file = repo / "evals" / "a.evalset.json"
    eval_file.parent.mkdir()
    assert find_config(eval_file, root=repo, option=None).kind == "default"


def test_defaults_are_adks_and_described(tmp_path: Path) -> None:
    loaded = load_config(ConfigSource("default", None), root=tmp_path)
    assert loaded.config.criteria == {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
    assert "ADK defaults" in loaded.source.describe(tmp_path)
    assert [m.name for m in loaded.metrics] == [
        "tool_trajectory_avg_score",
        "response_match_score",
        "tool_call_count_v1",
        "inference_call_count_v1",
        "token_usage_v1",
        "invocation_duration_v1",
    ]


FULL_CONFIG = {
    "criteria": {
        "tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "in_order", "ignore_args": True},
        "response_match_score": "0.7",
        "final_response_match_v2": {
            "threshold": 0.8,
            "judge_model_options": {
                "judge_model": "gemini-2.5-pro",
                "num_samples": 3,
                "judge_model_config": {"temperature": 0.1},
                "parallelism_limit": 2,
            },
        },
        "rubric_based_final_response_quality_v1": {
            "threshold": 0.6,
            "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Concise."}}],
            "judgeModelOptions": {"numSamples": 1},
        },
        "hallucinations_v1": {"threshold": 0.9, "evaluate_intermediate_nl_responses": True},
        "per_turn_user_simulator_quality_v1": {"threshold": 0.5, "stop_signal": "</done>"},
        "response_evaluation_score": 3.5,
        "trajectory_single_tool_use": {"threshold": 1.0, "tool_name": "get_weather"},
        "my_metric": 0.4,
    },
    "custom_metrics": {
        "my_metric": {
            "code_config": {"name": "pkg.metrics.score"},
            "metric_info": {
                "metric_name": "my_metric",
                "metric_value_info": {"interval": {"min_value": -1, "max_value": 1}},
            },
        }
    },
    "user_simulator_config": {"model": "gemini-2.5-flash", "max_allowed_invocations": 5},
    "unknown_top_level": True,
}


def test_every_option_parses_like_adk(tmp_path: Path) -> None:
    loaded = _load(tmp_path, FULL_CONFIG)
    theirs = AdkEvalConfig.model_validate(FULL_CONFIG)
    assert list(loaded.config.criteria) == list(theirs.criteria)
    for name in loaded.config.criteria:
        mine = loaded.config.criterion(name).model_dump()
        reference = theirs.criteria[name]
        reference_dump = reference.model_dump() if hasattr(reference, "model_dump") else {"threshold": reference}
        assert mine["threshold"] == reference_dump["threshold"]
    metrics = {m.name: m for m in loaded.metrics}
    trajectory = metrics["tool_trajectory_avg_score"].criterion
    assert isinstance(trajectory, eval_config.ToolTrajectoryCriterion)
    assert (trajectory.match_type, trajectory.ignore_args) == (eval_config.MatchType.IN_ORDER, True)
    judge = metrics["final_response_match_v2"].criterion
    assert isinstance(judge, eval_config.LlmAsAJudgeCriterion)
    assert judge.judge_model_options.num_samples == 3
    assert judge.judge_model_options.judge_model_config is not None
    rubric = metrics["rubric_based_final_response_quality_v1"].criterion
    assert isinstance(rubric, eval_config.RubricsBasedCriterion) and rubric.rubrics[0].rubric_id == "r"
    assert rubric.judge_model_options.num_samples == 1
    assert metrics["my_metric"].custom_function_path == "pkg.metrics.score"
    assert metrics["my_metric"].spec.value_range == (-1.0, 1.0)
    assert loaded.config.user_simulator_config is not None
    assert loaded.config.user_simulator_config.type == "llm_backed"
    assert loaded.config.user_simulator_config.max_allowed_invocations == 5


@pytest.mark.parametrize("spelling", ["EXACT", "in_order", "any-order", "Any Order", 0, 1, 2, " IN-ORDER "])
def test_match_type_spellings(tmp_path: Path, spelling: object) -> None:
    config = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": spelling}}}
    loaded = _load(tmp_path, config)
    criterion = loaded.metrics[0].criterion
    theirs = AdkEvalConfig.model_validate(config)
    from google.adk.evaluation.eval_metrics import ToolTrajectoryCriterion

    reference = ToolTrajectoryCriterion.model_validate(theirs.criteria["tool_trajectory_avg_score"].model_dump())
    assert isinstance(criterion, eval_config.ToolTrajectoryCriterion)
    assert criterion.match_type.value == reference.match_type.value


def test_unknown_metric_suggests_the_nearest_name(tmp_path: Path) -> None:
    error = _error(tmp_path, {"criteria": {"tool_trajectory_score": 1.0}})
    assert error.field == "criteria.tool_trajectory_score"
    assert error.line == 3
    assert "unknown metric 'tool_trajectory_score'" in error.one_line()
    assert "did you mean 'tool_trajectory_avg_score'?" in error.one_line()


def test_threshold_that_is_not_a_number(tmp_path: Path) -> None:
    error = _error(tmp_path, {"criteria": {"response_match_score": {"threshold": "high"}}})
    assert error.field == "criteria.response_match_score.threshold"
    assert "must be a number" in error.message


@pytest.mark.parametrize(
    ("name", "value", "range_text"),
    [
        ("response_match_score", 1.5, "[0, 1]"),
        ("tool_trajectory_avg_score", -0.1, "[0, 1]"),
        ("response_evaluation_score", 0.5, "[1, 5]"),
    ],
)
def test_threshold_outside_the_range(tmp_path: Path, name: str, value: float, range_text: str) -> None:
    error = _error(tmp_path, {"criteria": {name: value}})
    assert f"outside the metric's range {range_text}" in error.message


def test_a_custom_metric_without_a_declared_range_takes_any_threshold_as_adk_does(tmp_path: Path) -> None:
    """A count's threshold of 40: ADK checks no threshold against a range, and a custom metric declares none."""
    data = {"criteria": {"tool_calls": 40}, "custom_metrics": {"tool_calls": {"code_config": {"name": "m.count"}}}}
    metric = next(m for m in _load(tmp_path, data).metrics if m.name == "tool_calls")
    assert (metric.spec.value_range, metric.criterion.threshold) == (None, 40)
    assert AdkEvalConfig.model_validate(data).criteria["tool_calls"] == 40


def test_a_custom_metric_is_held_to_the_range_its_metric_info_declares(tmp_path: Path) -> None:
    interval = {"metric_value_info": {"interval": {"min_value": 0, "max_value": 10}}}
    custom = {"tool_calls": {"code_config": {"name": "m.count"}, "metric_info": {"metric_name": "n", **interval}}}
    error = _error(tmp_path, {"criteria": {"tool_calls": 40}, "custom_metrics": custom})
    assert "threshold 40 is outside the metric's range [0, 10]" in error.message


def test_every_problem_of_a_config_is_listed_at_once_in_the_file_s_order(tmp_path: Path) -> None:
    """A threshold that is not a number is an error, as it is for ADK (a number written as a string is not)."""
    data = {"criteria": {"response_match_score": "high", "tool_trajectory_avg_score": {"threshold": "x"}}}
    error = _error(tmp_path, data)
    assert [(problem.line, problem.field, problem.message) for problem in error.every_problem()] == [
        (3, "criteria.response_match_score", 'must be a number, got "high"'),
        (5, "criteria.tool_trajectory_avg_score.threshold", 'must be a number, got "x"'),
    ]
    with pytest.raises(pydantic.ValidationError):
        AdkEvalConfig.model_validate(data)


def test_bad_match_type(tmp_path: Path) -> None:
    error = _error(tmp_path, {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "FUZZY"}}})
    assert error.field == "criteria.tool_trajectory_avg_score.match_type"
    assert error.hint == "use EXACT, IN_ORDER or ANY_ORDER"


def test_efficiency_metric_with_threshold(tmp_path: Path) -> None:
    error = _error(tmp_path, {"criteria": {"token_usage_v1": 100}})
    assert "informational" in error.message and error.hint == "remove it from criteria"


def test_empty_criteria_and_missing_threshold_and_syntax(tmp_path: Path) -> None:
    assert "no criteria configured" in _error(tmp_path, {"criteria": {}}).message
    missing = _error(tmp_path, {"criteria": {"response_match_score": {"match_type": "EXACT"}}})
    assert missing.field == "criteria.response_match_score.threshold" and missing.message == "is required"
    syntax = _error(tmp_path, None, raw='{"criteria": {"response_match_score": 0.8,}}')
    assert syntax.line == 1 and "invalid JSON" in syntax.message


def test_single_tool_use_needs_tool_name(tmp_path: Path) -> None:
    error = _error(tmp_path, {"criteria": {"trajectory_single_tool_use": 1.0}})
    assert error.field == "criteria.trajectory_single_tool_use.tool_name"


def test_unknown_criterion_option_is_a_warning_with_a_suggestion(tmp_path: Path) -> None:
    loaded = _load(tmp_path, {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_typ": "EXACT"}}})
    assert len(loaded.warnings) == 1
    assert "match_typ is not an option" in loaded.warnings[0] and "did you mean 'match_type'" in loaded.warnings[0]


def test_custom_instructions_need_placeholders(tmp_path: Path) -> None:
    error = _error(
        tmp_path, {"criteria": {"response_match_score": 0.5}, "user_simulator_config": {"custom_instructions": "Talk."}}
    )
    assert error.field == "user_simulator_config.custom_instructions"
    assert "{{ stop_signal }}" in error.message


def test_configured_metrics_append_efficiency_once() -> None:
    config = eval_config.EvalConfig(criteria={"response_match_score": 0.5})
    names = [m.name for m in configured_metrics(config)]
    assert names.count("token_usage_v1") == 1 and names[0] == "response_match_score"


def test_a_threshold_written_as_a_string_is_read_as_adk_reads_it_with_a_warning(tmp_path: Path) -> None:
    data = {"criteria": {"response_match_score": "0.8", "tool_trajectory_avg_score": {"threshold": "1"}}}
    loaded = _load(tmp_path, data)
    adk = AdkEvalConfig.model_validate(data)
    assert loaded.config.criterion("response_match_score").threshold == adk.criteria["response_match_score"] == 0.8
    assert loaded.config.criterion("tool_trajectory_avg_score").threshold == 1.0
    assert [w.split(": ", 1)[1] for w in loaded.warnings] == [
        "criteria.response_match_score is the string '0.8'; ADK reads it as the number 0.8, and so does this "
        "tool: write it as a number",
        "criteria.tool_trajectory_avg_score.threshold is the string '1'; ADK reads it as the number 1, and so "
        "does this tool: write it as a number",
    ]


def test_an_unknown_top_level_key_is_a_warning_with_the_nearest_name(tmp_path: Path) -> None:
    loaded = _load(tmp_path, {"criteria": {"response_match_score": 0.5}, "custom_metric": {}})
    assert [w.split(": ", 1)[1] for w in loaded.warnings] == [
        "custom_metric is not a key of test_config.json and is ignored (as ADK does); did you mean 'custom_metrics'?"
    ]


@pytest.mark.slow  # a fresh interpreter
def test_preparing_eval_files_loads_yaml_and_agents_cli_configs_only_when_a_yaml_config_is_read() -> None:
    """``run`` and ``validate`` with ADK's JSON configs import neither PyYAML nor the agents-cli config reader."""
    code = (
        "import sys\nimport adk_eval_gate.inputs.prepare\n"
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] == 'yaml' "
        "or m == 'adk_eval_gate.inputs.eval_config_yaml'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert "LOADED []" in done.stdout.splitlines(), done.stdout

"""agents-cli's eval_config.yaml read as agents-cli reads it, with the gate's thresholds in the one key agents-cli
ignores: each of agents-cli's checks an error with its line and field, what agents-cli ignores warned about, and
hostile YAML and code files refused one by one."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from adk_eval_gate.inputs.configs import DATASET_CONFIG_NAMES, ConfigSource, find_config, load_config
from adk_eval_gate.model import agents_cli_config as acli
from adk_eval_gate.support.errors import ConfigError, UnknownField
from adk_eval_gate.support.pydantic_errors import MAX_LISTED
from tests.inputs.layouts import LAYOUTS

SCAFFOLD = LAYOUTS / "agents_cli"
FUNCTION = "def evaluate(instance):\n    return {'score': 1}\n"


def _config(repo: Path, text: str, name: str = "eval_config.yaml") -> Path:
    path = repo / "tests" / "eval" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _load(repo: Path, path: Path):  # type: ignore[no-untyped-def]
    return load_config(ConfigSource("folder", path), root=repo)


def _problems(repo: Path, text: str) -> list[ConfigError]:
    with pytest.raises(ConfigError) as caught:
        _load(repo, _config(repo, text))
    return [problem for problem in caught.value.every_problem() if isinstance(problem, ConfigError)]


def test_agents_clis_scaffold_config_runs_its_listed_metric_and_says_what_it_leaves_out() -> None:
    dataset = SCAFFOLD / "tests" / "eval" / "datasets" / "basic-dataset.json"
    source = find_config(dataset, root=SCAFFOLD, option=None, names=DATASET_CONFIG_NAMES)
    assert source.describe(SCAFFOLD) == "tests/eval/eval_config.yaml (parent)"
    loaded = load_config(source, root=SCAFFOLD)
    graded = [metric for metric in loaded.metrics if metric.spec.kind != "informational"]
    assert loaded.agents_cli and [(m.name, m.spec.kind, m.threshold) for m in graded] == [
        ("custom_response_quality", "custom", None)
    ]
    definition = graded[0].definition
    assert isinstance(definition, acli.FunctionDefinition) and definition.file == "tests/eval/response_quality.py"
    assert definition.filename == "<custom_metric:custom_response_quality>" and "def evaluate" in definition.source
    assert loaded.files == [SCAFFOLD / "tests" / "eval" / "response_quality.py"]
    said = "\n".join(loaded.warnings)
    assert "custom_metrics[1]: agent_turn_count is defined but metrics_to_run does not list it" in said
    assert "no metric of metrics_to_run has a threshold" in said
    assert not any(isinstance(warning, UnknownField) for warning in loaded.warnings)  # validate passes the scaffold


def test_thresholds_come_from_the_gates_own_key_and_every_kind_of_metric_resolves(repo: Path) -> None:
    path = _config(
        repo,
        """\
        metrics_to_run: [turns, judge, general_quality, final_response_match_v2, safety, bleu]
        custom_metrics:
          - name: turns
            custom_function: |
              def evaluate(instance):
                  return {'score': 1}
          - name: judge
            prompt_template: "Score {response} for {prompt}. Return JSON: {\\"score\\": 1}"
            judge_model: projects/p/locations/global/publishers/google/models/gemini-2.5-pro
            judge_model_sampling_count: 3
            judge_model_system_instruction: Be strict.
            judge_model_generation_config: {temperature: 0.5}
          - name: safety
            metric_spec_parameters: {policy: strict}
        adk_eval_gate:
          thresholds: {turns: 1, judge: 3.5, general_quality: 0.8}
          budgets: {max_tokens_per_turn: 5000}
        """,
    )
    loaded = _load(repo, path)
    metrics = {metric.name: metric for metric in loaded.metrics}
    assert {name: metrics[name].threshold for name in ("turns", "judge", "general_quality", "safety")} == {
        "turns": 1.0,
        "judge": 3.5,
        "general_quality": 0.8,
        "safety": None,
    }
    judge = metrics["judge"].definition
    assert isinstance(judge, acli.TemplateDefinition)
    options = judge.judge_model_options
    assert (options.judge_model, options.num_samples) == ("gemini-2.5-pro", 3)
    assert (
        options.judge_model_config.temperature == 0.5 and options.judge_model_config.system_instruction == "Be strict."
    )
    built_in = {
        name: metrics[name].definition for name in ("general_quality", "final_response_match_v2", "safety", "bleu")
    }
    assert {name: d.metric for name, d in built_in.items()} == {  # type: ignore[union-attr]
        "general_quality": "general_quality_v2",
        "final_response_match_v2": "final_response_match_v2",
        "safety": "safety_v3",
        "bleu": "bleu",
    }
    assert built_in["safety"].metric_spec_parameters == {"policy": "strict"}  # type: ignore[union-attr]
    assert loaded.config.budgets is not None and loaded.config.budgets.max_tokens_per_turn == 5000
    assert metrics["general_quality"].spec.value_range == (0.0, 1.0) and metrics["judge"].spec.kind == "judge"


def test_a_template_without_sampling_is_asked_four_times_as_the_service_does(repo: Path) -> None:
    path = _config(repo, "metrics_to_run: [j]\ncustom_metrics:\n  - {name: j, prompt_template: '{response}'}\n")
    (metric, *_) = _load(repo, path).metrics
    assert isinstance(metric.definition, acli.TemplateDefinition)
    assert metric.definition.judge_model_options.num_samples == acli.DEFAULT_SAMPLING_COUNT == 4


@pytest.mark.parametrize(
    ("text", "line", "field", "said"),
    [
        ("metrics_to_run: []\n", 1, "metrics_to_run", "lists no metrics"),
        ("metrics_to_run: [x]\ncustom_metrics:\n  - just a string\n", 3, "custom_metrics[0]", "must be an object"),
        (
            "metrics_to_run: [x]\ncustom_metrics:\n  - name: x\n    prompt_template: '{response}'\n"
            "    rubric_group_name: g\n",
            5,
            "custom_metrics[0].rubric_group_name",
            "rubric_group_name is not supported",
        ),
        (
            "metrics_to_run: [general_quality_v1]\ncustom_metrics:\n  - name: general_quality_v1\n"
            "    custom_function: 'def evaluate(i): return 1'\n",
            3,
            "custom_metrics[0].name",
            "reserved by the evaluation service",
        ),
        ("metrics_to_run: [mine]\ncustom_metrics:\n  - name: mine\n", 3, "custom_metrics[0].name", "needs a prompt"),
        (
            "metrics_to_run: [m]\ncustom_metrics:\n  - name: m\n    custom_function: 'def evaluate(i): pass'\n"
            "    custom_function_file: m.py\n",
            5,
            "custom_metrics[0].custom_function_file",
            "has both custom_function and custom_function_file",
        ),
        (
            "metrics_to_run: [m]\ncustom_metrics:\n  - name: m\n    custom_function_file: missing.py\n",
            4,
            "custom_metrics[0].custom_function_file",
            "'missing.py' not found",
        ),
        (
            "metrics_to_run: [m]\ncustom_metrics:\n  - name: m\n    custom_function: 'def evaluate(i): pass'\n"
            "    execution: cloud\n",
            5,
            "custom_metrics[0].execution",
            "execution is 'cloud'",
        ),
        (
            "metrics_to_run: [m]\ncustom_metrics:\n  - name: m\n    custom_function: 'def score(i): pass'\n",
            3,
            "custom_metrics[0]",
            "must define evaluate(instance)",
        ),
        ("metrics_to_run: [genral_quality]\n", 1, "metrics_to_run[0]", "did you mean 'general_quality'?"),
        ("metrics_to_run: [m]\nadk_eval_gate:\n  thresholds: {other: 1}\n", 3, "adk_eval_gate.thresholds.other", ""),
        ("metrics_to_run: [m]\nadk_eval_gate:\n  thresholds: {m: high}\n", 3, "adk_eval_gate.thresholds", "number"),
        ("metrics_to_run: [m]\nadk_eval_gate:\n  threshold: {m: 1}\n", 3, "adk_eval_gate.threshold", "not a known"),
        (
            "metrics_to_run: [m]\ncustom_metrics:\n  - name: m\n    prompt_template: x\n"
            "    judge_model_sampling_count: 33\n",
            5,
            "custom_metrics[0].judge_model_sampling_count",
            "",
        ),
    ],
)
def test_each_of_agents_clis_checks_is_one_line_with_its_line_and_field(
    repo: Path, text: str, line: int, field: str, said: str
) -> None:
    problems = _problems(repo, text)
    found = [(problem.line, problem.field) for problem in problems]
    assert (line, field) in found, [problem.one_line() for problem in problems]
    problem = next(problem for problem in problems if (problem.line, problem.field) == (line, field))
    assert said in problem.one_line() and "\n" not in problem.one_line()


def test_a_function_that_does_not_compile_names_its_own_line(repo: Path) -> None:
    (repo / "tests" / "eval").mkdir(parents=True)
    (repo / "tests" / "eval" / "metric.py").write_text("def evaluate(instance):\n    return {\n", encoding="utf-8")
    inline = _problems(
        repo,
        """\
        metrics_to_run: [a, b]
        custom_metrics:
          - name: a
            custom_function_file: metric.py
          - name: b
            custom_function: |
              def evaluate(instance)
                  return 1
        """,
    )
    lines = {(problem.file, problem.line) for problem in inline}
    assert ("tests/eval/metric.py", 2) in lines and ("tests/eval/eval_config.yaml", 7) in lines


def test_execution_remote_is_one_clear_line_and_the_metric_is_never_computed(repo: Path) -> None:
    path = _config(
        repo,
        "metrics_to_run: [m]\ncustom_metrics:\n  - name: m\n    custom_function: 'def evaluate(i): pass'\n"
        "    execution: remote\n",
    )
    loaded = _load(repo, path)
    (metric, *_) = loaded.metrics
    assert isinstance(metric.definition, acli.UnsupportedDefinition) and "not support" in metric.definition.reason
    assert any("tests/eval/eval_config.yaml:5: m has execution: remote" in warning for warning in loaded.warnings)


def test_what_agents_cli_ignores_is_warned_about_with_its_line(repo: Path) -> None:
    path = _config(
        repo,
        """\
        metrics_to_run: [m]
        metrics_to_rnu: [x]
        custom_metrics:
          - name: m
            custom_function: 'def evaluate(i): return 1'
            thresold: 0.5
          - custom_function: 'def evaluate(i): return 1'
        """,
    )
    warnings = _load(repo, path).warnings
    unknown = [warning for warning in warnings if isinstance(warning, UnknownField)]
    assert any(
        w.startswith("tests/eval/eval_config.yaml:2: metrics_to_rnu:") and "'metrics_to_run'" in w for w in unknown
    )
    assert any(w.startswith("tests/eval/eval_config.yaml:6: custom_metrics[0].thresold:") for w in unknown)
    assert any("custom_metrics[1]: has no name; agents-cli ignores it" in w for w in unknown)


def test_the_same_config_in_json_given_with_config_is_read_the_same(repo: Path) -> None:
    path = repo / "agents.json"
    path.write_text('{"metrics_to_run": ["m"], "custom_metrics": [{"name": "m", "prompt_template": "{response}"}]}')
    loaded = _load(repo, path)
    assert loaded.agents_cli and isinstance(loaded.metrics[0].definition, acli.TemplateDefinition)


def test_eval_config_yaml_and_yml_side_by_side_must_agree(repo: Path) -> None:
    _config(repo, "metrics_to_run: [general_quality]\n")
    _config(repo, "metrics_to_run: [safety]\n", name="eval_config.yml")
    source = find_config(repo / "tests" / "eval" / "x-dataset.json", root=repo, option=None, names=DATASET_CONFIG_NAMES)
    with pytest.raises(ConfigError, match=r"eval_config\.yml is beside it with different content"):
        load_config(source, root=repo)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{n}: &{n} [{', '.join(['*' + p] * 10)}]\n" for p, n in zip("abcdef", "bcdefg", strict=True)),
            "expands to more than 100,000 values",
        ),
        ("metrics_to_run: &m [x, *m]\n", "contains itself"),
        ("metrics_to_run: " + "[" * 200 + "]" * 200 + "\n", "nested more than 120 levels deep"),
        pytest.param(  # deeper than YAML's loader can recurse: seconds of pure-Python parsing
            "metrics_to_run: " + "[" * 3000 + "]" * 3000 + "\n",
            "nested more than 120 levels deep",
            marks=pytest.mark.slow,
        ),
        ("metrics_to_run: [m]\nadk_eval_gate: {thresholds: {m: .inf}}\n", "inf is not a finite number"),
        ("metrics_to_run: [m]\nadk_eval_gate: {thresholds: {m: .nan}}\n", "nan is not a finite number"),
        ("metrics_to_run: [2026-01-01]\n", "read as a date by YAML"),
        ("metrics_to_run: [!!binary aGk=]\n", "has no JSON form"),
        ("metrics_to_run: [a\n", "invalid YAML"),
        ("- just\n- a list\n", "must be a mapping"),
    ],
)
def test_hostile_yaml_is_one_clear_error(repo: Path, text: str, said: str) -> None:
    problems = _problems(repo, text)
    assert said in problems[0].one_line() and "\n" not in problems[0].one_line()


def test_a_config_that_is_not_utf8_or_too_large_is_refused(repo: Path) -> None:
    path = _config(repo, "")
    path.write_bytes(b"metrics_to_run: [\xff]\n")
    with pytest.raises(ConfigError, match=r"is not UTF-8 \(byte 0xff"):
        _load(repo, path)
    path.write_bytes(b"# " + b"x" * 1_100_000 + b"\n")
    with pytest.raises(ConfigError, match="larger than 1 MiB"):
        _load(repo, path)


def test_a_function_file_that_is_a_fifo_or_a_link_loop_is_refused_without_blocking(repo: Path) -> None:
    (repo / "tests" / "eval").mkdir(parents=True)
    os.mkfifo(repo / "tests" / "eval" / "pipe.py")
    (repo / "tests" / "eval" / "loop.py").symlink_to("loop.py")
    problems = _problems(
        repo,
        """\
        metrics_to_run: [a, b]
        custom_metrics:
          - {name: a, custom_function_file: pipe.py}
          - {name: b, custom_function_file: loop.py}
        """,
    )
    said = " ".join(problem.one_line() for problem in problems)
    assert "is a FIFO (named pipe)" in said and "loops back on itself" in said


def test_a_function_file_outside_the_repository_is_refused_alike_absolute_by_dots_or_through_a_link(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "tests" / "eval").mkdir(parents=True)
    outside = tmp_path / "elsewhere.py"
    outside.write_text(FUNCTION, encoding="utf-8")
    (repo / "tests" / "eval" / "link.py").symlink_to(outside)
    problems = _problems(
        repo,
        f"""\
        metrics_to_run: [a, b, c]
        custom_metrics:
          - {{name: a, custom_function_file: {outside}}}
          - {{name: b, custom_function_file: ../../../elsewhere.py}}
          - {{name: c, custom_function_file: link.py}}
        """,
    )
    outside_said = "is outside the repository (symbolic links followed)"
    refusals = [problem for problem in problems if outside_said in problem.message]
    assert [problem.line for problem in refusals] == [3, 4, 5], problems
    assert {problem.field for problem in refusals} == {f"custom_metrics[{n}].custom_function_file" for n in range(3)}


@pytest.mark.parametrize(
    ("named", "said"),
    [
        ('"m\\0.py"', "'m\\x00.py' holds a NUL character"),
        ("x" * 300 + ".py", "has a name of 303 bytes, more than the 255"),
        ("d/" * 2500 + "m.py", "(5,004 characters) is 5,004 bytes long, more than the 4,096"),
    ],
    ids=["nul", "long-name", "long-path"],
)
def test_a_function_file_name_no_file_can_have_is_the_configs_one_line_problem(
    repo: Path, named: str, said: str
) -> None:
    text = f"metrics_to_run: [m]\ncustom_metrics:\n  - name: m\n    custom_function_file: {named}\n"
    problems = _problems(repo, text)
    (problem,) = problems
    assert said in problem.one_line() and problem.line == 4, problem.one_line()
    assert problem.one_line().startswith("tests/eval/eval_config.yaml:4: custom_metrics[0].custom_function_file: ")
    assert len(problem.one_line()) < 400


def test_a_config_with_more_problems_than_are_listed_says_how_many_more_there_are(tmp_path: Path) -> None:
    """60 entries of metrics_to_run that are not names: 50 listed, and the error counts the other 10."""
    entries = "".join(f"  - {number}\n" for number in range(60))
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, _config(tmp_path, "metrics_to_run:\n" + entries))
    error = caught.value
    assert len(error.every_problem()) == MAX_LISTED and error.unlisted == 60 - MAX_LISTED
    assert error.more() == 59
    assert error.file == "tests/eval/eval_config.yaml" and error.line == 2 and error.field == "metrics_to_run[0]"

"""validate: every eval file and config checked in-process, nothing run; exit 2 naming the broken file."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from adk_eval_gate.commands.validate import validate
from adk_eval_gate.config.settings import build_settings
from adk_eval_gate.support.console import Console
from tests.conftest import EXAMPLES
from tests.runners.scripted import turn, write_agent, write_evalset


def _validate(paths: list[str], *, in_actions: bool = False, **options: str) -> tuple[int, str]:
    out = io.StringIO()
    settings = build_settings("validate", {"paths": paths, **options}, env={})
    code = validate(settings, Console(in_actions=in_actions, stream=out))
    return code, out.getvalue()


@pytest.mark.slow  # imports the example agents in a worker process
def test_the_examples_are_valid() -> None:
    code, text = _validate([str(EXAMPLES / "weather_agent")])
    assert code == 0
    assert "weather.evalset.json: 3 cases (evalset), criteria from" in text
    assert "legacy/weather_legacy.test.json: 1 case (legacy_query_list)" in text
    assert text.rstrip().endswith("all 2 files are valid")


def test_a_broken_file_is_named_and_the_others_are_still_checked(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    (tmp_path / "bad.evalset.json").write_text('{"eval_set_id": "x", "eval_cases": [')
    good = {"eval_set_id": "good", "eval_cases": [{"eval_id": "a", "conversation": []}]}
    (tmp_path / "good.evalset.json").write_text(json.dumps(good))
    code, text = _validate([str(tmp_path)], runner="http")
    assert code == 2
    assert "bad.evalset.json" in text and "1 of 2 files have problems" in text
    assert "ok   " in text and "good.evalset.json" in text


def test_every_problem_of_a_shared_config_is_reported_once(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    criteria = {"criteria": {"respons_match_score": 0.5, "tool_trajectory_avg_score": 7}}
    (tmp_path / "test_config.json").write_text(json.dumps(criteria, indent=2))
    good = {"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": []}]}
    for name in ("one", "two", "three"):
        (tmp_path / f"{name}.evalset.json").write_text(json.dumps(good))
    code, text = _validate([str(tmp_path)], runner="http")
    assert code == 2
    unknown = [line for line in text.splitlines() if "unknown metric 'respons_match_score'" in line]
    out_of_range = [line for line in text.splitlines() if "threshold 7 is outside" in line]
    assert len(unknown) == 1 and len(out_of_range) == 1, text
    assert "3 of 3 files have problems" in text


@pytest.mark.slow  # validates the folder twice, for the adk runner and for the http one
def test_what_run_would_need_is_checked_too_the_agent_and_custom_metric_functions(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    config = {
        "criteria": {"response_match_score": 0.5, "my_metric": 0.5},
        "custom_metrics": {"my_metric": {"code_config": {"name": "no_such_package.metrics.score"}}},
    }
    (tmp_path / "test_config.json").write_text(json.dumps(config))
    good = {"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": []}]}
    (tmp_path / "lonely.evalset.json").write_text(json.dumps(good))
    code, text = _validate([str(tmp_path)])
    assert code == 2
    assert "lonely.evalset.json: no agent found for" in text
    assert "custom metric my_metric: cannot import custom metric function 'no_such_package.metrics.score'" in text
    code, text = _validate([str(tmp_path)], runner="http")
    assert code == 2 and "no agent found" not in text and "custom metric my_metric" in text


def test_an_eval_file_with_another_name_gets_a_hint_to_rename_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    good = {"eval_set_id": "s", "eval_cases": [{"eval_id": "a", "conversation": []}]}
    (tmp_path / "good.evalset.json").write_text(json.dumps(good))
    (tmp_path / "sample_eval.json").write_text(json.dumps(good))  # ADK's samples name them so
    (tmp_path / "legacy_eval.json").write_text(json.dumps([{"query": "hi", "reference": "hello"}]))
    (tmp_path / "settings.json").write_text(json.dumps({"theme": "dark"}))
    code, text = _validate([str(tmp_path)], runner="http")
    assert code == 0
    hinted = [line for line in text.splitlines() if "looks like an eval file" in line]
    assert [line.split("warning: ")[1].split(" looks")[0].rsplit("/", 1)[1] for line in hinted] == [
        "legacy_eval.json",
        "sample_eval.json",
    ]
    assert "rename it, or pass it explicitly as a path" in hinted[0]


@pytest.mark.slow  # imports the agent in a worker process
def test_an_agent_that_does_not_import_is_named_with_its_line_and_where_to_add_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # where the package goes: the action's input
    write_agent(tmp_path / "bot", "import os\nimport stripe_payments_sdk\n")
    (tmp_path / "bot" / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    write_evalset(tmp_path / "bot" / "one.evalset.json", {"a": [turn("hi")]})
    write_evalset(tmp_path / "bot" / "two.evalset.json", {"b": [turn("hi")]})
    code, text = _validate(["bot"], in_actions=True)
    assert code == 2, text
    [annotation] = [line for line in text.splitlines() if "stripe_payments_sdk" in line]
    assert annotation == (
        "::error file=bot/agent.py,line=2::agent bot could not be imported: ModuleNotFoundError: No module named "
        "'stripe_payments_sdk' (bot/agent.py:2) (list the package that provides 'stripe_payments_sdk' in the "
        "action's requirements input)"
    )
    assert "::error file=bot/one.evalset.json::bot/one.evalset.json: agent bot could not be imported" in text
    assert "2 of 2 files have problems" in text


def test_every_problem_of_a_file_is_printed_at_once_and_a_huge_file_s_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.inputs.test_load import SEVERAL_PROBLEMS

    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    (tmp_path / "several.evalset.json").write_text(json.dumps(SEVERAL_PROBLEMS, indent=2))
    turn = {"user_content": {"parts": [{"text": "hi"}]}, "typo": 1}
    cases = [{"eval_id": f"c{index}", "conversation": [turn]} for index in range(120)]
    (tmp_path / "huge.evalset.json").write_text(json.dumps({"eval_set_id": "h", "eval_cases": cases}, indent=1))
    code, text = _validate(["."], runner="http")
    assert code == 2
    several = [line for line in text.splitlines() if line.startswith("error: several.evalset.json:")]
    assert [line.split(": ")[2] for line in several] == [
        "eval_cases[0].conversation[0].final_respons",
        "eval_cases[0].conversation[0].intermediate_data.tool_uses[0].tool",
        "eval_cases[1].eval_id",
    ]
    huge = [line for line in text.splitlines() if line.startswith("error: huge.evalset.json")]
    assert len(huge) == 51 and huge[-1] == "error: huge.evalset.json: and 70 more problems, not listed: fix these first"
    assert "more problems)" not in text and "2 of 2 files have problems" in text


def test_hostile_test_modules_anywhere_are_notes_and_every_file_is_still_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A NUL or a 300-character name in a path, and names that grow without bound, in a project nobody runs."""
    (tmp_path / ".git").mkdir()
    write_evalset(tmp_path / "evals" / "a.evalset.json", {"a": [turn("hello", answer="echo: hello")]})
    chain = "\n".join(["a0 = 'x'", *(f"a{i} = f'" + f"{{a{i - 1}}}" * 10 + "'" for i in range(1, 20))])
    (tmp_path / "other" / "tests").mkdir(parents=True)
    (tmp_path / "other" / "tests" / "test_hostile.py").write_text(
        "from google.adk.evaluation import AgentEvaluator\n"
        f"{chain}\n"
        "async def test_a():\n"
        "    await AgentEvaluator.evaluate('bot', 'evals/a\\0.test.json')\n"
        f"    await AgentEvaluator.evaluate('bot', 'evals/{'n' * 300}.test.json')\n"
        "    await AgentEvaluator.evaluate('bot', a19)\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    code, text = _validate(["evals"], runner="http")
    assert code == 0, text
    notes = [line for line in text.splitlines() if line.startswith("note other/tests/test_hostile.py:")]
    assert len(notes) == 3 and all(len(note) < 300 for note in notes), notes
    assert "holds a NUL character" in notes[0] and "more than the 255 a file name may have" in notes[1]
    assert "makes a text longer than 16,384 characters" in notes[2]
    assert "ok   evals/a.evalset.json: 1 case (evalset)" in text


def test_an_error_printed_for_no_file_s_count_still_fails_validate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever prints an error while validating (here a stage that reports a dataset's JSON itself and keeps the
    file's count clean) makes the exit code 2, never 0 under an error line."""
    from adk_eval_gate.commands import validate as command

    (tmp_path / ".git").mkdir()
    good = {"eval_set_id": "good", "eval_cases": [{"eval_id": "a", "conversation": []}]}
    (tmp_path / "good.evalset.json").write_text(json.dumps(good))
    real_prepare = command.prepare

    def prepare_reporting_aside(settings: Any, console: Console, **options: Any) -> Any:
        console.error("basic-dataset.json:1:2: invalid JSON: Expecting value", file="basic-dataset.json", line=1)
        return real_prepare(settings, console, **options)

    monkeypatch.setattr(command, "prepare", prepare_reporting_aside)
    code, text = _validate([str(tmp_path)], runner="http")
    assert "invalid JSON" in text and "ok   " in text
    assert code == 2 and "all 1 files are valid" not in text
    assert text.rstrip().endswith("1 file checked, with the errors above")

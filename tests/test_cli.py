"""The command line: help, validate, migrate, merge, and one clear line (exit 2) for every bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from google.adk.evaluation.agent_evaluator import AgentEvaluator

from adk_eval_gate.cli import main
from adk_eval_gate.model.results import CaseResult, FileResult, ResultsDocument, Totals, json_schema
from tests.conftest import EXAMPLES, REPO, run_cli, write_json

pytestmark = pytest.mark.slow  # the CLI as a real process

GOOD_SET = {
    "eval_set_id": "s",
    "eval_cases": [
        {
            "eval_id": "a",
            "conversation": [
                {"user_content": {"parts": [{"text": "hi"}]}, "final_response": {"parts": [{"text": "hello"}]}}
            ],
        }
    ],
}


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "run" in capsys.readouterr().out
    assert main([]) == 2
    result = run_cli("--version", cwd=REPO)
    assert result.returncode == 0 and result.stdout.startswith("adk-eval-gate ")


def test_validate_good_files(repo: Path) -> None:
    write_json(repo / "a.evalset.json", GOOD_SET)
    write_json(repo / "test_config.json", {"criteria": {"response_match_score": 0.5}})
    result = run_cli("validate", "--runner", "http", cwd=repo)  # no agent here: it is served elsewhere
    assert result.returncode == 0, result.stdout
    assert "ok   a.evalset.json: 1 case (evalset), criteria from test_config.json (folder)" in result.stdout


def test_validate_examples() -> None:
    result = run_cli("validate", "examples", "--exclude", "examples/gemini_agent/**", cwd=REPO)
    assert result.returncode == 0, result.stdout
    assert "weather_legacy.test.json: 1 case (legacy_query_list)" in result.stdout


BAD_INPUTS = [
    (
        "broken JSON",
        "a.evalset.json",
        '{"eval_set_id": "s",\n "eval_cases": [\n}',
        None,
        "a.evalset.json:3:1: invalid JSON",
    ),
    (
        "unknown metric",
        "a.evalset.json",
        GOOD_SET,
        {"criteria": {"response_match": 0.5}},
        "test_config.json:3: criteria.response_match: unknown metric 'response_match' "
        "(did you mean 'response_match_score'?)",
    ),
    (
        "threshold not a number",
        "a.evalset.json",
        GOOD_SET,
        {"criteria": {"response_match_score": "high"}},
        "criteria.response_match_score: must be a number",
    ),
    (
        "threshold out of range",
        "a.evalset.json",
        GOOD_SET,
        {"criteria": {"response_match_score": 1.5}},
        "threshold 1.5 is outside the metric's range [0, 1]",
    ),
    (
        "duplicate eval id",
        "a.evalset.json",
        {"eval_set_id": "s", "eval_cases": GOOD_SET["eval_cases"] * 2},
        None,  # type: ignore[operator]
        "eval_cases[1].eval_id: duplicate eval_id 'a'",
    ),
    ("not UTF-8", "a.evalset.json", b'{"eval_set_id": "\xff"}', None, "is not UTF-8"),
    ("empty eval set", "a.evalset.json", {"eval_set_id": "s", "eval_cases": []}, None, "has no eval cases"),
]


@pytest.mark.parametrize("bad_input", BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS])
def test_bad_inputs_give_one_clear_line_and_exit_2(
    repo: Path, bad_input: tuple[str, str, object, object, str], cli_in_process: Callable[..., Any]
) -> None:
    """In this process (the same command; the tests around it run it as a process): one line for each input."""
    label, name, content, config, needle = bad_input
    path = repo / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        write_json(path, content)
    if config is not None:
        write_json(repo / "test_config.json", config)
    result = cli_in_process("validate", cwd=repo)
    assert result.returncode == 2, (label, result.stdout, result.stderr)
    errors = [line for line in result.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stdout
    assert needle in errors[0], errors[0]
    assert "Traceback" not in result.stdout + result.stderr


def test_errors_are_annotations_inside_github_actions(repo: Path) -> None:
    write_json(repo / "a.evalset.json", GOOD_SET)
    write_json(repo / "test_config.json", {"criteria": {"response_match": 0.5}})
    result = run_cli("validate", cwd=repo, env={"GITHUB_ACTIONS": "true"})
    assert "::error file=test_config.json,line=3::" in result.stdout


def test_usage_errors(repo: Path) -> None:
    missing = run_cli("run", "nowhere", cwd=repo)
    assert missing.returncode == 2 and "path 'nowhere' does not exist" in missing.stdout
    nothing = run_cli("run", cwd=repo)
    assert nothing.returncode == 2 and "no eval files" in nothing.stdout
    bad_choice = run_cli("run", "--runner", "docker", cwd=repo)
    assert bad_choice.returncode == 2 and "invalid choice" in bad_choice.stderr


def test_a_usage_error_of_run_is_printed_once_and_is_no_lost_run(repo: Path) -> None:
    """A usage error of ``run`` is found before the supervising parent forks: one error line, exit code 2, and
    no "run ended before the gate decided" report of a lost child."""
    for args in (["run", ".", "--no-such-option"], ["run", "--num-runs", "0"]):
        result = run_cli(*args, cwd=repo)
        output = result.stdout + result.stderr
        assert result.returncode == 2, output
        assert output.count("error:") == 1, output
        assert "before the gate decided its verdict" not in output
        assert not (repo / "adk-eval-results").exists()


def test_secrets_never_printed(repo: Path) -> None:
    result = run_cli(
        "run", "nowhere", "--github-token", "ghs_supersecretvalue", cwd=repo, env={"GOOGLE_API_KEY": "AIzaSECRETKEY123"}
    )
    assert "ghs_supersecretvalue" not in result.stdout + result.stderr
    assert "AIzaSECRETKEY123" not in result.stdout + result.stderr


def _strip_volatile(data: dict) -> dict:
    data["eval_set_id"] = data["name"] = "X"
    data["creation_timestamp"] = 0
    for case in data["eval_cases"]:
        case["creation_timestamp"] = 0
        for invocation in case["conversation"]:
            invocation["invocation_id"] = "X"
            invocation["creation_timestamp"] = 0
    return data


def test_migrate_matches_adks_conversion(tmp_path: Path) -> None:
    old = EXAMPLES / "weather_agent" / "legacy" / "weather_legacy.test.json"
    session = EXAMPLES / "weather_agent" / "legacy" / "initial.session.json"
    ours, theirs = tmp_path / "ours.evalset.json", tmp_path / "theirs.evalset.json"
    result = run_cli("migrate", str(old), str(ours), "--initial-session", str(session), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    AgentEvaluator.migrate_eval_data_to_new_schema(str(old), str(theirs), str(session))
    assert _strip_volatile(json.loads(ours.read_text())) == _strip_volatile(json.loads(theirs.read_text()))
    bad = run_cli("migrate", str(EXAMPLES / "weather_agent" / "weather.evalset.json"), str(ours), cwd=tmp_path)
    assert bad.returncode == 2 and "is not a legacy query list" in bad.stdout


def test_results_schema_file_is_current() -> None:
    committed = json.loads((REPO / "schema" / "results.schema.json").read_text())
    assert committed == json_schema(), "regenerate: python -m adk_eval_gate.model.results > schema/results.schema.json"


def test_report_exit_zero_only_publishes(repo: Path) -> None:
    failed = ResultsDocument(
        status="failed",
        totals=Totals(cases=1, failed=1, files=1),
        cases=[
            CaseResult(id="a.evalset.json::a", file="a.evalset.json", eval_set_id="s", eval_id="a", status="failed")
        ],
        files=[FileResult(path="a.evalset.json", cases=1)],
    )
    (repo / "results.json").write_text(failed.model_dump_json(), encoding="utf-8")
    gate = run_cli("report", "results.json", cwd=repo)
    assert gate.returncode == 1, gate.stdout
    publish_only = run_cli("report", "results.json", "--exit-zero", cwd=repo)
    assert publish_only.returncode == 0, publish_only.stdout
    assert (repo / "adk-eval-results" / "junit.xml").is_file()


def test_help_imports_nothing_heavy() -> None:
    """`--help` reads the option table only: no google-genai types through the settings (1.3 s), no pydantic, no
    HTTP client; `bench/cli_startup.py` measures it. (The `google` namespaces are set up by site-packages' .pth
    files in every interpreter: modules with code are what count.)"""
    code = (
        "import sys\nfrom adk_eval_gate.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('LOADED', sorted({m for m, module in list(sys.modules.items()) if getattr(module, '__file__', None) "
        "and (m.startswith('google.') or m.split('.')[0] in ('pydantic', 'aiohttp', 'httpx', 'requests'))}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded = next(line for line in done.stdout.splitlines() if line.startswith("LOADED"))
    assert loaded == "LOADED []" and "usage: adk-eval-gate" in done.stdout


def test_a_closed_output_pipe_changes_neither_the_exit_code_nor_stderr() -> None:
    """``adk-eval-gate ... | head -0``: what cannot be written is dropped; the exit code is still the command's."""
    read, write = os.pipe()
    os.close(read)  # nobody reads: every write to stdout fails with EPIPE
    try:
        done = subprocess.Popen(
            [sys.executable, "-m", "adk_eval_gate", "validate", "examples/weather_agent"],
            stdout=write,
            stderr=subprocess.PIPE,
            cwd=REPO,
        )
    finally:
        os.close(write)
    _, err = done.communicate(timeout=120)
    assert done.returncode == 0
    assert err == b""

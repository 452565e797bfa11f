"""migrate: a legacy query list written as an EvalSet file that ADK itself loads; clear errors otherwise."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

from adk_eval_gate.commands.migrate import migrate
from adk_eval_gate.support.errors import EvalFileError

ROWS = [
    {"query": "hi", "expected_tool_use": [], "reference": "hello"},
    {"query": "weather?", "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {}}], "reference": "ok"},
]


def test_the_written_file_is_an_eval_set_adk_loads(tmp_path: Path) -> None:
    old, new, session = tmp_path / "old.test.json", tmp_path / "out" / "new.evalset.json", tmp_path / "s.json"
    old.write_text(json.dumps(ROWS))
    session.write_text(json.dumps({"app_name": "weather", "user_id": "u1", "state": {"units": "metric"}}))
    assert migrate(str(old), str(new), initial_session=str(session)) == 2
    loaded = AdkEvalSet.model_validate_json(new.read_text())
    (case,) = loaded.eval_cases
    assert len(case.conversation or []) == 2
    assert case.session_input is not None and case.session_input.state == {"units": "metric"}


def test_a_file_that_is_not_a_query_list_is_refused_with_its_name(tmp_path: Path) -> None:
    old = tmp_path / "old.test.json"
    old.write_text(json.dumps({"eval_set_id": "already new"}))
    with pytest.raises(EvalFileError, match="is not a legacy query list") as caught:
        migrate(str(old), str(tmp_path / "new.evalset.json"))
    assert caught.value.file == str(old) and not (tmp_path / "new.evalset.json").exists()


def test_a_bad_row_names_its_line_and_field(tmp_path: Path) -> None:
    old = tmp_path / "old.test.json"
    old.write_text('[\n  {"query": "hi"},\n  {"query": 7}\n]\n')
    with pytest.raises(EvalFileError) as caught:
        migrate(str(old), str(tmp_path / "new.evalset.json"))
    assert (caught.value.line, caught.value.field) == (3, "[1].query")


def test_the_session_beside_the_file_is_used_and_ids_come_from_the_file_name(tmp_path: Path) -> None:
    old = tmp_path / "weather.test.json"
    old.write_text(json.dumps(ROWS))
    (tmp_path / "initial.session.json").write_text(json.dumps({"state": {"units": "metric"}}))
    first, second = tmp_path / "a.evalset.json", tmp_path / "b.evalset.json"
    migrate(str(old), str(first))
    migrate(str(old), str(second))
    written = AdkEvalSet.model_validate_json(first.read_text())
    (case,) = written.eval_cases
    assert case.session_input is not None and case.session_input.state == {"units": "metric"}
    assert written.eval_set_id == "weather"
    assert [turn.invocation_id for turn in case.conversation or []] == ["weather#0", "weather#1"]

    def without_times(text: str) -> str:
        return re.sub(r'"creation_timestamp": [0-9.e+-]+', "", text)

    assert without_times(first.read_text()) == without_times(second.read_text())


def _repo_with_legacy_file(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "old.test.json").write_text(json.dumps(ROWS), encoding="utf-8")
    return repo


def _one_line_refusal(result: subprocess.CompletedProcess[str], said: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "internal error" not in output and "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and said in lines[0], output


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("folder", "the new file 'folder' is a folder"),
        ("a_file/new.evalset.json", "cannot be written: a_file is a file, not a folder"),
        ("x" * 300 + ".evalset.json", "has a name of 313 bytes"),
        ("d/" * 2500 + "n.evalset.json", "is 5,014 bytes long"),
        ("out/new.evalset.json", "leads out of the repository through a symbolic link"),
        ("escape.evalset.json", "leads out of the repository through a symbolic link"),
    ],
    ids=["folder", "file-as-parent", "long-name", "long-path", "through-a-link", "a-link"],
)
def test_a_target_that_cannot_be_written_is_one_line_and_nothing_is_written(
    tmp_path: Path, cli_in_process: Callable[..., subprocess.CompletedProcess[str]], target: str, said: str
) -> None:
    repo = _repo_with_legacy_file(tmp_path)
    (repo / "folder").mkdir()
    (repo / "a_file").write_text("", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "out").symlink_to(outside)
    (repo / "escape.evalset.json").symlink_to(outside / "escaped.evalset.json")
    _one_line_refusal(cli_in_process("migrate", "old.test.json", target, cwd=repo), said)
    assert list(outside.iterdir()) == []


def test_a_target_outside_the_repository_named_as_such_is_written(
    tmp_path: Path, cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    repo = _repo_with_legacy_file(tmp_path)
    target = tmp_path / "elsewhere" / "new.evalset.json"
    result = cli_in_process("migrate", "old.test.json", str(target), cwd=repo)
    assert result.returncode == 0, result.stdout
    assert AdkEvalSet.model_validate_json(target.read_text(encoding="utf-8")).eval_cases


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("fifo.test.json", "is a FIFO, not a regular file"),
        ("zero.test.json", "is a device, not a regular file"),
        ("folder", "is a folder, not a regular file"),
        ("socket.test.json", "is not a regular file"),
        ("a\0b.test.json", "holds a NUL character"),
    ],
    ids=["fifo", "dev-zero", "folder", "socket", "nul"],
)
def test_a_source_that_is_not_a_regular_file_is_refused_without_reading_it(
    tmp_path: Path, cli_in_process: Callable[..., subprocess.CompletedProcess[str]], source: str, said: str
) -> None:
    repo = _repo_with_legacy_file(tmp_path)
    os.mkfifo(repo / "fifo.test.json")
    (repo / "zero.test.json").symlink_to("/dev/zero")
    (repo / "folder").mkdir()
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(repo / "socket.test.json"))
        result = cli_in_process("migrate", source.replace("\\0", "\0"), "new.evalset.json", cwd=repo)
    _one_line_refusal(result, said)
    assert not (repo / "new.evalset.json").exists()


def test_an_initial_session_that_is_a_device_is_refused(
    tmp_path: Path, cli_in_process: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    repo = _repo_with_legacy_file(tmp_path)
    result = cli_in_process("migrate", "old.test.json", "new.evalset.json", "--initial-session", "/dev/zero", cwd=repo)
    _one_line_refusal(result, "/dev/zero: cannot be migrated: it is a device, not a regular file")

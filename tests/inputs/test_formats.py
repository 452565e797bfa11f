"""The registry of file formats: every eval-file format is registered once with a loader, discovery and pytest
pick up the names it lists, and a file that is not an eval file says so."""

from __future__ import annotations

import os
from pathlib import Path
from typing import get_args

import pytest

from adk_eval_gate.inputs import formats
from tests.conftest import write_json

PROMPT = {"role": "user", "parts": [{"text": "hi"}]}


def test_every_eval_file_format_is_registered_once_with_a_loader() -> None:
    eval_formats = [entry.name for entry in formats.FORMATS if entry.loader is not None]
    assert sorted(eval_formats) == sorted(get_args(formats.FileFormat))
    assert len(formats.BY_NAME) == len(formats.FORMATS)
    for entry in formats.FORMATS:
        assert all(target in formats.BY_NAME for target in entry.migrates_to), entry.name
        assert (entry.loader is None) == (entry.not_for_pytest is not None), entry.name


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("weather.test.json", True),
        ("weather.evalset.json", True),
        ("rows.evalset.jsonl", True),
        ("basic-dataset.json", True),
        ("rows.jsonl", False),  # a Vertex-style dataset is read when named, never looked for
        ("rows.csv", False),
        ("last.evalset_result.json", False),
        ("weather_eval.json", False),
    ],
)
def test_discovery_finds_the_names_the_registry_lists(tmp_path: Path, name: str, found: bool) -> None:
    path = tmp_path / name
    path.write_text("{}", encoding="utf-8")
    assert formats.discovered(path) is found


def test_a_json_file_in_agents_clis_datasets_folder_is_a_dataset_by_its_start(tmp_path: Path) -> None:
    folder = tmp_path / "tests" / "eval" / "datasets"
    write_json(folder / "basic.json", {"eval_cases": [{"prompt": PROMPT}]})
    write_json(folder / "adk.json", {"eval_set_id": "x", "eval_cases": []})
    write_json(tmp_path / "elsewhere.json", {"eval_cases": [{"prompt": PROMPT}]})
    assert formats.discovered(folder / "basic.json")
    assert not formats.discovered(folder / "adk.json")
    assert not formats.discovered(tmp_path / "elsewhere.json")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_the_datasets_folder_is_never_opened(tmp_path: Path) -> None:
    folder = tmp_path / "tests" / "eval" / "datasets"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "pipe.json")
    assert formats.file_head(folder / "pipe.json") == ""
    assert not formats.discovered(folder / "pipe.json")


def test_the_loader_follows_the_name_and_the_dataset_option(tmp_path: Path) -> None:
    write_json(tmp_path / "a-dataset.json", {"eval_cases": [{"eval_case_id": "one", "prompt": PROMPT}]})
    (tmp_path / "rows.txt").write_text('{"prompt": "hi"}\n', encoding="utf-8")
    assert formats.load(tmp_path / "a-dataset.json", display="a-dataset.json").format == "agent_platform_dataset"
    assert formats.load(tmp_path / "rows.txt", display="rows.txt", dataset=True).format == "vertex_jsonl"


def test_only_what_is_not_an_eval_file_is_not_for_pytest() -> None:
    assert formats.not_for_pytest(Path("last.evalset_result.json")) == formats.RECORDED_RESULTS.not_for_pytest
    for name in ("a.test.json", "a-dataset.json", "rows.csv", "anything.json"):
        assert formats.not_for_pytest(Path(name)) is None


def test_the_message_names_every_discovered_pattern() -> None:
    assert formats.eval_file_patterns() == "*.test.json, *.evalset.json, *.evalset.jsonl, *-dataset.json"

"""The inputs of every case (``selection/environment_inputs.py``): the environment's dependency files, what the
requirement lists among them include, constrain with and install from the repository (followed safely: loops, paths that
leave the repository, special and huge files), and the ``--always-affected`` globs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adk_eval_gate.selection.environment_inputs import MAX_BYTES, MAX_FILES, changes_to_everything, environment_inputs


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_the_environment_s_dependency_files_and_always_affected_globs_change_every_case() -> None:
    changed = frozenset(
        {
            "agents/requirements-dev.txt",
            "uv.lock",
            "pyproject.toml",
            ".github/workflows/evals.yml",
            "deps/pinned.in.txt",
            "data/menu.csv",
            ".venv/lib/python3.11/site-packages/x/requirements.txt",
            "a_agent/agent.py",
            "requirements/ci.txt",
        }
    )
    assert changes_to_everything(changed, environment=["deps/pinned.in.txt"], always=["data/**"]) == [
        ".github/workflows/evals.yml",
        "agents/requirements-dev.txt",
        "data/menu.csv",
        "deps/pinned.in.txt",
        "pyproject.toml",
        "requirements/ci.txt",
        "uv.lock",
    ]
    assert changes_to_everything(frozenset({"a_agent/agent.py"}), environment=[], always=[]) == []


def test_an_always_affected_glob_matches_a_file_by_its_path_or_its_name_as_include_does() -> None:
    changed = frozenset({"data/rates.csv", "a_agent/agent.py", "notes/x.md"})
    assert changes_to_everything(changed, environment=[], always=["*.csv"]) == ["data/rates.csv"]
    assert changes_to_everything(changed, environment=[], always=["./notes/*.md"]) == ["notes/x.md"]
    assert changes_to_everything(changed, environment=[], always=["rates.csv", "  "]) == ["data/rates.csv"]


def test_a_folder_of_the_environment_stands_for_anything_under_it() -> None:
    changed = frozenset({"libs/tools/src/tools/core.py", "libs/toolsmith.py", "a_agent/agent.py"})
    assert changes_to_everything(changed, environment=["libs/tools/"], always=[]) == ["libs/tools/src/tools/core.py"]
    assert changes_to_everything(changed, environment=["./"], always=[]) == sorted(changed)


def test_the_environment_inputs_are_the_dependency_files_and_the_requirements_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tracked = ["requirements.txt", "a_agent/agent.py", "poetry.lock", "tools/setup.cfg", "README.md"]
    found = environment_inputs(tracked, "deps/agent.reqs", tmp_path)
    assert found.files == ["deps/agent.reqs", "poetry.lock", "requirements.txt", "tools/setup.cfg"]
    assert found.unknown is None
    assert environment_inputs(tracked, "pyproject", tmp_path).files == [
        "poetry.lock",
        "requirements.txt",
        "tools/setup.cfg",
    ]


def test_includes_and_constraints_are_followed_as_pip_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "requirements" / "ci.txt",
        "-r base.txt  # the shared pins\n"
        "--constraint=../pins/constraints.txt\n"
        "-rlint.txt\n"
        "--requirement \\\n  more/extra.txt\n"
        "# -r commented.txt\n"
        "pkg#-r not-a-comment.txt\n"
        "-r https://example.com/remote.txt\n"
        "./libs/tools[cli] ; python_version >= '3.10'\n"
        "-e ./libs/editable\n"
        "helper @ file:./libs/helper-1.0.tar.gz\n",
    )
    write(tmp_path / "requirements" / "base.txt", "-c ../pins/constraints.txt\ngoogle-adk\n")
    write(tmp_path / "requirements" / "lint.txt", "ruff\n")
    write(tmp_path / "requirements" / "more" / "extra.txt", "-r ../base.txt\n")
    write(tmp_path / "pins" / "constraints.txt", "google-adk==2.13.0\n")
    write(tmp_path / "libs" / "tools" / "pyproject.toml", "[project]\nname='tools'\n")
    write(tmp_path / "libs" / "helper-1.0.tar.gz", b"\x1f\x8b")
    found = environment_inputs([], "requirements/ci.txt", tmp_path)
    assert found.unknown is None
    assert found.files == [
        "libs/helper-1.0.tar.gz",
        "libs/tools/",  # installed into site-packages: a change under it runs everything
        "pins/constraints.txt",
        "requirements/base.txt",
        "requirements/ci.txt",
        "requirements/lint.txt",
        "requirements/more/extra.txt",
    ]


def test_the_repository_itself_installed_makes_every_path_an_input_of_every_case(tmp_path: Path) -> None:
    write(tmp_path / "requirements.txt", ".\n")
    assert environment_inputs(["requirements.txt"], None, tmp_path).files == ["./", "requirements.txt"]
    write(tmp_path / "requirements.txt", "-e .\n")
    assert environment_inputs(["requirements.txt"], None, tmp_path).files == ["requirements.txt"]


@pytest.mark.timeout(30)
def test_include_loops_and_paths_that_leave_the_repository_are_followed_once_or_not_at_all(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(tmp_path / "outside.txt", "-r repo/requirements.txt\n")
    write(repo / "requirements.txt", "-r requirements.txt\n-r a.txt\n-r ../outside.txt\n-r /etc/passwd\n-r link.txt\n")
    write(repo / "a.txt", "-r b.txt\n")
    write(repo / "b.txt", "-r a.txt\n-r ./requirements.txt\n")
    (repo / "link.txt").symlink_to(tmp_path / "outside.txt")
    (repo / "loop.txt").symlink_to(repo / "loop.txt")
    write(repo / "c.txt", "-r loop.txt\n")
    found = environment_inputs(["requirements.txt", "c.txt"], None, repo)
    assert found.files == ["a.txt", "b.txt", "requirements.txt"]
    assert found.unknown is None


@pytest.mark.timeout(30)
def test_a_requirement_list_that_cannot_be_read_whole_makes_the_environment_unknown(tmp_path: Path) -> None:
    write(tmp_path / "requirements.txt", "-r huge.txt\n")
    write(tmp_path / "huge.txt", b"x" * (MAX_BYTES + 1))
    found = environment_inputs(["requirements.txt"], None, tmp_path)
    assert found.files == ["huge.txt", "requirements.txt"]
    assert found.unknown == f"requirement list huge.txt could not be read (larger than {MAX_BYTES:,} bytes)"
    os.mkfifo(tmp_path / "pipe.txt")  # reading it would block the run forever
    write(tmp_path / "requirements.txt", "-r pipe.txt\n")
    assert environment_inputs(["requirements.txt"], None, tmp_path).unknown == (
        "requirement list pipe.txt could not be read (a FIFO)"
    )
    write(tmp_path / "requirements.txt", "-r ${PINS}/base.txt\n")
    assert environment_inputs(["requirements.txt"], None, tmp_path).unknown == (
        "requirements.txt names '${PINS}/base.txt', which depends on a variable"
    )
    write(tmp_path / "requirements.txt", "-r absent.txt\n")  # pip would fail: not the environment's to know
    absent = environment_inputs(["requirements.txt"], None, tmp_path)
    assert absent.unknown is None and absent.files == ["absent.txt", "requirements.txt"]


@pytest.mark.slow  # 505 requirement lists written and followed
@pytest.mark.timeout(30)
def test_many_includes_stop_at_a_limit_and_make_the_environment_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for index in range(MAX_FILES + 5):
        write(tmp_path / "reqs" / f"r{index}.txt", f"-r r{index + 1}.txt\n")
    found = environment_inputs(["reqs/r0.txt"], "reqs/r0.txt", tmp_path)
    assert found.unknown == f"the requirement lists include more than {MAX_FILES} files"


@pytest.mark.timeout(30)
def test_hostile_lines_and_names_are_read_in_time_and_as_they_are(tmp_path: Path) -> None:
    odd = os.fsdecode(b"r\xe9qs.txt")
    write(tmp_path / odd, "pkg\n")
    write(
        tmp_path / "requirements.txt",
        b"-r r\xe9qs.txt\n" + b" " * 500_000 + b"x\n" + b"[" * 200_000 + b"]\n" + b"-r ::error::x.txt\n",
    )
    found = environment_inputs(["requirements.txt"], None, tmp_path)
    assert "requirements.txt" in found.files and "::error::x.txt" in found.files
    assert any(path.startswith("r") and path.endswith("qs.txt") and path != "requirements.txt" for path in found.files)

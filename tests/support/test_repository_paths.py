"""A path a repository file names is checked before the file system sees it; code runs only from inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from adk_eval_gate.support.errors import unexpected
from adk_eval_gate.support.repository_paths import (
    OUTSIDE,
    code_outside_repository,
    path_value_problem,
    repository_path,
    shown,
)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("a\0b", "holds a NUL character"),
        ("a" * 256, "has a name of 256 bytes, more than the 255 a file name may have"),
        ("é" * 128, "has a name of 256 bytes, more than the 255 a file name may have"),  # bytes, not characters
        ("d/" * 2049, "is 4,098 bytes long, more than the 4,096 a path may have"),
        ("\ud800", "holds characters no file name can have"),
    ],
    ids=["nul", "long-name", "long-name-in-bytes", "long-path", "lone-surrogate"],
)
def test_a_path_no_file_can_have_is_said_in_a_few_words(value: str, problem: str) -> None:
    assert path_value_problem(value) == problem


def test_the_longest_names_and_paths_a_file_can_have_are_fine() -> None:
    assert path_value_problem("a" * 255) is None
    assert path_value_problem(("d" * 254 + "/") * 16) is None  # 4,080 bytes


def test_a_named_path_resolves_inside_the_repository_or_says_why_not(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path)
    (root / "loop").symlink_to("loop")
    assert repository_path("app", base=root, root=root) == (root / "app").resolve()
    assert repository_path("../repo/app", base=root, root=root) == (root / "app").resolve()
    for leaving in ("..", "../..", str(tmp_path), "out", "out/repo/../x"):
        assert repository_path(leaving, base=root, root=root) == OUTSIDE, leaving
    assert repository_path("x" * 300, base=root, root=root) == path_value_problem("x" * 300)
    deep = root.joinpath(*["d" * 250] * 17)  # the folder and the value, each fine, too long together
    too_long = path_value_problem(deep / "a")
    assert too_long is not None and repository_path("a", base=deep, root=root) == too_long
    assert isinstance(repository_path("loop", base=root, root=root), (Path, str))  # never raises


def test_code_outside_the_repository_is_refused_alike_absolute_by_dots_or_through_a_link(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("", encoding="utf-8")
    (root / "linked.py").symlink_to(elsewhere)
    (root / "own.py").write_text("", encoding="utf-8")
    said = {
        code_outside_repository(path, root=root)
        for path in (elsewhere, root / ".." / "elsewhere.py", root / "linked.py")
    }
    assert said == {f"{OUTSIDE}; only the repository's own code is run: move the file into the repository"}
    assert code_outside_repository(root / "own.py", root=root) is None
    assert code_outside_repository(root / "a\0.py", root=root) == "holds a NUL character"


def test_a_long_value_is_shown_cut_with_its_length() -> None:
    assert shown("app") == "'app'"
    assert shown("a" * 5000) == f"{'a' * 60!r}... (5,000 characters)"


def test_an_unexpected_error_is_shown_short() -> None:
    error = OSError(36, "File name too long", "/" + "a" * 5000)
    text = unexpected(error)
    assert text.startswith("OSError: [Errno 36] File name too long: '/aaa") and text.endswith(" characters)")
    assert len(text) < 400

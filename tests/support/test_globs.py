"""The glob matcher of every glob option (``support/globs.py``): what the patterns mean, ``fnmatch``'s answers for
names, and hostile patterns and paths, which must finish promptly (the timeout guards a matcher that backtracks:
the regular expression it replaced took 96 s on the first case below)."""

from __future__ import annotations

import fnmatch
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adk_eval_gate.support.globs import NameGlob, PathGlob


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/*.test.json", "a/b/c.test.json", True),
        ("**/*.test.json", "c.test.json", True),
        ("a/*.json", "a/b/c.json", False),
        ("a/*.json", "a/c.json", True),
        ("a/**", "a/b/c.json", True),
        ("a/**/c.json", "a/c.json", True),
        ("a/**/c.json", "a/x/y/c.json", True),
        ("a/**/c.json", "a/xc.json", False),
        ("a**b", "a/x/b", True),
        ("?.csv", "a.csv", True),
        ("?.csv", "/.csv", False),
        ("data/[1].csv", "data/[1].csv", True),  # a bracket is itself in a path
        ("data/[1].csv", "data/1.csv", False),
        ("*.csv", "data/rates.csv", False),  # the whole path: matches_file also tries the name
        ("", "", True),
        ("", "a", False),
    ],
)
def test_a_path_glob_matches_whole_paths_with_stars_within_a_folder_and_double_stars_across(
    pattern: str, path: str, expected: bool
) -> None:
    assert PathGlob(pattern).matches(path) is expected


def test_a_path_glob_matches_a_file_by_its_path_or_by_its_name_at_any_depth() -> None:
    assert PathGlob("*.csv").matches_file("data/rates.csv")
    assert PathGlob("*.csv").matches_file("rates.csv")
    assert PathGlob("rates.csv").matches_file("a/b/rates.csv")
    assert PathGlob("data/*.csv").matches_file("data/rates.csv")
    assert not PathGlob("data/*.csv").matches_file("old/data/rates.csv")
    assert not PathGlob("*.csv").matches_file("data/rates.csv/notes.txt")


_NAME_CHARACTERS = "ab-!]^\\*?["


@pytest.mark.slow  # 400 examples: almost half a second
@settings(max_examples=400, deadline=None)
@given(
    pattern=st.text(alphabet=_NAME_CHARACTERS, max_size=9),
    name=st.text(alphabet="ab-!]^\\/[", max_size=8),
)
def test_a_name_glob_answers_as_fnmatchcase(pattern: str, name: str) -> None:
    assert NameGlob(pattern).matches(name) is fnmatch.fnmatchcase(name, pattern)


def test_a_name_glob_has_fnmatch_s_sets_and_ranges() -> None:
    assert NameGlob("gemini-2.[05]-*").matches("gemini-2.5-flash")
    assert not NameGlob("gemini-2.[!05]-*").matches("gemini-2.5-flash")
    assert NameGlob("case_[a-c]?").matches("case_b7")
    assert NameGlob("flaky_*").matches("flaky_a/b")  # a case id may hold a slash: * takes it
    assert NameGlob("[").matches("[") and NameGlob("[]]").matches("]")


LONG_PATH = "/".join(["a/b/c/d"] * 171) + "/x.bix"  # 1,201 characters that almost match


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("**/a/**/b/**/c/**/d/**/*.bin", LONG_PATH),
        ("**/" * 2000 + "*.bin", "a/" * 2000 + "x.bix"),
        ("*a" * 500 + "b", "a" * 4000),
        ("**a" * 500 + "b", "a/" * 2000),
        ("**" * 3000 + "/x", "y" * 4096),
        ("?" * 4001 + "*", "a" * 4000),
    ],
    ids=["folders-around-a-long-path", "2000-folder-globs", "stars-of-a", "double-stars-of-a", "6000-stars", "4000-?"],
)
def test_pathological_path_globs_finish_on_long_paths(pattern: str, path: str) -> None:
    glob = PathGlob(pattern)
    assert glob.matches(path) is False
    assert glob.matches_file(path) is False


@pytest.mark.timeout(30)
def test_pathological_name_globs_finish_on_long_names() -> None:
    assert NameGlob("*a" * 500 + "b").matches("a" * 4000) is False
    assert NameGlob("*[ab]" * 300 + "c").matches("ab" * 2000) is False
    assert NameGlob("*" + "[!x]" * 50 + "*y").matches("z" * 4000 + "x") is False


@pytest.mark.timeout(30)
def test_names_of_every_kind_are_matched_as_they_are() -> None:
    """Non-UTF-8 bytes (as the file system decodes them), control characters and many distinct characters."""
    odd = os.fsdecode(b"data/r\xe9sum\xff.csv")
    assert PathGlob("data/*.csv").matches(odd)
    assert PathGlob(os.fsdecode(b"data/r\xe9*")).matches(odd)
    assert PathGlob("*.csv").matches_file("a/line\nbreak.csv")
    assert PathGlob("**/x").matches("::error::/x")
    many = "".join(chr(code) for code in range(0x4E00, 0x4E00 + 5000))  # more characters than the matcher keeps
    assert PathGlob("*" + many[-1]).matches(many)
    assert NameGlob("*" + many[-1]).matches(many)

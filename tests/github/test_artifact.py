"""Unpacking an untrusted results artifact: only results.json, read into memory, within size caps."""

from __future__ import annotations

import pytest

from adk_eval_gate.github.artifact import ArtifactError, read_results, unsafe_path
from tests.github.zips import make_zip, patch_central_directory

RESULTS = b'{"schema_version": 1}'


@pytest.mark.parametrize(
    "name",
    ["../../etc/passwd", "/etc/passwd", "a/../../b", "..", "C:/Windows/x", "c:evil", "dir\\..\\x", "nul\x00byte"],
)
def test_unsafe_paths(name: str) -> None:
    assert unsafe_path(name)


@pytest.mark.parametrize("name", ["results.json", "sub/results.json", "a..b/c", "...json"])
def test_safe_paths(name: str) -> None:
    assert not unsafe_path(name)


def test_reads_only_the_top_level_results_json() -> None:
    data = make_zip({"junit.xml": b"<x/>", "results.json": RESULTS, "summary.md": b"# hi"})
    assert read_results(data) == RESULTS


def test_a_traversal_entry_refuses_the_whole_artifact() -> None:
    data = make_zip({"results.json": RESULTS, "../../etc/passwd": b"root:x:0:0"})
    with pytest.raises(ArtifactError, match=r"unsafe path '\.\./\.\./etc/passwd'; it was not unpacked"):
        read_results(data)


def test_a_declared_size_over_the_cap_is_refused_before_reading() -> None:
    data = patch_central_directory(make_zip({"results.json": RESULTS}), file_size=2 * 1024**3)
    with pytest.raises(ArtifactError, match="declares 2,147,483,648 bytes"):
        read_results(data)


def test_a_zip_bomb_ratio_is_refused() -> None:
    data = make_zip({"results.json": b"0" * 5_000_000})
    with pytest.raises(ArtifactError, match="like a zip bomb"):
        read_results(data)


def test_headers_that_understate_the_size_do_not_get_past_the_cap() -> None:
    data = make_zip({"results.json": b"x" * 5000}, compression=0)
    with pytest.raises(ArtifactError, match="declares 5,000 bytes, more than the 1,000 allowed"):
        read_results(data, max_bytes=1000)
    lying = patch_central_directory(data, file_size=100)  # reading stops at 100 bytes and the CRC fails
    with pytest.raises(ArtifactError, match="cannot be read"):
        read_results(lying, max_bytes=1000)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not a zip at all", "not a zip file"),
        (make_zip({"nested/results.json": RESULTS}), "no results.json at its top level"),
        (patch_central_directory(make_zip({"results.json": RESULTS}), flag_bits=1), "encrypted"),
    ],
)
def test_other_refusals(data: bytes, message: str) -> None:
    with pytest.raises(ArtifactError, match=message):
        read_results(data)

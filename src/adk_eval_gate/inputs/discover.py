"""Find eval files: recursive over the given paths, ``--include``/``--exclude`` globs, case selectors."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate.inputs import formats
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.globs import PathGlob
from adk_eval_gate.support.repository_paths import is_inside, real_path

SKIPPED_DIRS = {
    ".git",
    ".adk",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    ".hg",
    ".svn",
}


@dataclass(frozen=True)
class EvalFileRef:
    path: Path
    display: str  # repository-relative, forward slashes
    case_ids: tuple[str, ...] = ()  # empty: every case
    problem: str | None = None  # why the file cannot be read (an error entry for it; the others still run)
    dataset: bool = False  # a Vertex-style dataset (JSONL or CSV), not ADK JSON


def file_problem(path: Path, *, root: Path) -> str | None:
    """Why ``path`` is not an eval file we may read: a symbolic link that loops, dangles or leaves the
    repository, or something other than a regular file (reading a FIFO would block the run forever)."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "is a symbolic link that loops back on itself"
        if path.is_symlink():
            return f"is a symbolic link to {os.readlink(path)!r}, which does not exist"
        return f"cannot be read: {error.strerror}"
    if path.is_symlink():
        target = real_path(path)
        if isinstance(target, str) or not is_inside(target, root):
            return "is a symbolic link to a file outside the repository; only links inside it are followed"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe), not a regular file"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a device, a socket or a folder)"
    return None


def split_selector(spec: str) -> tuple[str, tuple[str, ...]]:
    """``file.json:case1,case2`` -> (``file.json``, (``case1``, ``case2``)); an existing path is never split."""
    if os.path.exists(spec) or ":" not in spec:
        return spec, ()
    start = 2 if re.match(r"^[A-Za-z]:[\\/]", spec) else 0
    cut = spec.find(":", start)
    if cut < 0:
        return spec, ()
    ids = tuple(part for part in spec[cut + 1 :].split(",") if part)
    return spec[:cut], ids


def _matches(display: str, patterns: list[PathGlob]) -> bool:
    return any(pattern.matches_file(display) for pattern in patterns)


def is_virtualenv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file()


def _walk(folder: Path, wanted: Callable[[Path], bool] = formats.discovered) -> list[Path]:
    """The files under ``folder`` that are ``wanted`` (by default the eval files, ``formats.discovered``), skipping
    tool and virtualenv folders."""
    found: list[Path] = []
    for current, dirs, files in os.walk(folder):
        current_path = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not is_virtualenv(current_path / d))
        found.extend(current_path / f for f in sorted(files) if wanted(current_path / f))
    return found


def _json_file(path: Path) -> bool:
    return path.name.endswith(".json")


def walk_named(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The files under ``folder`` whose names end with one of ``suffixes``, skipping tool and virtualenv folders."""
    return _walk(folder, lambda path: path.name.endswith(suffixes))


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # a symbolic link loop
        return path.absolute()


def display_path(path: Path, root: Path) -> str:
    """Repository-relative, with the folders resolved and the file's own name kept (a link is shown as itself)."""
    try:
        return (_resolved(path.parent) / path.name).relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return path.as_posix()


# JSON that is not eval data whatever it holds: configs, sessions, package manifests (and the formats that are not
# eval files, formats.NOT_EVAL_SUFFIXES).
_NOT_EVAL_NAMES = re.compile(r"(test_config|initial\.session|package(-lock)?|tsconfig)\.json$|\.session\.json$")
_EVAL_MARKERS = re.compile(r'"(eval_set_id|evalSetId|eval_cases|evalCases)"\s*:|^\s*\[\s*\{\s*"query"\s*:')
_AGENTS_CLI_OUTPUT = re.compile(r"(^|/)artifacts/(traces|grade_results)/")  # agents-cli's traces and grades
_OUR_RESULTS = re.compile(r'^\s*\{\s*"schema_version"\s*:')  # results.json, written by this tool


def _not_eval_name(name: str) -> bool:
    return bool(_NOT_EVAL_NAMES.search(name)) or name.endswith(formats.NOT_EVAL_SUFFIXES)


def misnamed_eval_files(specs: list[str], *, outputs: list[Path] | None = None) -> list[str]:
    """JSON files under the given folders that look like eval data but are not named ``*.test.json``,
    ``*.evalset.json`` or ``*-dataset.json`` (ADK's samples use names such as ``*_eval.json``), so discovery does not
    pick them up. The tool's own output (``outputs``: its folders and files, and any results.json) and agents-cli's
    (``artifacts/traces``, ``artifacts/grade_results``) are never one."""
    ours = [_resolved(path) for path in outputs or []]
    found = []
    for spec in specs or ["."]:
        folder = Path(split_selector(spec)[0])
        if not folder.is_dir():
            continue
        for path in _walk(folder, _json_file):
            if formats.discovered(path) or _not_eval_name(path.name):
                continue
            if _AGENTS_CLI_OUTPUT.search(path.as_posix()):
                continue
            if any(_resolved(path) == out or out in _resolved(path).parents for out in ours):
                continue
            head = formats.file_head(path)
            if _EVAL_MARKERS.search(head) and not _OUR_RESULTS.search(head):
                found.append(path.as_posix())
    return found


def _candidates(spec: str, *, option: str) -> tuple[Path, tuple[str, ...], list[Path]]:
    """(the path, its case selection, the eval files it stands for) of one PATH or ``--dataset`` FILE."""
    path_text, case_ids = split_selector(spec)
    path = Path(path_text)
    if not path.exists() and not path.is_symlink():
        raise UsageError(
            f"path {path_text!r} does not exist",
            field=option,
            hint="give files or folders that exist, relative to the working directory",
        )
    if not path.is_dir():
        return path, case_ids, [path]
    if option == "dataset":
        raise UsageError(f"{path_text!r} is a folder", field=option, hint="name dataset files; give folders as PATH")
    if case_ids:
        raise UsageError(f"case ids select cases of one file, but {path_text!r} is a folder", field=option)
    return path, case_ids, _walk(path)


def discover(
    specs: list[str],
    *,
    root: Path,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    datasets: list[str] | None = None,
) -> list[EvalFileRef]:
    """The eval files under ``specs`` and the ``datasets`` files, in a stable order, without duplicates.

    Without either, the eval files under ``.``.
    """
    includes = [PathGlob(p) for p in include or []]
    excludes = [PathGlob(p) for p in exclude or []]
    selected: dict[Path, EvalFileRef] = {}
    datasets = datasets or []
    entries = [(spec, "paths") for spec in specs or ([] if datasets else ["."])]
    for spec, option in [*entries, *((dataset, "dataset") for dataset in datasets)]:
        path, case_ids, candidates = _candidates(spec, option=option)
        for candidate in candidates:
            display = display_path(candidate, root)
            explicit = candidate == path
            if not explicit and includes and not _matches(display, includes):
                continue
            if excludes and _matches(display, excludes):
                continue
            key = _resolved(candidate)
            previous = selected.get(key)
            if previous and (not previous.case_ids or not case_ids):
                merged: tuple[str, ...] = ()
            elif previous:
                merged = tuple(dict.fromkeys(previous.case_ids + case_ids))
            else:
                merged = case_ids
            dataset = (
                option == "dataset" or formats.is_dataset_name(candidate.name) or bool(previous and previous.dataset)
            )
            selected[key] = EvalFileRef(candidate, display, merged, file_problem(candidate, root=root), dataset)
    if not selected:
        where = ", ".join(specs or ["."])
        raise UsageError(
            f"no eval files ({formats.eval_file_patterns()}) found under {where}",
            field="paths",
            hint="check the paths and the include/exclude globs",
        )
    return sorted(selected.values(), key=lambda ref: ref.display)

"""Paths named by the repository's own files (a manifest's ``agent_directory``, a table's agent, a config's
``custom_function_file``, a test module's path), checked before the file system sees them, and the one rule for
code outside the repository.

Such a path is the pull request's to write: a NUL makes every ``os`` call raise ``ValueError``, a part of more than
255 bytes or a path of more than 4,096 raise ``OSError`` (``File name too long``) even from ``is_dir()``. Each is
the problem of the file that names it, said in a few words here, never an error that stops the run.

Code (an agent module, a custom metric's function file, a metric module) runs only when its real path, symbolic
links followed, is inside the repository: the same answer whether it is named absolute, with ``../`` or through a
link.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_PART_BYTES = 255  # NAME_MAX of Linux and macOS file systems
MAX_PATH_BYTES = 4096  # PATH_MAX of Linux
SHOWN_CHARACTERS = 60  # of a path value quoted in a one-line problem
OUTSIDE = "is outside the repository (symbolic links followed)"
CODE_OUTSIDE_HINT = "only the repository's own code is run: move the file into the repository"


def shown(value: str) -> str:
    """The value as a problem quotes it: its ``repr``, cut to ``SHOWN_CHARACTERS`` with its length when longer."""
    if len(value) <= SHOWN_CHARACTERS:
        return repr(value)
    return f"{value[:SHOWN_CHARACTERS]!r}... ({len(value):,} characters)"


def path_value_problem(value: str | Path) -> str | None:
    """Why ``value`` cannot be a path on this system (a NUL, a part or the whole too long), in a few words that
    follow the value in a problem; None when the file system can be asked about it."""
    text = os.fspath(value)
    if "\0" in text:
        return "holds a NUL character"
    try:
        encoded = os.fsencode(text)
    except UnicodeEncodeError:  # a lone surrogate, as a JSON escape can give
        return "holds characters no file name can have"
    if len(encoded) > MAX_PATH_BYTES:
        return f"is {len(encoded):,} bytes long, more than the {MAX_PATH_BYTES:,} a path may have"
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if longest > MAX_PART_BYTES:
        return f"has a name of {longest:,} bytes, more than the {MAX_PART_BYTES} a file name may have"
    return None


def real_path(path: Path) -> Path | str:
    """``path`` absolute with its symbolic links followed (as far as they exist), or why it cannot be."""
    problem = path_value_problem(path)
    if problem is not None:
        return problem
    try:
        resolved = Path(os.path.realpath(path))
    except (OSError, RuntimeError, ValueError) as error:  # a link loop on Python 3.13, a target too long
        return f"cannot be resolved ({type(error).__name__}: {error.args[-1] if error.args else error})"
    return path_value_problem(resolved) or resolved


def is_inside(path: Path, root: Path) -> bool:
    """Whether the resolved ``path`` is ``root`` (resolved) or under it."""
    return path.is_relative_to(os.path.realpath(root))


def repository_path(value: str, *, base: Path, root: Path) -> Path | str:
    """The path a repository file names (relative to ``base``, the folder it is read from; absolute as given),
    resolved and inside the repository ``root``; else why not, in a few words that follow the value in the file's
    one-line problem ("holds a NUL character", "is outside the repository ...")."""
    problem = path_value_problem(value)
    if problem is not None:
        return problem
    resolved = real_path(base / value)
    if isinstance(resolved, str):
        return resolved
    return resolved if is_inside(resolved, root) else OUTSIDE


def code_outside_repository(path: Path, *, root: Path) -> str | None:
    """The one rule for code the gate would import or run (an agent module, a function file, a metric module):
    why it may not run, in a few words that follow its name, when its real path is outside ``root``; else None."""
    resolved = real_path(path)
    if isinstance(resolved, str):
        return resolved
    return None if is_inside(resolved, root) else f"{OUTSIDE}; {CODE_OUTSIDE_HINT}"

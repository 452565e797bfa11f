"""The inputs of every case (``--only-affected``): the files that set up the environment the agents run in, and the
``--always-affected`` globs. A change to one of them runs every case.

The environment's files are the dependency files anywhere in the repository (``ENVIRONMENT_FILES``), the workflows,
the action's ``requirements`` file, and what the requirement lists among them name, as pip reads them: the files
they include (``-r``/``--requirement``) and constrain with (``-c``/``--constraint``), from the list's folder,
followed through their own includes, and the local projects they install, from the repository's root
(``./libs/tools``: pip copies it into site-packages, where the agents' imports are not observed, so a change under
that folder runs every case; an editable one, ``-e``, is imported from the repository and observed). Only files
inside the repository are read, each at most once, only regular files of at most ``MAX_BYTES``; one that cannot be
read whole makes what the environment depends on unknown (``Environment.unknown``), and then every case runs.
"""

from __future__ import annotations

import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from adk_eval_gate.inputs.discover import SKIPPED_DIRS, display_path
from adk_eval_gate.support.atomic import read_regular
from adk_eval_gate.support.globs import PathGlob

ENVIRONMENT_FILES = re.compile(
    r"(?:^|/)(?:requirements[^/]*\.(?:txt|in)|constraints[^/]*\.txt|pyproject\.toml|setup\.(?:py|cfg)|Pipfile"
    r"|Pipfile\.lock|poetry\.lock|uv\.lock|pdm\.lock|pylock[^/]*\.toml|environment\.ya?ml)\Z"
    r"|(?:^|/)requirements/[^/]+\.(?:txt|in)\Z"
    r"|\A\.github/workflows/[^/]+\.ya?ml\Z"
)
"""The environment's dependency files, anywhere in the repository, and the workflows that set it up."""

REQUIREMENT_LISTS = re.compile(
    r"(?:^|/)(?:requirements[^/]*\.(?:txt|in)|constraints[^/]*\.txt)\Z|(?:^|/)requirements/[^/]+\.(?:txt|in)\Z"
)
"""The dependency files that pip reads as requirement lists, whose includes are followed."""

MAX_BYTES = 1024 * 1024  # a requirement list larger than this is not read: what it includes is not known
MAX_FILES = 500  # requirement lists followed from one repository
_INCLUDE = re.compile(r"^(?:-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+|(?<=-r)|(?<=-c))(\S.*)$")
_EDITABLE = re.compile(r"^(?:-e|--editable)(?:\s*=\s*|\s+)")
_VARIABLE = re.compile(r"\$\{[A-Za-z0-9_]+\}")


@dataclass
class Environment:
    """The environment's inputs: repository paths, a folder (ending with ``/``) standing for anything under it."""

    files: list[str] = field(default_factory=list)
    unknown: str | None = None  # why what the environment depends on is not fully known


def environment_inputs(tracked: list[str], requirements: str | None, root: Path) -> Environment:
    """The dependency files of the environment among ``tracked``, with the action's ``requirements`` file, and what
    the requirement lists among them name."""
    found = {path for path in tracked if ENVIRONMENT_FILES.search(path)}
    lists = [path for path in sorted(found) if REQUIREMENT_LISTS.search(path)]
    if requirements and requirements != "pyproject":
        path = display_path(Path(requirements).resolve(), root)
        if not path.startswith(("/", "..")):
            found.add(path)
            lists.insert(0, path)
    environment = Environment()
    found |= _followed(lists, root=root, environment=environment)
    environment.files = sorted(found)
    return environment


def _followed(lists: list[str], *, root: Path, environment: Environment) -> set[str]:
    """What the requirement lists include, constrain with and install from the repository, transitively."""
    base = root.resolve()
    seen: set[str] = set()
    named: set[str] = set()
    todo = deque(lists)
    while todo:
        current = todo.popleft()
        if current in seen:
            continue
        seen.add(current)
        if len(seen) > MAX_FILES:
            environment.unknown = f"the requirement lists include more than {MAX_FILES} files"
            break
        if _inside(current, folder=base, root=base) is None:
            continue  # a link that leaves the repository: not read
        data = read_regular(base / current, max_bytes=MAX_BYTES)
        if isinstance(data, str):
            if os.path.lexists(base / current) and environment.unknown is None:
                environment.unknown = f"requirement list {current} could not be read ({data})"
            continue
        for kind, target in _references(data.decode("utf-8", "replace")):
            if _VARIABLE.search(target):
                environment.unknown = environment.unknown or f"{current} names {target!r}, which depends on a variable"
                continue
            # pip reads an included list's path from the list's folder, a local project's from where it runs (the
            # repository's root, in the action)
            path = _inside(target, folder=(base / current).parent if kind == "list" else base, root=base)
            if path is None:
                continue  # a URL, or a file outside the repository: not the repository's to compare
            if kind == "list":
                named.add(path)
                todo.append(path)
            elif path == ".":
                named.add("./")  # the repository itself, installed: a change anywhere
            else:
                named.add(path + "/" if (base / path).is_dir() else path)
    return named


def _references(text: str) -> list[tuple[str, str]]:
    """("list", path) for each include or constraint file of a requirement list, ("project", path) for each local
    project or archive it installs (not editable)."""
    found = []
    for raw in text.replace("\\\r\n", "").replace("\\\n", "").splitlines():
        line = _without_comment(raw).strip()
        include = _INCLUDE.match(line)
        if include:
            found.append(("list", include.group(1).strip()))
        elif line and not line.startswith("-") and not _EDITABLE.match(line):
            target = _local_project(line)
            if target is not None:
                found.append(("project", target))
    return found


def _without_comment(line: str) -> str:
    """The line before its comment: a ``#`` that begins it or follows white space, as pip reads it."""
    index = line.find("#")
    while index > 0 and not line[index - 1].isspace():
        index = line.find("#", index + 1)
    return line if index < 0 else line[:index]


def _local_project(line: str) -> str | None:
    """The path of a requirement that is a local project or archive (``./libs/x``, ``name @ file:///...``)."""
    spec = line.split(";", 1)[0].strip()
    if " @ " in spec:
        spec = spec.split(" @ ", 1)[1].strip()
    spec = spec.split()[0] if spec.split() else ""
    if spec.startswith("file:"):
        return spec
    if spec.endswith("]") and "[" in spec:
        spec = spec[: spec.rindex("[")]  # extras: ./libs/x[cli]
    return spec if spec.startswith((".", "/")) or "/" in spec or os.sep in spec else None


def _inside(target: str, *, folder: Path, root: Path) -> str | None:
    """``target`` (relative to the list that names it, or a ``file:`` URL) as a repository path, None outside."""
    if target.startswith("file:"):
        target = unquote(target.removeprefix("file:").split("?", 1)[0].split("#", 1)[0])
        if target.startswith("//"):
            target = "/" + target[2:].partition("/")[2]
    elif "://" in target:
        return None
    try:
        resolved = (folder / target).resolve()
        relative = resolved.relative_to(root)
    except (OSError, RuntimeError, ValueError):  # a link loop, or outside the repository
        return None
    if SKIPPED_DIRS.intersection(relative.parts):
        return None
    return relative.as_posix()  # "." for the repository itself


def changes_to_everything(changed: frozenset[str], *, environment: list[str], always: list[str]) -> list[str]:
    """The changed files that are inputs of every case: the environment's (``environment``, a folder standing for
    anything under it, and any file named like a dependency file), and the files ``--always-affected`` globs match,
    by their path or their name (``*.csv`` matches ``data/rates.csv``, as ``--include`` does)."""
    patterns = [PathGlob(glob.strip().removeprefix("./")) for glob in always if glob.strip()]
    files = set(environment)
    folders = tuple(path for path in environment if path.endswith("/"))
    if "./" in folders:
        folders = ("",)  # the repository itself: every path
    found = []
    for path in sorted(changed):
        if SKIPPED_DIRS.intersection(path.split("/")[:-1]):
            continue  # a virtualenv or tool folder inside the checkout
        if (
            path in files
            or path.startswith(folders)
            or ENVIRONMENT_FILES.search(path)
            or any(pattern.matches_file(path) for pattern in patterns)
        ):
            found.append(path)
    return found

"""What an agent depends on, observed where it loads and runs (the worker process), and what custom metrics read
where they score (the main process): ``runners/workers/observe_events.py`` records the paths used under the repository
root (files read, folders listed, existence checks, import lookups, databases); this module turns them into
repository-relative files, with the symbolic links met on the way and the files they lead to, and adds the
repository's modules those files import (``ModuleIndex.with_imports``: a module another agent imported first is not
opened again, so the import statements of the observed modules are followed, resolved through ``sys.modules``) and
what each of those modules read when it was imported.

The hooks are cheap: while nothing records they return at once, and while something does they only compare the
path with the repository root and add it to a set; turning paths into repository-relative files (a cached ``.pyc``
is its source, virtualenvs and tool folders are left out, links resolved) happens once per case run.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import os
import site
import stat
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from pathlib import Path

from adk_eval_gate.inputs.agent_sources import AgentRef
from adk_eval_gate.inputs.discover import SKIPPED_DIRS
from adk_eval_gate.runners.workers import observe_events

LINKS_FOLLOWED = 40  # symbolic links followed to resolve one path, as the kernel's ELOOP limit


def install(root: Path) -> None:
    """Starts watching what is used under ``root`` in this process (the hooks stay, idle when unused); again for the
    same root, nothing to do."""
    if observe_events.install(str(root)):
        _resolved.cache_clear()


@contextlib.contextmanager
def recording() -> Iterator[set[str]]:
    """The absolute paths used (folders listed end with a separator) under the root meanwhile by this task, its
    callbacks, and other threads (``repository_files`` turns them into the case's inputs)."""
    with observe_events.recording() as used:
        yield used


def note(paths: Iterable[str]) -> None:
    """Absolute paths used on behalf of the running task in another process (``function_process``): recorded for it."""
    observe_events.note(paths)


@functools.cache
def _outside_prefixes() -> tuple[str, ...]:
    """Folders whose files are the environment's, not the repository's, even under the root (a .venv inside)."""
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values()}
    with contextlib.suppress(AttributeError):
        folders.update(site.getsitepackages())
    return tuple(os.path.join(os.path.realpath(folder), "") for folder in folders if folder)


def repository_files(paths: Iterable[str], root: Path) -> set[str]:
    """Recorded paths as repository-relative POSIX paths: a cached module is its source, a listed folder ends with
    a slash (the root's is ``./``), each symbolic link met on the way is a path too, and so is what it leads to;
    the environment's files, tool folders and anything outside the root are left out."""
    root_text = str(root.resolve())
    found: set[str] = set()
    for recorded in paths:
        folder = recorded.endswith(os.sep)
        path = _source(recorded.rstrip(os.sep) or os.sep)
        if path is None:
            continue
        links, target = _resolved(path, root_text, os.path.abspath(root))
        for each in (path + os.sep if folder else path, *links, target + os.sep if folder else target):
            relative = _relative(each, root_text)
            if relative is not None:
                found.add(relative)
    return found


def _source(path: str) -> str | None:
    """A cached module (``__pycache__/name.TAG.pyc``) as its source file."""
    if path.endswith(".pyc") and f"{os.sep}__pycache__{os.sep}" in path:
        try:
            return importlib.util.source_from_cache(path)
        except ValueError:
            return None
    return path


@functools.lru_cache(maxsize=65536)
def _resolved(path: str, root: str, given_root: str) -> tuple[tuple[str, ...], str]:
    """(the symbolic links met resolving ``path`` under ``root``, where it leads): each part from the root on is
    looked at once (``lstat``); a loop, or more than ``LINKS_FOLLOWED`` links, stops where it got to."""
    relative = _under(path, root, given_root)
    if relative is None:
        return (), path
    current, pending = root, relative.split(os.sep)
    links: list[str] = []
    while pending:
        name = pending.pop(0)
        if name in ("", "."):
            continue
        candidate = os.path.dirname(current) if name == ".." else os.path.join(current, name)
        if _under(candidate, root, root) is None:  # above the root: outside the repository
            return tuple(links), os.path.join(candidate, *pending)
        try:
            is_link = stat.S_ISLNK(observe_events.original_lstat(candidate).st_mode)
        except (OSError, ValueError):  # not there (yet): the rest as written
            return tuple(links), os.path.join(candidate, *pending)
        if not is_link:
            current = candidate
            continue
        if candidate in links or len(links) >= LINKS_FOLLOWED:
            return tuple(links), os.path.join(candidate, *pending)
        links.append(candidate)
        try:
            target = os.readlink(candidate)
        except (OSError, ValueError):  # replaced meanwhile
            return tuple(links), os.path.join(candidate, *pending)
        if os.path.isabs(target):
            inside = _under(target, root, given_root)
            if inside is None:
                return tuple(links), os.path.join(target, *pending)  # outside the repository
            current, target = root, inside
        pending = [*target.split(os.sep), *pending]
    return tuple(links), current


def _under(path: str, root: str, given_root: str) -> str | None:
    """``path`` relative to the root (as resolved or as given), or None when it is not under it."""
    for prefix in (root, given_root):
        if path == prefix:
            return ""
        if path.startswith(prefix + os.sep):
            return path[len(prefix) + 1 :]
    return None


def _relative(recorded: str, root: str) -> str | None:
    folder = recorded.endswith(os.sep)
    path = _source(os.path.normpath(recorded))
    if path is None:
        return None
    outside = _outside_prefixes()
    if path.startswith(outside) or os.path.join(path, "") in outside:
        return None
    relative = os.path.relpath(path, root)
    parts = relative.split(os.sep)
    if relative == ".":
        return "./" if folder else None  # the root's listing
    if parts[0] == ".." or SKIPPED_DIRS.intersection(parts):
        return None
    return spelled("/".join(parts) + ("/" if folder else ""))


def spelled(path: str) -> str:
    """A path as results.json and ``git_changes`` both spell it: bytes that are not UTF-8 as ``\\xff``, never a
    lone surrogate (which JSON cannot hold)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


class ModuleIndex:
    """The repository's modules that are imported in this process, by name, and what each file imports."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._size = -1
        self._by_name: dict[str, str] = {}
        self._by_file: dict[str, str] = {}
        self._imports: dict[str, list[str]] = {}
        self._reads: dict[str, set[str]] = {}
        self._reads_size = 0

    def _refresh(self) -> None:
        if len(sys.modules) == self._size:
            return
        self._size = len(sys.modules)
        self._by_name, self._by_file = {}, {}
        root = str(self.root)
        inside = os.path.join(root, "")
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            path = _relative(file, root) if isinstance(file, str) and file.startswith(inside) else None
            if path is not None:
                self._by_name[name] = path
                self._by_file.setdefault(path, name)

    def with_imports(self, files: set[str]) -> set[str]:
        """``files`` and, transitively, the repository modules their import statements name (anywhere in them:
        a function's import counts too), with what each of those modules read when it was imported (once per
        process, whoever imported it first)."""
        self._refresh()
        found = set(files)
        todo = list(files)
        while todo:
            file = todo.pop()
            used = set(self._read_at_import(file))
            if file.endswith(".py"):
                used.update(target for name in self._imported(file) if (target := self._by_name.get(name)))
            for target in used - found:
                found.add(target)
                todo.append(target)
        return found

    def _read_at_import(self, file: str) -> set[str]:
        if observe_events.module_reads_size[0] != self._reads_size:
            self._reads_size = observe_events.module_reads_size[0]
            reads: dict[str, set[str]] = {}
            for module, paths in list(observe_events.module_reads.items()):
                relative = _relative(module, str(self.root))
                if relative is not None:
                    reads.setdefault(relative, set()).update(repository_files(list(paths), self.root))
            self._reads = reads
        return self._reads.get(file, set())

    def _imported(self, file: str) -> list[str]:
        if file not in self._imports:
            self._imports[file] = _import_names(self.root / file, self._by_file.get(file), file.endswith("__init__.py"))
        return self._imports[file]


def _import_names(path: Path, module: str | None, is_package: bool) -> list[str]:
    """The module names an import statement of the file can load (each dotted prefix too: importing a.b runs
    a/__init__.py)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return []
    package = (module if is_package else module.rpartition(".")[0]) if module else None
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if not package:
                    continue
                try:
                    base = importlib.util.resolve_name("." * node.level + base, package)
                except (ImportError, ValueError):
                    continue
            names += [base, *(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")]
    return sorted({prefix for name in names if name for prefix in _prefixes(name)})


def _prefixes(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[: index + 1]) for index in range(len(parts))]


class AgentInputs:
    """Per agent, what it used in this process: while it was imported, and in its runs so far (an agent may read a
    file once and keep it); each run reports all of it, with the imports followed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules = ModuleIndex(root)
        self._imported: dict[AgentRef, set[str]] = {}
        self._runs: dict[AgentRef, set[str]] = {}
        self._last: dict[AgentRef, tuple[tuple[int, ...], list[str]]] = {}  # what of_run found, and from what

    def imported(self, ref: AgentRef, used: set[str]) -> None:
        """What importing the agent used, with its own module's files: a module another agent imported first is
        not opened again, so it is found through the imports of the agent's own files."""
        self._imported[ref] = used | _own_files(ref)
        self._last.pop(ref, None)  # a new set, not a grown one: of_run's sizes no longer tell

    def of_run(self, ref: AgentRef, used: set[str]) -> list[str]:
        """The repository files the agent used, importing and running so far, this run (``used``) included."""
        runs = self._runs.setdefault(ref, set())
        runs.update(used)
        imported = self._imported.get(ref, set())
        # The sets only grow (a new imported set drops what was found), so the same sizes are the same files; most
        # runs of an agent use nothing new, and finding the files again (paths resolved, imports followed) was about
        # 1% of a worker's CPU.
        key = (len(imported), len(runs), len(sys.modules), observe_events.module_reads_size[0])
        last = self._last.get(ref)
        if last is not None and last[0] == key:
            return list(last[1])
        found = sorted(self.modules.with_imports(repository_files(imported | runs, self.root)))
        self._last[ref] = (key, found)
        return list(found)


def _own_files(ref: AgentRef) -> set[str]:
    if ref.kind == "folder":
        folder = Path(ref.location)
        candidates = [folder / "__init__.py", folder / "agent.py", folder / "agent" / "__init__.py"]
        return {str(path) for path in candidates if path.is_file()}
    file = getattr(sys.modules.get(ref.location), "__file__", None)
    return {file} if isinstance(file, str) else set()

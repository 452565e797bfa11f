"""What an agent depends on, observed where it loads and runs (the worker process): the files it opens and the
folders it lists under the repository root, through an audit hook (``sys.addaudithook``), and the repository's
modules those files import (``with_imports``: a module another agent imported first is not opened again, so the
import statements of the observed modules are followed, resolved through ``sys.modules``).

The hook is cheap: while nothing records it returns at once, and while something does it only compares the
path with the repository root and adds it to a set; turning paths into repository-relative files (a cached
``.pyc`` is its source, virtualenvs and tool folders are left out) happens once per case run. Events are
recorded for the case run whose task caused them (a context variable), events of other threads (a tool in a
thread pool) for every recording open at the time: more cases may count a file, none misses one it used.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import inspect
import os
import site
import sys
import sysconfig
import threading
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from adk_eval_gate.inputs.discover import SKIPPED_DIRS
from adk_eval_gate.runners.agents import AgentRef

_LISTINGS = frozenset({"os.listdir", "os.scandir"})
_SINK: ContextVar[set[str] | None] = ContextVar("adk_eval_gate_observed", default=None)
_recordings: dict[int, set[str]] = {}  # every recording open, by id: they get the events no task claims
_root = ""  # the repository root and a separator, once installed
_installed = False
_main_thread = threading.main_thread().ident
_WRITE_ONLY = frozenset("wax")
_IMPORT_SYSTEM = "<frozen importlib"  # its folder listings find modules: the imports themselves are followed


def install(root: Path) -> None:
    """Starts watching the files opened under ``root`` in this process (the hook stays, idle when unused)."""
    global _root, _installed, _main_thread
    _root = os.path.join(str(root.resolve()), "")
    _main_thread = threading.main_thread().ident  # a forked worker's main thread is its own
    if not _installed:
        sys.addaudithook(_audit)
        _installed = True


@contextlib.contextmanager
def recording() -> Iterator[set[str]]:
    """The absolute paths opened (and folders, ending with a separator, listed) under the root meanwhile by this
    task, its callbacks, and other threads (``repository_files`` turns them into the case's inputs)."""
    sink: set[str] = set()
    token = _SINK.set(sink)
    _recordings[id(sink)] = sink
    try:
        yield sink
    finally:
        _recordings.pop(id(sink), None)
        with contextlib.suppress(ValueError):  # reset from another context: the recording ends all the same
            _SINK.reset(token)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _recordings or (event != "open" and event not in _LISTINGS):
        return
    try:  # a hook that raises would fail the agent's own open()
        if event == "open":
            mode, flags = args[1], args[2]
            if (mode is None and flags & os.O_ACCMODE == os.O_WRONLY) or (
                mode is not None and "+" not in mode and _WRITE_ONLY.intersection(mode)
            ):
                return  # written, not read
            _record(args[0], folder=False)
        else:
            hook = inspect.currentframe()  # this function's frame: the one before it is the code that lists
            lister = hook.f_back if hook is not None else None
            if lister is not None and not lister.f_code.co_filename.startswith(_IMPORT_SYSTEM):
                _record(args[0] if args and args[0] is not None else ".", folder=True)
    except Exception:  # whatever the path is, the agent's call goes on
        pass


def _record(target: Any, *, folder: bool) -> None:
    if isinstance(target, int):
        return  # a file descriptor: its path was recorded when it was opened
    path = os.fsdecode(os.fspath(target))
    if not os.path.isabs(path):
        path = os.path.join(os.getcwd(), path)
    if not path.startswith(_root):
        return
    if folder:
        path = os.path.join(path, "")
    sink = _SINK.get()
    if sink is not None:
        sink.add(path)
    elif threading.get_ident() != _main_thread:
        for other in list(_recordings.values()):
            other.add(path)


@functools.cache
def _outside_prefixes() -> tuple[str, ...]:
    """Folders whose files are the environment's, not the repository's, even under the root (a .venv inside)."""
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values()}
    with contextlib.suppress(AttributeError):
        folders.update(site.getsitepackages())
    return tuple(os.path.join(os.path.realpath(folder), "") for folder in folders if folder)


def repository_files(paths: Iterable[str], root: Path) -> set[str]:
    """Recorded paths as repository-relative POSIX paths: a cached module is its source, a listed folder ends with
    a slash; the environment's files, tool folders and anything outside the root are left out."""
    root_text = str(root.resolve())
    return {relative for path in paths if (relative := _relative(path, root_text)) is not None}


def _relative(recorded: str, root: str) -> str | None:
    folder = recorded.endswith(os.sep)
    path = os.path.normpath(recorded)
    if path.endswith(".pyc") and "__pycache__" in path:
        try:
            path = importlib.util.source_from_cache(path)
        except ValueError:
            return None
    outside = _outside_prefixes()
    if path.startswith(outside) or os.path.join(path, "") in outside:
        return None
    relative = os.path.relpath(path, root)
    parts = relative.split(os.sep)
    if relative == "." or parts[0] == ".." or SKIPPED_DIRS.intersection(parts):
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
        a function's import counts too)."""
        self._refresh()
        found = set(files)
        todo = [file for file in files if file.endswith(".py")]
        while todo:
            for name in self._imported(todo.pop()):
                target = self._by_name.get(name)
                if target is not None and target not in found:
                    found.add(target)
                    todo.append(target)
        return found

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
        self._last: dict[AgentRef, tuple[tuple[int, int, int], list[str]]] = {}  # what of_run found, and from what

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
        key = (len(imported), len(runs), len(sys.modules))
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

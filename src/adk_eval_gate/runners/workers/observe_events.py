"""The events ``runners/workers/observe.py`` turns into a case's inputs: every path under the repository root that agent
or metric code reads, lists, checks or looks for while a recording is open, as an absolute path (a listed folder ends
with a separator).

- Python's audit hook (``sys.addaudithook``): ``open`` for reading, ``os.listdir`` and ``os.scandir`` (a folder's
  listing; the import system's own listings excepted: the lookups are recorded instead), ``sqlite3.connect`` (a
  database file) and ``ctypes.dlopen`` (a native library).
- Existence checks, which raise no audit event: ``os.stat``, ``os.lstat`` and ``os.access`` are wrapped while a
  recording is open (``os.path.exists``, ``isfile``, ``isdir``, ``getmtime``, ``pathlib.Path.exists`` and the rest
  go through them); the originals are back once the last recording ends.
- Import lookups: each folder of the repository on ``sys.path`` or in a package's ``__path__`` has its finder
  wrapped (a path hook); the names it was asked for and did not have (``try: import overrides``, a module found
  further down ``sys.path``) are the files and the package folder that would have answered.

Events are recorded for the case run whose task caused them (a context variable), events of other threads (a tool
in a thread pool) for every recording open at the time: more cases may count a file, none misses one it used.
What a repository module reads while its top-level code runs (at import) is also kept for that module
(``module_reads``): a module runs once per process, and every agent that imports it depends on what it read.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.machinery
import inspect
import os
import pkgutil
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import Any
from urllib.parse import unquote

_LISTINGS = frozenset({"os.listdir", "os.scandir"})
_FILES = frozenset({"sqlite3.connect", "ctypes.dlopen"})  # their first argument names a file they read
_SINK: ContextVar[set[str] | None] = ContextVar("adk_eval_gate_observed", default=None)
_recordings: dict[int, set[str]] = {}  # every recording open, by id: they get the events no task claims
_roots: tuple[str, ...] = ()  # the repository root as given and resolved, each ending with a separator
_installed = False
_main_thread = threading.main_thread().ident
_WRITE_ONLY = frozenset("wax")
_IMPORT_SYSTEM = "<frozen importlib"  # its folder listings find modules: the lookups are recorded instead
_CHECKS = ("stat", "lstat", "access")  # the os functions existence checks go through
_originals: dict[str, Callable[..., Any]] = {}
_lock = threading.Lock()

module_reads: dict[str, set[str]] = {}
"""A repository module's file (its code's file name) -> the paths read while its top-level code ran."""
module_reads_size = [0]  # how many paths module_reads holds, so a caller can tell it grew


def install(root: str) -> bool:
    """Starts watching what is used under ``root`` in this process (the hooks stay, idle when nothing records).
    False when it already watched ``root`` in this process: nothing to do (the finders made since are its own)."""
    global _roots, _installed, _main_thread
    given = os.path.join(os.path.abspath(root), "")
    resolved = os.path.join(os.path.realpath(root), "")
    roots = (resolved,) if given == resolved else (resolved, given)
    main_thread = threading.main_thread().ident  # a forked worker's main thread is its own
    if _installed and roots == _roots and main_thread == _main_thread:
        return False
    _roots, _main_thread = roots, main_thread
    if not _installed:
        sys.addaudithook(_audit)
        sys.path_hooks.insert(0, _probing_hook)
        pkgutil.iter_importer_modules.register(_ProbingFinder, _modules_of)  # type: ignore[attr-defined]
        _installed = True
    for folder, finder in list(sys.path_importer_cache.items()):  # the finders made before, of the root's folders
        if finder is not None and not isinstance(finder, _ProbingFinder) and _inside(folder or os.getcwd()):
            sys.path_importer_cache[folder] = _ProbingFinder(finder, folder or os.getcwd())
    return True


@contextlib.contextmanager
def recording() -> Iterator[set[str]]:
    """The absolute paths used under the root meanwhile by this task, its callbacks, and other threads."""
    sink: set[str] = set()
    token = _SINK.set(sink)
    with _lock:
        if not _recordings and _installed:
            _wrap_checks()
        _recordings[id(sink)] = sink
    try:
        yield sink
    finally:
        with _lock:
            _recordings.pop(id(sink), None)
            if not _recordings:
                _unwrap_checks()
        with contextlib.suppress(ValueError):  # reset from another context: the recording ends all the same
            _SINK.reset(token)


def note(paths: Iterable[str]) -> None:
    """Paths used on behalf of this task elsewhere (metric code in a process of its own), recorded as if used here."""
    sink = _SINK.get()
    if sink is not None:
        sink.update(paths)


def _inside(path: object) -> bool:
    """Whether a folder (a ``sys.path`` entry: it may be anything) is the repository's."""
    return isinstance(path, str) and bool(_roots) and os.path.join(os.path.abspath(path), "").startswith(_roots)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _recordings or (event != "open" and event not in _LISTINGS and event not in _FILES):
        return
    try:  # a hook that raises would fail the agent's own call
        if event == "open":
            mode, flags = args[1], args[2]
            if (mode is None and flags & os.O_ACCMODE == os.O_WRONLY) or (
                mode is not None and "+" not in mode and _WRITE_ONLY.intersection(mode)
            ):
                return  # written, not read
            _record(args[0], folder=False)
        elif event in _FILES:
            _record(_database_file(args[0]) if event == "sqlite3.connect" else args[0], folder=False)
        else:
            hook = inspect.currentframe()  # this function's frame: the one before it is the code that lists
            lister = hook.f_back if hook is not None else None
            if lister is not None and not lister.f_code.co_filename.startswith(_IMPORT_SYSTEM):
                _record(args[0] if args and args[0] is not None else ".", folder=True)
    except Exception:  # whatever the path is, the agent's call goes on
        pass


def _database_file(database: Any) -> Any:
    """The file of a SQLite database argument: a path, or a ``file:`` URI's path (None: in memory)."""
    text = os.fsdecode(os.fspath(database)) if not isinstance(database, int) else ""
    if text in ("", ":memory:"):
        return None
    if text.startswith("file:"):
        path = unquote(text.removeprefix("file:").split("?", 1)[0].split("#", 1)[0])
        if path.startswith("//"):  # file://host/path
            path = "/" + path[2:].partition("/")[2]
        return path or None
    return database


def _record(target: Any, *, folder: bool, module: str | None = None) -> None:
    """``module``: the module the path is kept for (``module_reads``), else the one being imported, if any."""
    if target is None or isinstance(target, int):
        return  # a file descriptor: its path was recorded when it was opened
    path = os.fsdecode(os.fspath(target))
    if not os.path.isabs(path):
        path = os.path.join(os.getcwd(), path)
    if not path.startswith(_roots):
        return
    if folder:
        path = os.path.join(path, "")
    sink = _SINK.get()
    if sink is not None:
        sink.add(path)
    elif threading.get_ident() != _main_thread:
        for other in list(_recordings.values()):
            other.add(path)
    module = module or _importing_module()
    if module is not None:
        reads = module_reads.setdefault(module, set())
        if path not in reads:
            reads.add(path)
            module_reads_size[0] += 1


def _importing_module() -> str | None:
    """The file of the innermost repository module whose top-level code the import system is running, if any: a
    script's top level (the entry point, a user's ``run_evals.py``) is not being imported."""
    frame = inspect.currentframe()  # this function's: from the code that used the path outwards
    while frame is not None:
        code = frame.f_code
        if code.co_name == "<module>" and code.co_filename.startswith(_roots):
            caller = frame.f_back
            if caller is not None and caller.f_code.co_filename.startswith(_IMPORT_SYSTEM):
                return code.co_filename
        frame = frame.f_back
    return None


def _wrap_checks() -> None:
    for name in _CHECKS:
        original = getattr(os, name)
        if name not in _originals:
            _originals[name] = original
            setattr(os, name, _checking(original))


def _unwrap_checks() -> None:
    for name, original in list(_originals.items()):
        if getattr(os, name) is not original and getattr(getattr(os, name), "__wrapped__", None) is original:
            setattr(os, name, original)  # unless someone replaced it again meanwhile: then it stays theirs
        del _originals[name]


def _checking(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def checked(path: Any, *args: Any, **kwargs: Any) -> Any:
        if _recordings and kwargs.get("dir_fd") is None:
            with contextlib.suppress(Exception):  # whatever the path is, the call goes on (and raises what it raises)
                _record(path, folder=False)
        return original(path, *args, **kwargs)

    return checked


def original_lstat(path: str) -> os.stat_result:
    """``os.lstat`` as it was before any recording: what resolves the recorded paths is not recorded itself."""
    return _originals.get("lstat", os.lstat)(path)  # type: ignore[no-any-return]


class _ProbingFinder:
    """A folder's import finder that records the names it was asked for and did not have."""

    def __init__(self, finder: Any, folder: str) -> None:
        self._finder = finder
        self._folder = folder

    def find_spec(self, fullname: str, target: Any = None) -> Any:
        spec = self._finder.find_spec(fullname, target)
        if _recordings:
            with contextlib.suppress(Exception):
                _probed(self._folder, fullname.rpartition(".")[2], spec)
        return spec

    def invalidate_caches(self) -> None:
        method = getattr(self._finder, "invalidate_caches", None)
        if method is not None:
            method()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._finder, name)


def _modules_of(finder: _ProbingFinder, prefix: str = "") -> Iterator[tuple[str, bool]]:
    """``pkgutil.iter_modules`` of a wrapped folder: what the folder's own finder lists (a plugin loader's)."""
    return pkgutil.iter_importer_modules(finder._finder, prefix)  # type: ignore[attr-defined,no-any-return]


def _probed(folder: str, name: str, spec: Any) -> None:
    """What would have answered an import of ``name`` in ``folder`` sooner: a package folder (recorded as a path:
    it appearing counts), a module file of any suffix, or a package's ``__init__``."""
    base = os.path.join(folder, name)
    if spec is not None and spec.loader is not None:
        if spec.submodule_search_locations is None and isinstance(spec.origin, str):
            # a package folder of the same name would come first: whoever imports the module depends on it
            _record(base, folder=False, module=spec.origin)
        return
    suffixes = importlib.machinery.all_suffixes()
    if spec is None:
        _record(base, folder=False)
    else:  # a namespace package's folder: an __init__ or a module file would come first
        for suffix in suffixes:
            _record(os.path.join(base, "__init__" + suffix), folder=False)
    for suffix in suffixes:
        _record(base + suffix, folder=False)


def _probing_hook(folder: str) -> Any:
    """``sys.path_hooks``' first hook: the finder the other hooks make for a folder of the repository, wrapped."""
    path = folder or os.getcwd()
    if not _inside(path):
        raise ImportError("not a folder of the repository")
    for hook in sys.path_hooks:
        if hook is _probing_hook:
            continue
        try:
            return _ProbingFinder(hook(folder), path)
        except ImportError:
            continue
    raise ImportError(f"no finder for {folder!r}")

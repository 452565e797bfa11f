"""Cache files (``--cache-dir``): written so that a reader never sees half of one (a temporary file renamed into
place), and read back without trusting what is there.

A cache folder is restored from wherever the workflow keeps it, so an entry may be anything: a FIFO (reading it
blocks forever), a link to ``/dev/zero`` (reading it never ends), a file of gigabytes. Only regular files within a
size limit are read; anything else is ignored, with one warning per cache.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: Path, text: str) -> bool:
    """Best effort (a cache that cannot be written only costs the next run its work): False when it failed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


class _NotAnEntry(Exception):
    """The path is there but is not a regular file within the size limit (the message says what it is)."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _read_regular(path: Path, max_bytes: int) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes`` (checked on the opened file, which
    is opened without blocking), else ``_NotAnEntry``; ``OSError`` when it cannot be read."""
    mode = os.stat(path).st_mode  # links followed: what counts is what a read would reach
    if not stat.S_ISREG(mode):
        raise _NotAnEntry(_kind(mode))
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        opened = os.fstat(descriptor)  # the file may have been swapped since the stat above
        if not stat.S_ISREG(opened.st_mode):
            raise _NotAnEntry(_kind(opened.st_mode))
        if opened.st_size > max_bytes:
            raise _NotAnEntry(f"larger than {max_bytes:,} bytes")
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(descriptor, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise _NotAnEntry(f"larger than {max_bytes:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def read_regular(path: Path, *, max_bytes: int) -> bytes | str:
    """The bytes of ``path`` when it is a regular file of at most ``max_bytes`` (read without blocking), else why
    not, in a few words ("a FIFO", "larger than 1,048,576 bytes", "No such file or directory")."""
    try:
        return _read_regular(path, max_bytes)
    except _NotAnEntry as problem:
        return str(problem)
    except OSError as error:
        return error.strerror or type(error).__name__


def unread(path: Path, reason: str, *, max_bytes: int) -> str:
    """``read_regular``'s reason as what follows the file's name in a one-line problem: "is a FIFO, not a regular
    file", "is 52,428,800 bytes, more than the 1,000,000 read", "cannot be read: Permission denied"."""
    if reason.startswith("larger than"):
        with contextlib.suppress(OSError):
            return f"is {path.stat().st_size:,} bytes, more than the {max_bytes:,} read"
        return f"is more than the {max_bytes:,} read"
    if reason == "not a regular file":
        return "is not a regular file"
    if reason in {"a FIFO", "a device", "a folder"}:
        return f"is {reason}, not a regular file"
    return f"cannot be read: {reason}"


class CacheReader:
    """Reads the entries of one cache: regular files of at most ``max_bytes``. Anything else is ignored, and the
    first such entry is reported through ``warn`` (once: a poisoned folder must not flood the log)."""

    def __init__(self, *, max_bytes: int, warn: Callable[[str], None] | None = None) -> None:
        self.max_bytes = max_bytes
        self._warn = warn
        self.ignored = 0  # entries that were not regular files within the limit

    def read(self, path: Path) -> str | None:
        """The entry's text; None when there is none or it cannot be used (never raises, never blocks)."""
        try:
            data = _read_regular(path, self.max_bytes)
        except _NotAnEntry as problem:
            self._ignored(path, str(problem))
            return None
        except OSError:  # absent (the usual miss), unreadable, a link loop
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _ignored(self, path: Path, problem: str) -> None:
        self.ignored += 1
        if self.ignored == 1 and self._warn is not None:
            self._warn(
                f"cache entry {path} ignored: {problem} (entries must be regular files of at most "
                f"{self.max_bytes:,} bytes; any other such entry is ignored as well)"
            )

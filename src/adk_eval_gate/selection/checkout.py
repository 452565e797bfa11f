"""What the checkout holds of a case's inputs beyond what git compares (``--only-affected``): whether each file
exists, and the names in each folder the case listed.

A run records it as its cases end (``CaseInputs.absent``, ``CaseInputs.listings``); a run with --only-affected looks
again before anything runs. A file that appeared or disappeared, or a folder that now holds other names, touches the
case whatever git says (a file git ignores, a generated one, a ``.env``); a file that exists but that git does not
track cannot be compared with the base run's, so it touches the case too (``selection/affected.py`` decides).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from adk_eval_gate.inputs.discover import SKIPPED_DIRS

ABSENT = "absent"  # nothing at that path
FOLDER = "folder"  # a folder where the case checked a path (its names count only where the case listed them)
FILE = "file"  # anything else: a file, a symbolic link (not followed), a FIFO or a device
OUTSIDE = "outside"  # a path that leaves the repository (a baseline is untrusted): never looked at
_NOT_LISTED = "not listed: "  # a folder input that cannot be listed: why (ENOTDIR, ELOOP, EACCES)
_SKIPPED_NAMES = frozenset(os.fsencode(name) for name in SKIPPED_DIRS)  # made by runs (__pycache__, .adk), tools'
_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")


def _unspelled(path: str) -> bytes:
    r"""A repository path as results.json spells it (``runners.workers.observe.spelled``: a byte that is not UTF-8 as
    ``\xff``) as the bytes of the name on disk."""
    return _ESCAPE.sub(lambda found: bytes([int(found.group(1), 16)]), path.encode("utf-8", "replace"))


def survey(paths: Iterable[str], *, root: Path, skipped: Iterable[str] = ()) -> dict[str, str]:
    """Each repository path's state now: ``ABSENT``, ``FOLDER`` or ``FILE`` for a file, and for a folder the case
    listed (ending with ``/``, the root's ``./``) ``ABSENT`` or a digest of the names in it. ``skipped``: this
    gate's own outputs, made by the run, never counted among a folder's names (nor the folders they are in)."""
    base = os.fsencode(str(root.resolve()))
    outputs = {os.fsencode(path) for path in skipped}
    outputs |= {parent for path in outputs for parent in _parents(path)}
    states: dict[str, str] = {}
    for path in paths:
        if path in states:
            continue
        relative = _unspelled(path)
        if relative.startswith(b"/") or b".." in relative.split(b"/") or b"\0" in relative:
            states[path] = OUTSIDE
        elif path.endswith("/"):
            folder = b"" if path == "./" else relative.rstrip(b"/")
            states[path] = _listing(os.path.join(base, folder) if folder else base, folder, outputs)
        else:
            states[path] = _kind(os.path.join(base, relative))
    return states


def _parents(path: bytes) -> list[bytes]:
    parts = path.split(b"/")
    return [b"/".join(parts[:index]) for index in range(1, len(parts))]


def _kind(path: bytes) -> str:
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        return ABSENT
    return FOLDER if stat.S_ISDIR(mode) else FILE


def _listing(folder: bytes, relative: bytes, outputs: set[bytes]) -> str:
    """A digest of the names in ``folder`` (as a case's listing saw them), without those runs make."""
    prefix = relative + b"/" if relative else b""
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                entry.name
                for entry in entries
                if entry.name not in _SKIPPED_NAMES and prefix + entry.name not in outputs
            )
    except FileNotFoundError:
        return ABSENT
    except (OSError, ValueError) as error:
        return _NOT_LISTED + (os.strerror(error.errno) if isinstance(error, OSError) and error.errno else "unknown")
    return hashlib.sha256(b"\0".join(names)).hexdigest()[:16]

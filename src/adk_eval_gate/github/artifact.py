"""Unpacking a downloaded results artifact safely: it is untrusted (anyone who can push a branch can make one).

Only ``results.json`` at the top of the zip is read, into memory; nothing is written to disk. The whole artifact
is refused when any entry has an unsafe path (absolute, ``..``, backslashes, drive letters), when it declares
more than the size cap or a compression ratio typical of zip bombs, or when reading would go past the cap
whatever the headers say.
"""

from __future__ import annotations

import io
import re
import zipfile

from adk_eval_gate.support.errors import GateError

MAX_ZIP_BYTES = 64 * 1024 * 1024
MAX_RESULTS_BYTES = 128 * 1024 * 1024
MAX_RATIO = 200
MAX_ENTRIES = 1000
RESULTS_NAME = "results.json"
_DRIVE = re.compile(r"^[A-Za-z]:")


class ArtifactError(GateError):
    """The artifact cannot be used as a baseline."""


def unsafe_path(name: str) -> bool:
    if not name or "\x00" in name or "\\" in name or name.startswith("/") or _DRIVE.match(name):
        return True
    return any(part == ".." for part in name.split("/"))


def read_results(
    data: bytes, *, max_bytes: int = MAX_RESULTS_BYTES, max_ratio: int = MAX_RATIO, name: str = RESULTS_NAME
) -> bytes:
    """The bytes of ``results.json`` in the zip ``data``, or ``ArtifactError`` saying why not."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        raise ArtifactError("the artifact is not a zip file") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ENTRIES:
            raise ArtifactError(f"the artifact has {len(entries)} files, more than the {MAX_ENTRIES} allowed")
        for entry in entries:
            if unsafe_path(entry.filename):
                raise ArtifactError(f"the artifact has an unsafe path {entry.filename[:200]!r}; it was not unpacked")
        found = [e for e in entries if e.filename.removeprefix("./") == name]
        if not found:
            raise ArtifactError(f"the artifact has no {name} at its top level")
        entry = found[0]
        if entry.flag_bits & 0x1:
            raise ArtifactError(f"{name} in the artifact is encrypted")
        if entry.file_size > max_bytes:
            raise ArtifactError(
                f"{name} in the artifact declares {entry.file_size:,} bytes, more than the {max_bytes:,} allowed"
            )
        if entry.compress_size and entry.file_size / entry.compress_size > max_ratio:
            raise ArtifactError(
                f"{name} in the artifact is compressed {entry.file_size // entry.compress_size}:1, like a zip bomb"
            )
        try:
            with archive.open(entry) as member:
                payload = member.read(max_bytes + 1)
        except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError, RuntimeError) as error:
            raise ArtifactError(f"{name} in the artifact cannot be read: {error}") from None
        if len(payload) > max_bytes:
            raise ArtifactError(f"{name} in the artifact is more than the {max_bytes:,} bytes allowed")
        return payload

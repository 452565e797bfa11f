"""Zip files for the artifact tests, including hostile ones (traversal, lying sizes, bombs)."""

from __future__ import annotations

import io
import struct
import zipfile

_CENTRAL = b"PK\x01\x02"


def make_zip(entries: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
    return buffer.getvalue()


def patch_central_directory(data: bytes, *, file_size: int | None = None, flag_bits: int | None = None) -> bytes:
    """The zip with the first central-directory entry's declared size or flags rewritten (headers that lie)."""
    at = data.index(_CENTRAL)
    patched = bytearray(data)
    if flag_bits is not None:
        patched[at + 8 : at + 10] = struct.pack("<H", flag_bits)
    if file_size is not None:
        patched[at + 24 : at + 28] = struct.pack("<I", file_size)
    return bytes(patched)

"""A content-addressed cache of judge answers on disk (``--cache-dir``).

The key is a hash of the judge's provider (Gemini's keys leave it out, as before there were others) and model, its
generation config, the full prompt, the sample index and the case's
run number, so a second command over unchanged agent answers asks the judge nothing, while the runs of one case
(``--num-runs``, ``--confirm-failures``) each get their own judge samples. Writes are atomic (a temporary file renamed
into place); an entry that cannot be read or does not match its key is ignored, never fatal. Entries are read only
when they are regular files of at most ``MAX_ENTRY_BYTES``, through the bounded JSON parser (``atomic.CacheReader``,
``sanitize.loads``): the folder is restored from wherever the workflow keeps it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adk_eval_gate.judge.gemini_client import ModelAnswer
from adk_eval_gate.model.tokens import token_count
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.atomic import CacheReader, write_atomically

CACHE_FORMAT = 1
MAX_ENTRY_BYTES = 8 * 1024 * 1024  # a judge's answer is at most tens of thousands of tokens: a few hundred KB


def cache_key(
    *, model: str, config: dict[str, Any], prompt: str, sample: int, run: int = 1, provider: str = "gemini"
) -> str:
    fields: dict[str, Any] = {"format": CACHE_FORMAT, "model": model, "config": config, "prompt": prompt}
    if provider != "gemini":  # Gemini keeps the keys of the versions that had no other provider
        fields["provider"] = provider
    fields["sample"] = sample
    if run != 1:  # run 1 keeps the keys of the versions that did not vary by run
        fields["run"] = run
    material = json.dumps(
        fields,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class JudgeCache:
    def __init__(self, directory: Path, *, warn: Callable[[str], None] | None = None) -> None:
        """``warn``: told once about an entry that is not a regular file within the size limit."""
        self.directory = directory
        self.reader = CacheReader(max_bytes=MAX_ENTRY_BYTES, warn=warn)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelAnswer | None:
        text = self.reader.read(self._path(key))
        if text is None:
            return None
        try:
            data = sanitize.loads(text)
        except ValueError:  # not JSON, or unsafe JSON (sanitize.UnsafeJson)
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("text"), str):
            return None
        return ModelAnswer(
            text=data["text"],
            input_tokens=token_count(data.get("input_tokens", 0)),
            output_tokens=token_count(data.get("output_tokens", 0)),
        )

    def put(self, key: str, answer: ModelAnswer) -> None:
        """Best effort: a cache that cannot be written (read-only, full disk) only costs the next run calls."""
        path = self._path(key)
        record = {
            "format": CACHE_FORMAT,
            "key": key,
            "text": answer.text,
            "input_tokens": answer.input_tokens,
            "output_tokens": answer.output_tokens,
        }
        write_atomically(path, json.dumps(record, ensure_ascii=False))

"""A content-addressed cache of judge answers on disk (``--cache-dir``).

The key is a hash of the judge model, its generation config, the full prompt and the sample index, so a
second run over unchanged agent answers asks the judge nothing. Writes are atomic (a temporary file renamed
into place); an entry that cannot be read or does not match its key is ignored, never fatal.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from adk_eval_gate.judge.client import ModelAnswer

CACHE_FORMAT = 1


def cache_key(*, model: str, config: dict[str, Any], prompt: str, sample: int) -> str:
    material = json.dumps(
        {"format": CACHE_FORMAT, "model": model, "config": config, "prompt": prompt, "sample": sample},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class JudgeCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelAnswer | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("text"), str):
            return None
        input_tokens, output_tokens = data.get("input_tokens", 0), data.get("output_tokens", 0)
        return ModelAnswer(
            text=data["text"],
            input_tokens=input_tokens if isinstance(input_tokens, int) else 0,
            output_tokens=output_tokens if isinstance(output_tokens, int) else 0,
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
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    json.dump(record, stream, ensure_ascii=False)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            return

"""A content-addressed cache of judge answers on disk (``--cache-dir``).

The key is a hash of the judge's provider (Gemini's keys leave it out, as before there were others) and model, its
generation config, the full prompt, the sample index and the case's
run number, so a second command over unchanged agent answers asks the judge nothing, while the runs of one case
(``--num-runs``, ``--confirm-failures``) each get their own judge samples. Writes are atomic (a temporary file renamed
into place); an entry that cannot be read or does not match its key is ignored, never fatal.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from adk_eval_gate.atomic import write_atomically
from adk_eval_gate.judge.client import ModelAnswer

CACHE_FORMAT = 1


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
        write_atomically(path, json.dumps(record, ensure_ascii=False))

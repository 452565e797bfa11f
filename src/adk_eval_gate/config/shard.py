"""``--shard I/N``: which part of the cases a matrix job runs, by a stable hash of the case id."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from adk_eval_gate.support.errors import UsageError


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str, *, field: str = "--shard") -> Shard:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise UsageError(f"{text!r} is not a shard", field=field, hint="write I/N, e.g. 1/4")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise UsageError(
                f"shard {text!r} is out of range",
                field=field,
                hint="I must be between 1 and N, e.g. 1/4 ... 4/4",
            )
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, case_id: str) -> bool:
        digest = hashlib.sha256(case_id.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

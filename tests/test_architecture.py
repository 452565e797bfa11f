"""ARCHITECTURE.md matches the code: every module and test path it names exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "adk_eval_gate"


def test_every_module_named_in_architecture_md_exists() -> None:
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b((?:[a-z_]+/)*[a-z_]+\.py)\b", text))
    missing = [name for name in sorted(named) if not (SRC / name).is_file() and not (REPO / name).is_file()]
    assert named and missing == []

from __future__ import annotations

from adk_eval_gate.cli import entry

entry()

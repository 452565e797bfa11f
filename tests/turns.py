"""A turn of a results.json read in ADK's form: results.json keeps the actual turns compact (model/compact.py)."""

from __future__ import annotations

from typing import Any

from adk_eval_gate.model import compact


def actual(record: dict[str, Any], doc: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The actual invocation of one of a run's ``invocations`` (its app details from ``doc``'s table); None when
    inference did not get this far."""
    if "act" not in record:
        return None
    return compact.expand(record["act"], user=record["user"], apps=(doc or {}).get("app_details"))

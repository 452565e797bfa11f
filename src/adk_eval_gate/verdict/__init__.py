"""verdict: every rule that can fail a case or the run (``rules``), decided once (``decide``) with the policy the
options set (``policy``); the pass rule and stability over a case's runs (``stability``), and the budgets' figures
(``budgets``)."""

from __future__ import annotations

from adk_eval_gate.verdict.decide import (
    decide,
    decide_case,
    exit_code,
    metric_summaries,
    quarantine,
    redecide,
    totals,
    unmatched_quarantine,
)
from adk_eval_gate.verdict.policy import Policy
from adk_eval_gate.verdict.sequential_case import evidence_of

__all__ = [
    "Policy",
    "decide",
    "decide_case",
    "evidence_of",
    "exit_code",
    "metric_summaries",
    "quarantine",
    "redecide",
    "totals",
    "unmatched_quarantine",
]

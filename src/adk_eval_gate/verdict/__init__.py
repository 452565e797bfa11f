"""verdict: every rule that can fail a case or the run (``rules``), decided once (``decide``) with the policy the
options set (``policy``); the pass rule and stability over a case's runs (``stability``), the budgets' figures
(``budgets``), the regressions against the base branch (``regressions``) and the sequential verdicts
(``sequential``). Its one face: a module outside imports ``adk_eval_gate.verdict``, never a module behind it."""

from __future__ import annotations

from adk_eval_gate.verdict.aggregation import (
    ScoreRule,
    comparison_text,
    invocation_statuses,
    run_metric_status,
)
from adk_eval_gate.verdict.budgets import case_checks, run_overruns
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
from adk_eval_gate.verdict.judge_gate import earned_gate, ungated_reasons
from adk_eval_gate.verdict.policy import Policy
from adk_eval_gate.verdict.regressions import counted, drops
from adk_eval_gate.verdict.rules import (
    PASS_RULES,
    failure_reason,
    run_error,
    run_reasons,
    run_scores_text,
    run_status,
)
from adk_eval_gate.verdict.sequential import (
    CaseEvidence,
    MetricSpec,
    RunOutcome,
    SequentialSettings,
    base_settled,
    compare_with_base,
    consume,
    continue_evidence,
    e_bh,
    gate_verdict,
    next_wave,
    open_evidence,
    regression_e_value,
)
from adk_eval_gate.verdict.sequential.intervals import anytime_interval
from adk_eval_gate.verdict.sequential_case import evidence_of
from adk_eval_gate.verdict.stability import flaky_cases

__all__ = [
    "PASS_RULES",
    "CaseEvidence",
    "MetricSpec",
    "Policy",
    "RunOutcome",
    "ScoreRule",
    "SequentialSettings",
    "anytime_interval",
    "base_settled",
    "case_checks",
    "compare_with_base",
    "comparison_text",
    "consume",
    "continue_evidence",
    "counted",
    "decide",
    "decide_case",
    "drops",
    "e_bh",
    "earned_gate",
    "evidence_of",
    "exit_code",
    "failure_reason",
    "flaky_cases",
    "gate_verdict",
    "invocation_statuses",
    "metric_summaries",
    "next_wave",
    "open_evidence",
    "quarantine",
    "redecide",
    "regression_e_value",
    "run_error",
    "run_metric_status",
    "run_overruns",
    "run_reasons",
    "run_scores_text",
    "run_status",
    "totals",
    "ungated_reasons",
    "unmatched_quarantine",
]

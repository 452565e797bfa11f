"""Sequential verdicts (``--sequential``): each case runs in waves and stops once its verdict under the pass rule is
proven at the stated confidence, or can no longer change within ``--num-runs`` (curtailed); a case still open at N is
undecided. Pure: the runner hands the outcomes in, these functions say what they prove and how many runs to start.

``betting``: the two one-sided betting tests; ``intervals``: the anytime interval; ``streams``: what a test reads
of a run and today's fixed-N rule; ``evidence``: a case's evidence and decision; ``waves``: how many runs to start
next; ``base_evidence``: the anytime comparison with the base branch and e-BH across cases.
"""

from __future__ import annotations

from adk_eval_gate.verdict.sequential.base_evidence import base_settled, compare_with_base, e_bh, regression_e_value
from adk_eval_gate.verdict.sequential.evidence import (
    CaseEvidence,
    RunOutcome,
    SequentialSettings,
    consume,
    continue_evidence,
    evidence_from_json,
    evidence_json,
    gate_verdict,
    interval,
    open_evidence,
)
from adk_eval_gate.verdict.sequential.streams import MetricSpec
from adk_eval_gate.verdict.sequential.waves import next_wave

__all__ = [
    "CaseEvidence",
    "MetricSpec",
    "RunOutcome",
    "SequentialSettings",
    "base_settled",
    "compare_with_base",
    "consume",
    "continue_evidence",
    "e_bh",
    "evidence_from_json",
    "evidence_json",
    "gate_verdict",
    "interval",
    "next_wave",
    "open_evidence",
    "regression_e_value",
]

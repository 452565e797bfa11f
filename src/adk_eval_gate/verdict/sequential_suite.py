"""Under ``--undecided neutral``, the cases proven failing across the suite, decided once every case is: e-BH (Wang
& Ramdas, arXiv 2009.02824) over the cases' final FAIL e-values at ``alpha = 1 - confidence``, across the suite's
``fail_split`` cases (a shard holds only some; those it lacks count as e-values of 0, which e-BH never flags).

Each case still stops on the bar ``fail_split / alpha`` (the runs spent do not change). Its final e-value is an
e-process stopped at a stopping time, an e-value under its null, and e-BH is valid under any dependence between the
cases, so a healthy suite is failed at most ``alpha`` of the time; e-BH flags every case that bar proves (``k = 1``)
and more: twenty cases at an e-value of 200 among 200 are all flagged at 95% (bar 200 / (20 * 0.05) = 200).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adk_eval_gate.model.results import CaseResult, Effect, Finding, SequentialCase, SequentialRun
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict.sequential import e_bh
from adk_eval_gate.verdict.sequential_case import DEMOTED_RULES, shown_e_value


@dataclass(frozen=True)
class SuiteProof:
    """What e-BH proved a case failing against: the suite's case count and the bar its e-value met."""

    cases: int
    bar: float


def proven_across_suite(cases: Sequence[CaseResult], run: SequentialRun) -> dict[str, SuiteProof]:
    """The cases (by id) e-BH proves failing across the suite, with what they met; none unless ``neutral``.
    The e-values read are those ``decide_case`` derived again from the runs (a carried case's are not: left out)."""
    if run.undecided != "neutral":
        return {}
    decided = [case for case in cases if case.sequential is not None and case.carried is None]
    suite = max(run.fail_split or 1, len(decided))
    e_values = [case.sequential.e_fail for case in decided if case.sequential is not None]
    flagged = e_bh([*e_values, *[0.0] * (suite - len(e_values))], alpha=1.0 - run.confidence)
    if not flagged:
        return {}
    proof = SuiteProof(cases=suite, bar=suite / ((1.0 - run.confidence) * len(flagged)))
    return {decided[index].id: proof for index in flagged}


def proven_failing(
    sequential: SequentialCase, findings: Sequence[Finding], *, proof: SuiteProof, confidence: float
) -> tuple[SequentialCase, list[Finding]]:
    """A case e-BH proves failing: its decision ``proven-fail``, today's N-run findings failing it again (a neutral
    verdict had made them notes), and the sequential finding saying why."""
    proven = sequential.model_copy(update={"decision": "proven-fail", "verdict": "fail"})
    restored = [
        found.model_copy(update={"effect": Effect.FAILED})
        if found.rule in DEMOTED_RULES and found.effect == Effect.NONE
        else found
        for found in findings
        if found.rule not in ("sequential", "confirmation")  # confirmation's is said again with the new status
    ]
    reason = (
        f"proven failing across the suite's {proof.cases} cases at {confidence:.0%} after "
        f"{plural(sequential.runs, 'run')} (e-BH: e-value {shown_e_value(sequential.e_fail)} >= bar "
        f"{shown_e_value(proof.bar)})"
    )
    return proven, [*restored, Finding(rule="sequential", effect=Effect.FAILED, reason=reason, metric=None)]

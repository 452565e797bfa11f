"""A case's runs taken together (``--num-runs`` and the ``--confirm-failures`` re-runs): how stable it was,
stable-pass, stable-fail or flaky, with pass^k and pass@k (the pass rule that decides its status is a rule of the
verdict, ``rules.thresholds``).

With ``--sequential`` the cases ran different numbers of runs, so the suite's pass^k and pass@k are taken at one
stated k, ``--min-runs`` (every decided case ran at least that many): each case's chance that k runs drawn from its
own n all pass, C(c, k) / C(n, k) with c of its n runs passing, and that at least one does, 1 - C(n - c, k) / C(n, k)
(the unbiased estimators tau-bench uses), averaged over the cases. With a fixed number of runs k is that number and
the shares are those of the cases that passed all their runs and at least one.

Runs that ended in an infrastructure error (a timeout, the model's 429/5xx after retries, a judge outage) say
nothing about the agent, so they are left out of the stability figures; they still make the case an error.
"""

from __future__ import annotations

import math

from adk_eval_gate.model.results import CaseResult, CaseStatus, RunRecord, Stability, SuiteStability


def _decisive_runs(runs: list[RunRecord]) -> list[RunRecord]:
    """The runs that say something about the agent: all but those with an infrastructure error."""
    return [run for run in runs if run.error_kind != "infrastructure"]


def stability(runs: list[RunRecord]) -> tuple[Stability | None, bool | None, bool | None]:
    """(stability, pass^k, pass@k) over the decisive runs; all None with fewer than two of them."""
    decisive = _decisive_runs(runs)
    if len(decisive) < 2:
        return None, None, None
    passed = sum(1 for run in decisive if run.status == CaseStatus.PASSED)
    kind: Stability = "stable-pass" if passed == len(decisive) else "stable-fail" if passed == 0 else "flaky"
    return kind, passed == len(decisive), passed > 0


def flaky_cases(cases: list[CaseResult]) -> list[CaseResult]:
    """The gated cases whose runs disagree, in the order given: those the suite's flaky count counts (quarantined
    cases are reported apart)."""
    return [case for case in cases if case.stability == "flaky" and not case.quarantined]


def suite_stability(cases: list[CaseResult], *, k: int | None = None) -> SuiteStability | None:
    """pass^k, pass@k and the stable/flaky counts over the cases that ran several times (None: there are none);
    ``k``: the stated k of ``--sequential`` (``--min-runs``), when the cases' run counts vary."""
    several = [case for case in cases if case.stability is not None]
    if not several:
        return None
    counts = [_passed_of(case) for case in several]
    at = None if k is None else min(k, *(n for _, n in counts))
    return SuiteStability(
        cases=len(several),
        stable_pass=sum(1 for case in several if case.stability == "stable-pass"),
        stable_fail=sum(1 for case in several if case.stability == "stable-fail"),
        flaky=len(flaky_cases(several)),
        pass_hat_k=(
            sum(1 for case in several if case.pass_hat_k) / len(several)
            if at is None
            else math.fsum(_pass_hat(c, n, k=at) for c, n in counts) / len(counts)
        ),
        pass_at_k=(
            sum(1 for case in several if case.pass_at_k) / len(several)
            if at is None
            else math.fsum(1.0 - _pass_hat(n - c, n, k=at) for c, n in counts) / len(counts)
        ),
        k=at,
        runs=None if at is None else [min(n for _, n in counts), max(n for _, n in counts)],
    )


def _pass_hat(passed: int, runs: int, *, k: int) -> float:
    """The chance that ``k`` of a case's ``runs`` drawn without replacement all passed, ``passed`` of them passing:
    C(passed, k) / C(runs, k)."""
    return math.comb(passed, k) / math.comb(runs, k)


def _passed_of(case: CaseResult) -> tuple[int, int]:
    decisive = _decisive_runs(case.runs)
    return sum(1 for run in decisive if run.status == CaseStatus.PASSED), len(decisive)

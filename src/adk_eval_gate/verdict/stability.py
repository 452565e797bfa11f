"""A case's runs taken together (``--num-runs`` and the ``--confirm-failures`` re-runs): how stable it was,
stable-pass, stable-fail or flaky, with pass^k and pass@k (the pass rule that decides its status is a rule of the
verdict, ``rules.thresholds``).

Runs that ended in an infrastructure error (a timeout, the model's 429/5xx after retries, a judge outage) say
nothing about the agent, so they are left out of the stability figures; they still make the case an error.
"""

from __future__ import annotations

from adk_eval_gate.model.results import CaseResult, CaseStatus, RunRecord, Stability, SuiteStability


def decisive_runs(runs: list[RunRecord]) -> list[RunRecord]:
    """The runs that say something about the agent: all but those with an infrastructure error."""
    return [run for run in runs if run.error_kind != "infrastructure"]


def stability(runs: list[RunRecord]) -> tuple[Stability | None, bool | None, bool | None]:
    """(stability, pass^k, pass@k) over the decisive runs; all None with fewer than two of them."""
    decisive = decisive_runs(runs)
    if len(decisive) < 2:
        return None, None, None
    passed = sum(1 for run in decisive if run.status == CaseStatus.PASSED)
    kind: Stability = "stable-pass" if passed == len(decisive) else "stable-fail" if passed == 0 else "flaky"
    return kind, passed == len(decisive), passed > 0


def flaky_cases(cases: list[CaseResult]) -> list[CaseResult]:
    """The gated cases whose runs disagree, in the order given: those the suite's flaky count counts (quarantined
    cases are reported apart)."""
    return [case for case in cases if case.stability == "flaky" and not case.quarantined]


def suite_stability(cases: list[CaseResult]) -> SuiteStability | None:
    """pass^k, pass@k and the stable/flaky counts over the cases that ran several times (None: there are none)."""
    several = [case for case in cases if case.stability is not None]
    if not several:
        return None
    return SuiteStability(
        cases=len(several),
        stable_pass=sum(1 for case in several if case.stability == "stable-pass"),
        stable_fail=sum(1 for case in several if case.stability == "stable-fail"),
        flaky=len(flaky_cases(several)),
        pass_hat_k=sum(1 for case in several if case.pass_hat_k) / len(several),
        pass_at_k=sum(1 for case in several if case.pass_at_k) / len(several),
    )

"""The base branch's history (``--history``): what each case scored in its recent runs (the base runs
``github/base_runs.py`` accepts, whatever their conclusion), which cases flip between passing and failing there,
and the trend of the suite for the summary's chart. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from adk_eval_gate.model.results import BaselineInfo, History, HistoryPoint, ResultsDocument

BaseRuns = Sequence[tuple[BaselineInfo, ResultsDocument]]  # newest first, as the baseline lookup finds them
_GOOD = "passed"
_BAD = frozenset({"failed"})


def metric_series(runs: BaseRuns) -> dict[tuple[str, str], list[float]]:
    """Per (case id, metric): its scores in the base runs, oldest first (a run without it adds nothing)."""
    series: dict[tuple[str, str], list[float]] = {}
    for _, doc in reversed(runs):
        for case in doc.cases:
            for metric in case.metrics:
                if metric.score is not None:
                    series.setdefault((case.id, metric.name), []).append(metric.score)
    return series


def known_flaky(runs: BaseRuns, case_ids: Sequence[str]) -> list[str]:
    """The cases that passed in some base runs and failed in others, or were flaky within one of them."""
    seen: dict[str, set[str]] = {}
    flaky_inside: set[str] = set()
    for _, doc in runs:
        for case in doc.cases:
            seen.setdefault(case.id, set()).add(case.status)
            if case.stability == "flaky":
                flaky_inside.add(case.id)
    return [
        case_id
        for case_id in case_ids
        if case_id in flaky_inside or (_GOOD in seen.get(case_id, set()) and seen[case_id] & _BAD)
    ]


def point(doc: ResultsDocument, info: BaselineInfo | None = None) -> HistoryPoint:
    """One run as the trend shows it: its pass rate and the mean of each graded metric."""
    gating = [case for case in doc.cases if not case.quarantined]
    passed = sum(1 for case in gating if case.status == _GOOD)
    return HistoryPoint(
        run_id=info.run_id if info else None,
        run_number=info.run_number if info else None,
        sha=info.sha if info else doc.run.sha,
        created_at=info.created_at if info else doc.run.started_at,
        run_url=info.run_url if info else doc.run.run_url,
        cases=len(gating),
        pass_rate=passed / len(gating) if gating else None,
        metric_means={s.name: s.mean for s in doc.metrics if s.kind != "informational"},
    )


def summary(runs: BaseRuns, *, requested: int, case_ids: Sequence[str]) -> History:
    return History(
        requested=requested,
        runs=[point(doc, info) for info, doc in reversed(runs)],
        known_flaky=known_flaky(runs, case_ids),
    )

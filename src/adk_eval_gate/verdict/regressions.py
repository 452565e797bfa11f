"""Which drops against the baseline count as regressions: the one rule the verdict, the reports and the re-runs
of ``--confirm-failures`` count with."""

from __future__ import annotations

from collections.abc import Collection

from adk_eval_gate.model.results import Comparison, MetricChange, ResultsDocument


def drops(
    comparison: Comparison, *, quarantined: Collection[str] = (), strict: bool
) -> tuple[list[MetricChange], list[MetricChange]]:
    """The drops that count (those of metrics scored alike on both sides, or every one when ``strict``) and those
    not comparable; drops of ``quarantined`` cases are neither. The verdict, the reports and the re-runs of
    ``--confirm-failures`` all count with this."""
    regressed = [c for c in comparison.changes if c.kind == "regressed" and c.case_id not in quarantined]
    return [c for c in regressed if c.comparable or strict], [c for c in regressed if not (c.comparable or strict)]


def counted(comparison: Comparison, head: ResultsDocument, *, strict: bool) -> Comparison:
    """The comparison with its regression counts for ``strict`` (which ``report --strict-comparison`` may change
    on saved results); the same object when they do not change."""
    quarantined = {case.id for case in head.cases if case.quarantined}
    counting, incomparable = drops(comparison, quarantined=quarantined, strict=strict)
    counts = {
        "regressions": sum(1 for c in counting if c.significance != "noise"),
        "noisy_regressions": sum(1 for c in counting if c.significance == "noise"),
        "incomparable_regressions": len(incomparable),
    }
    if all(getattr(comparison, name) == value for name, value in counts.items()):
        return comparison
    return comparison.model_copy(update=counts)

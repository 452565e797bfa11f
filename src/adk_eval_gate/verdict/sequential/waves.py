"""How many runs of a case to start next: the fewest that could settle it, within the room left and the free slots.

The first wave is ``min_runs`` runs (no decision is taken on fewer), larger for a case that base-branch history
shows to be flaky: such a case usually needs most of its runs, and starting them together saves waves. History only
plans; it never enters the case's evidence. Later waves start as many runs as the best or the worst possible outcomes
need to reach a decision (a proof, curtailment or the most runs), less the runs already in flight.
"""

from __future__ import annotations

from adk_eval_gate.verdict.sequential.evidence import CaseEvidence, RunOutcome, consume
from adk_eval_gate.verdict.sequential.streams import MetricSpec


def _extreme(spec: MetricSpec, *, best: bool) -> float:
    return spec.high if best == spec.higher_is_better else spec.low


def _extreme_run(evidence: CaseEvidence, *, best: bool) -> RunOutcome:
    scores = {stream.spec.name: _extreme(stream.spec, best=best) for stream in evidence.streams}
    return RunOutcome(passed=best, scores=scores)


def _runs_to_earliest_decision(evidence: CaseEvidence) -> int:
    """The fewest further runs after which the case could be decided (by all runs at their best or at their worst)."""
    room = evidence.window_start + evidence.settings.max_runs - evidence.runs
    for best in (True, False):
        outcome = _extreme_run(evidence, best=best)
        extreme = consume(evidence, {evidence.runs + k: outcome for k in range(1, room + 1)})
        room = min(room, extreme.runs - evidence.runs)
    return room


def next_wave(evidence: CaseEvidence, *, in_flight: int, free_slots: int, known_flaky: bool = False) -> int:
    """How many runs of the case to start now, given the runs in flight (started and not read yet: running, or
    finished after one that is still running), the free slots (parallelism) and whether base history marks the case
    flaky; 0 once it is decided or nothing more could help."""
    if evidence.decision is not None:
        return 0
    settings = evidence.settings
    done = evidence.runs - evidence.window_start
    room = settings.max_runs - done - in_flight
    if done + in_flight == 0:
        wanted = max(settings.min_runs, (settings.max_runs + 1) // 2) if known_flaky else settings.min_runs
    else:
        wanted = _runs_to_earliest_decision(evidence) - in_flight
    return max(0, min(wanted, room, free_slots))

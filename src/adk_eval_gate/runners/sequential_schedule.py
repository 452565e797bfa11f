"""``--sequential``'s schedule: each case runs in waves instead of all its ``--num-runs`` at once.

Its first wave is ``--min-runs`` runs (more for a case the base branch's history marks flaky); after each of its
runs finishes, the case's evidence is read again (in run-number order: the verdict's ``case_evidence``, given by the
caller) and the core's ``next_wave`` says how many more to start, until the case is decided or has had its most
runs. Every case's waves queue for the same slots, so the pool stays full across cases. A run whose error was
transient or an outage of a service around the agent is not evidence: it is taken out and run again under its own
number (a few times per case); any other error ends the case's runs (the case is an error, as without
``--sequential``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field

from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.runners.execute import Execution, FinishedRun
from adk_eval_gate.verdict import CaseEvidence, next_wave

EvidenceOf = Callable[[WorkItem, list[FinishedRun]], "CaseEvidence | None"]
"""A case's evidence after its finished runs (its first item and those runs); None: it cannot be decided
sequentially (it runs all its runs)."""
Unsettled = Callable[[WorkItem, list[FinishedRun]], bool]
"""Whether a case's comparison with the base is still open after its finished runs (``--fail-on-regression``)."""

REQUEUES_PER_CASE = 3


@dataclass
class _Case:
    items: list[WorkItem]  # its planned runs, in run order
    started: int = 0
    requeued: int = 0
    stopped: bool = False


@dataclass
class SequentialSchedule:
    """Which runs start when (``first``, then ``after`` each finished run); ``on_more``: called with the count of
    runs each wave starts (the progress's total); ``unsettled``: with ``--fail-on-regression`` and a baseline, a
    decided case runs on, one run at a time within its most runs, while its comparison with the base is open."""

    evidence_of: EvidenceOf
    parallelism: int
    known_flaky: Collection[str] = ()
    unsettled: Unsettled | None = None
    on_more: Callable[[int], None] | None = None
    cases: dict[str, _Case] = field(default_factory=dict)

    def first(self, items: list[WorkItem]) -> list[WorkItem]:
        """Each case's first wave, in plan order."""
        for item in items:
            self.cases.setdefault(item.case_id, _Case([])).items.append(item)
        wave: list[WorkItem] = []
        for case_id, case in self.cases.items():
            case.items.sort(key=lambda item: item.run)
            evidence = self.evidence_of(case.items[0], [])
            count = len(case.items)
            if evidence is not None:
                count = next_wave(
                    evidence, in_flight=0, free_slots=len(case.items), known_flaky=case_id in self.known_flaky
                )
            wave.extend(self._start(case, count))
        self._more(len(wave))
        return wave

    def _start(self, case: _Case, count: int) -> list[WorkItem]:
        started = case.items[case.started : case.started + count]
        case.started += len(started)
        return started

    def after(self, item: WorkItem, finished: FinishedRun, execution: Execution) -> list[WorkItem]:
        """The runs to start once ``finished`` (of ``item``) is in ``execution``."""
        case = self.cases[item.case_id]
        if case.stopped:
            return []
        runs = execution.finished.get(item.case_id, [])
        if finished.inference.error or finished.infrastructure_failure:
            if _not_evidence(finished) and case.requeued < REQUEUES_PER_CASE:
                case.requeued += 1
                runs.remove(finished)
                self._more(1)
                return [item]
            case.stopped = True
            return []
        evidence = self.evidence_of(item, sorted(runs, key=lambda run: run.run))
        if evidence is None:
            more = self._start(case, len(case.items))
        elif evidence.decision is not None:
            more = self._start(case, 1 if self._compares_on(case, item, runs) else 0)
        else:
            in_flight = case.started - evidence.runs
            more = self._start(case, next_wave(evidence, in_flight=in_flight, free_slots=self.parallelism))
        self._more(len(more))
        return more

    def _compares_on(self, case: _Case, item: WorkItem, runs: list[FinishedRun]) -> bool:
        """Whether a decided case runs once more for its comparison with the base: none of its runs is in flight
        and the comparison is still open."""
        idle = case.started == len(runs)
        return idle and self.unsettled is not None and self.unsettled(item, sorted(runs, key=lambda run: run.run))

    def started_items(self) -> list[WorkItem]:
        """The runs started so far, in plan order: those a run that ends now leaves unfinished are among them."""
        return [item for case in self.cases.values() for item in case.items[: case.started]]

    def _more(self, count: int) -> None:
        if count and self.on_more is not None:
            self.on_more(count)

    async def run(
        self,
        items: list[WorkItem],
        *,
        one: Callable[[WorkItem], Awaitable[FinishedRun]],
        execution: Execution,
    ) -> None:
        """Runs the waves with ``one`` (which adds each finished run to ``execution``); cancelling this stops the
        runs under way."""
        pending: dict[asyncio.Future[FinishedRun], WorkItem] = {}

        def start(wave: list[WorkItem]) -> None:
            for planned in wave:
                pending[asyncio.ensure_future(one(planned))] = planned

        start(self.first(items))
        try:
            while pending:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                # the runs that finished together, by case and run number (a set's order varies from run to run)
                for task in sorted(done, key=lambda finished: (pending[finished].case_id, pending[finished].run)):
                    planned = pending.pop(task)
                    start(self.after(planned, task.result(), execution))
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)


def _not_evidence(finished: FinishedRun) -> bool:
    """A transient error that outlived its retries, or an outage of a service around the agent (a judge): the
    run says nothing of the agent. A timeout does (a hanging agent fails), so it stays."""
    error = finished.inference.error is not None and finished.inference.retryable and not finished.inference.timed_out
    return error or (finished.inference.error is None and finished.infrastructure_failure is not None)

"""``run``'s part of ``--sequential``: the schedule of each case's waves, its evidence read by the verdict from the
case's record after each finished run, and the cases base-branch history marks flaky (a larger first wave); on a
re-run of the job, the evidence of the earlier attempt continued (``compare/earlier_attempt.py``): its proven cases
spend no runs, the others run on under the run numbers after theirs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from adk_eval_gate import verdict
from adk_eval_gate.aggregate.records import run_outcome
from adk_eval_gate.aggregate.run_info import run_info, with_digests
from adk_eval_gate.aggregate.run_results import case_record
from adk_eval_gate.compare import earlier_attempt
from adk_eval_gate.compare.earlier_attempt import Continuation, FindEarlierAttempt, NoEarlierAttempt
from adk_eval_gate.compare.history import known_flaky, metric_series
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem, case_id, select_cases, selection_digest
from adk_eval_gate.inputs.prepare import Prepared
from adk_eval_gate.model.results import CaseStatus, MetricStatus, ResultsDocument, Totals
from adk_eval_gate.runners.capture import expected_turns
from adk_eval_gate.runners.execute import FinishedRun
from adk_eval_gate.runners.sequential_schedule import SequentialSchedule, Unsettled
from adk_eval_gate.selection.found_baseline import Baseline, NoBaseline
from adk_eval_gate.selection.only_affected import Affected
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.words import plural
from adk_eval_gate.verdict import CaseEvidence, RunOutcome, consume


def with_suite_size(settings: Settings, planned: list[PlannedFile]) -> Settings:
    """The settings with the suite's case count (every shard's), which ``--undecided neutral`` splits the error of
    a proven failure across; unchanged without ``--sequential``."""
    if not settings.sequential:
        return settings
    count = sum(len(select_cases(file)) for file in planned)
    return settings.model_copy(update={"sequential_cases": max(count, 1)})


def schedule(
    settings: Settings,
    *,
    items: list[WorkItem],
    found: Baseline | NoBaseline | None = None,
    console: Console | None = None,
    continuation: Continuation | None = None,
) -> SequentialSchedule | None:
    """The waves of ``--sequential``, when it is given (``found``: the baseline, whose history plans them;
    ``continuation``: the evidence of the earlier attempt the continued cases start from)."""
    run = verdict.Policy.of(settings).sequential
    if run is None:
        return None
    if settings.confirm_failures and console is not None:
        console.warning(
            f"{settings.option_name('confirm_failures')} is not applied with {settings.option_name('sequential')}: "
            "each case runs until its verdict is proven or can no longer change, which confirms a failure"
        )

    opened: dict[str, CaseEvidence | None] = {}

    def evidence(item: WorkItem, finished: list[FinishedRun]) -> CaseEvidence | None:
        """The case's evidence after its runs, read as its record reads them (``run_outcome``, the metrics'
        scores), without making the record after every run."""
        if item.case_id not in opened and continuation and item.case_id in continuation.cases:
            opened[item.case_id] = continuation.cases[item.case_id].evidence
        if item.case_id not in opened:
            case = case_record(settings, item.file, item.case, item.case_index, [])
            ranges = {c.name: c.spec.value_range for c in item.file.config.metrics if c.spec.value_range is not None}
            opened[item.case_id] = verdict.evidence_of(case, pass_rule=settings.pass_rule, run=run, ranges=ranges)
        start = opened[item.case_id]
        if start is None:
            return None
        outcomes = {done.run: _outcome(done) for done in finished}
        try:
            return consume(start, outcomes)
        except ValueError:  # a score outside its metric's range: no evidence from it on
            return None

    flaky: list[str] = []
    if isinstance(found, Baseline) and found.history:
        history = [(base.info, base.doc) for base in found.history]
        flaky = known_flaky(history, sorted({item.case_id for item in items}))
    return SequentialSchedule(
        evidence_of=evidence,
        parallelism=settings.parallelism,
        known_flaky=frozenset(flaky),
        unsettled=_comparison_open(settings, found, run.confidence),
    )


def base_values(found: Baseline) -> dict[str, dict[str, list[float]]]:
    """Per case and graded metric, the base's values the comparison reads: the base run's run scores, then the
    history's scores of the case (as ``compare.changes`` reads them; informational metrics are not compared)."""
    series = metric_series([(base.info, base.doc) for base in found.history])
    values: dict[str, dict[str, list[float]]] = {}
    for case in found.doc.cases:
        for metric in case.metrics:
            if metric.kind == "informational" or metric.status == MetricStatus.INFORMATIONAL:
                continue
            scores = [score for score in metric.run_scores if score is not None]
            values.setdefault(case.id, {})[metric.name] = [*scores, *series.get((case.id, metric.name), [])]
    return values


def _comparison_open(settings: Settings, found: Baseline | NoBaseline | None, confidence: float) -> Unsettled | None:
    """With ``--fail-on-regression`` and a baseline: whether a case's comparison with the base is still open after
    its finished runs (a case the base does not have has nothing to settle)."""
    if not settings.fail_on_regression or not isinstance(found, Baseline):
        return None
    base = base_values(found)

    def unsettled(item: WorkItem, finished: list[FinishedRun]) -> bool:
        if item.case_id not in base:
            return False
        head: dict[str, list[float]] = {}
        for done in finished:
            for name, score in _outcome(done).scores.items():
                head.setdefault(name, []).append(score)
        return not verdict.base_settled(
            head, base[item.case_id], confidence=confidence, tolerance=settings.regression_tolerance
        )

    return unsettled


def _outcome(finished: FinishedRun) -> RunOutcome:
    scores = {s.configured.name: s.outcome.score for s in finished.scored if s.outcome.score is not None}
    return RunOutcome(passed=run_outcome(finished) == CaseStatus.PASSED, scores=scores)


def continued(
    settings: Settings, console: Console, *, find: FindEarlierAttempt, prepared: Prepared, affected: Affected
) -> tuple[Continuation | None, list[WorkItem]]:
    """The earlier attempt's evidence a re-run continues for the cases this run plans, said in one line (None: none,
    or it cannot be continued), and the runs to plan with it."""
    found = continuation(settings, console, find_earlier=find, prepared=prepared)
    if found is None:
        return None, affected.items
    planned = {item.case_id for item in affected.items}  # not another shard's cases, nor those carried from the base
    found = dataclasses.replace(found, cases={key: case for key, case in found.cases.items() if key in planned})
    settled = sum(1 for case in found.cases.values() if case.evidence.decision is not None)
    console.line(
        f"attempt {settings.github.attempt} continues the sequential evidence of attempt {found.attempt}: "
        f"{plural(len(found.cases), 'case')} ({settled} proven there spend no runs), run numbers after theirs"
    )
    return found, continued_items(affected.items, found)


def continuation(
    settings: Settings, console: Console, *, find_earlier: FindEarlierAttempt, prepared: Prepared
) -> Continuation | None:
    """The earlier attempt's evidence this re-run continues; None (said why in one line, when this is a re-run)
    when there is none or it cannot be continued."""
    earlier = find_earlier()
    attempt = settings.github.attempt
    if isinstance(earlier, NoEarlierAttempt) or attempt is None:
        if isinstance(earlier, NoEarlierAttempt) and earlier.note:
            console.line(earlier.note)
        return None
    head = ResultsDocument(
        status="error",
        totals=Totals(),
        cases=[],
        files=with_digests(prepared.files, prepared.planned),
        run=run_info(
            settings,
            started_at=None,
            selection=selection_digest(prepared.planned, num_runs=settings.num_runs),
            planned=prepared.planned,
        ),
    )
    expected = {
        case_id(planned.loaded.display, case.eval_id): expected_turns(case)
        for planned in prepared.planned
        for case in planned.loaded.eval_set.eval_cases
    }
    refused = earlier_attempt.refusal(earlier, head=head, attempt=attempt, expected=expected)
    if refused is not None:
        console.warning(
            f"attempt {attempt}: every case starts afresh: the earlier attempt's evidence is not continued: {refused}"
        )
        return None
    cases = earlier_attempt.continued_cases(earlier)
    return Continuation(attempt=earlier.run.run_attempt or attempt - 1, cases=cases)


def continued_items(items: list[WorkItem], found: Continuation | None) -> list[WorkItem]:
    """The runs to plan: none for a case the earlier attempt proved, the run numbers of the others after its."""
    if found is None:
        return items
    planned = []
    for item in items:
        continued = found.cases.get(item.case_id)
        if continued is None:
            planned.append(item)
        elif continued.evidence.decision is None:
            planned.append(dataclasses.replace(item, run=item.run + continued.evidence.runs))
    return planned


def continued_document(
    build: Callable[[], ResultsDocument], found: Continuation | None
) -> Callable[[], ResultsDocument]:
    """The run's document builder, with the continued cases' earlier runs put before theirs here."""
    if found is None:
        return build
    return lambda: earlier_attempt.continued_document(build(), found)

"""Small builders of results.json documents for the renderer and compare tests (statuses follow aggregate's rules)."""

from __future__ import annotations

import statistics
from typing import Any

from adk_eval_gate import verdict
from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.model.results import (
    BaselineInfo,
    CaseResult,
    CaseStatus,
    Confirmation,
    FileResult,
    InvocationRecord,
    JudgeStats,
    MetricKind,
    MetricResult,
    MetricStatus,
    ResultsDocument,
    RunInfo,
    RunMetric,
    RunRecord,
    Totals,
)
from adk_eval_gate.verdict import ScoreRule

RUN_URL = "https://github.com/octo/repo/actions/runs/4242"
FILE = "agents/weather/weather.evalset.json"


def metric(
    name: str,
    scores: list[float | None] | float | None,
    *,
    threshold: float | None = 0.8,
    kind: MetricKind = "deterministic",
    reason: str | None = None,
) -> MetricResult:
    run_scores = scores if isinstance(scores, list) else [scores]
    present = [s for s in run_scores if s is not None]
    mean = statistics.fmean(present) if present else None
    if kind == "informational":
        status: MetricStatus = "informational"
    elif mean is None or len(present) < len(run_scores):
        status = "not_evaluated"
    else:
        status = "passed" if threshold is not None and mean >= threshold else "failed"
    return MetricResult(
        name=name,
        kind=kind,
        score=mean,
        threshold=None if kind == "informational" else threshold,
        status=status,
        run_scores=run_scores,
        passed_runs=sum(1 for s in present if threshold is not None and s >= threshold),
        stdev=statistics.stdev(present) if len(present) > 1 else None,
        reason=reason if status == "not_evaluated" else None,
    )


def invocation(
    user: str, *, expected: str, actual: str, expected_calls: list[dict[str, Any]], actual_calls: list[dict[str, Any]]
) -> InvocationRecord:
    def side(answer: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "user_content": {"role": "user", "parts": [{"text": user}]},
            "final_response": {"role": "model", "parts": [{"text": answer}]},
            "intermediate_data": {"tool_uses": calls},
        }

    return InvocationRecord(user=user, expected=side(expected, expected_calls), actual=side(actual, actual_calls))


def _run_metric(m: MetricResult, number: int) -> RunMetric:
    score = m.run_scores[number - 1] if number - 1 < len(m.run_scores) else None
    if m.status == "informational":
        status = m.status
    elif score is None:
        status = MetricStatus.NOT_EVALUATED
    else:
        status = MetricStatus.PASSED if m.threshold is not None and score >= m.threshold else MetricStatus.FAILED
    return RunMetric(name=m.name, score=score, status=status)


def _run(
    number: int, metrics: list[MetricResult], *, status: CaseStatus, error: str | None, turns: list[InvocationRecord]
) -> RunRecord:
    """One run: its metrics' statuses from its own scores, its status from them (the case's when it errored)."""
    run_metrics = [_run_metric(m, number) for m in metrics]
    statuses = {m.status for m in run_metrics}
    if error:
        run_status: CaseStatus = "error"
    elif "failed" in statuses:
        run_status = "failed"
    elif "not_evaluated" in statuses:
        run_status = "not_evaluated"
    else:
        run_status = status if not run_metrics else "passed"
    return RunRecord(run=number, status=run_status, error=error, invocations=turns, metrics=run_metrics)


def case(
    eval_id: str,
    metrics: list[MetricResult],
    *,
    file: str = FILE,
    line: int | None = 5,
    error: str | None = None,
    turns: list[InvocationRecord] | None = None,
    confirmation: Confirmation | None = None,
) -> CaseResult:
    """A case decided by the verdict's rules; with ``confirmation``, its last ``extra_runs`` runs are its re-runs."""
    runs_count = max([len(m.run_scores) for m in metrics] or [1])
    if error:
        status: CaseStatus = "error"
    else:
        statuses = {m.status for m in metrics}
        status = "failed" if "failed" in statuses else "not_evaluated" if "not_evaluated" in statuses else "passed"
    turns = turns or [
        invocation(
            f"What is the weather in {eval_id}?",
            expected=f"It is sunny in {eval_id}.",
            actual=f"It is sunny in {eval_id}." if status == "passed" else "I do not know.",
            expected_calls=[{"name": "get_weather", "args": {"city": eval_id}}],
            actual_calls=[{"name": "get_weather", "args": {"city": eval_id}}] if status == "passed" else [],
        )
    ]
    runs = [_run(number, metrics, status=status, error=error, turns=turns) for number in range(1, runs_count + 1)]
    first_runs = runs_count - (confirmation.extra_runs if confirmation else 0)
    runs = [run.model_copy(update={"confirmation": run.run > first_runs}) for run in runs]
    built = CaseResult(
        id=f"{file}::{eval_id}",
        file=file,
        eval_set_id="weather",
        eval_id=eval_id,
        line=line,
        status=status,
        error=error,
        metrics=metrics,
        runs=runs,
        confirmation=confirmation,
    )
    return verdict.decide_case(built, pass_rule="mean")


def document(
    cases: list[CaseResult],
    *,
    files: list[FileResult] | None = None,
    num_runs: int = 1,
    run_url: str | None = RUN_URL,
    judge: JudgeStats | None = None,
    allow_not_evaluated: bool = False,
) -> ResultsDocument:
    paths = sorted({c.file for c in cases})
    files = files if files is not None else [FileResult(path=p, cases=sum(c.file == p for c in cases)) for p in paths]
    built = ResultsDocument(
        status="error",
        totals=Totals(),
        cases=cases,
        files=files,
        metrics=verdict.metric_summaries(cases),
        judge=judge,
        run=RunInfo(
            tool_version="0.1.0",
            runner="adk",
            num_runs=num_runs,
            run_url=run_url,
            repository="octo/repo",
            sha="c0ffee" * 6 + "c0ff",
            allow_not_evaluated=allow_not_evaluated,
        ),
    )
    return verdict.decide(built, None, verdict.Policy(allow_not_evaluated=allow_not_evaluated))


def baseline_info() -> BaselineInfo:
    return BaselineInfo(
        source="artifact",
        description="main (run 41)",
        run_id=41,
        run_url="https://github.com/octo/repo/actions/runs/41",
        sha="ba5e" + "1" * 36,
        ref="main",
    )


def priced_document(*, calls: list[int], runs: int, jitter: float = 0.01) -> ResultsDocument:
    """A suite with real usage: case ``i`` makes ``calls[i]`` gemini-2.5-flash calls per turn (1,000 prompt and 50
    output tokens each), over ``runs`` runs, built through the same aggregation as a run."""
    from google.genai import types

    from adk_eval_gate.aggregate.pricing import Prices
    from adk_eval_gate.metrics.metric import MetricOutcome
    from adk_eval_gate.metrics.registry import BUILT_IN, ConfiguredMetric
    from adk_eval_gate.metrics.score import ScoredMetric
    from adk_eval_gate.model.eval_config import BaseCriterion
    from adk_eval_gate.model.evalset import EvalCase, Invocation, InvocationEvent, InvocationEvents
    from adk_eval_gate.runners.runner import Inference

    configured = ConfiguredMetric(spec=BUILT_IN["response_match_score"], criterion=BaseCriterion(threshold=0.5))
    usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=1000, candidates_token_count=50)
    user = types.Content(role="user", parts=[types.Part(text="weather?")])
    cases = []
    for index, count in enumerate(calls):
        finished = []
        for number in range(1, runs + 1):
            events = [InvocationEvent(author="agent", model_version="gemini-2.5-flash", usage_metadata=usage)] * count
            turn = Invocation(
                user_content=user,
                intermediate_data=InvocationEvents(invocation_events=events),
                duration=0.4 * count + jitter * ((number + index) % 3),
            )
            outcome = MetricOutcome(1.0)
            finished.append(
                aggregate.FinishedRun(number, Inference(invocations=[turn]), [ScoredMetric(configured, outcome)])
            )
        cases.append(
            aggregate.case_result(
                place=aggregate.CasePlace(
                    "agents/weather/weather.evalset.json", "weather", index=index, line=5 + index
                ),
                case=EvalCase(eval_id=f"city_{index}", conversation=[Invocation(user_content=user)]),
                metrics=[configured],
                finished=finished,
                rules=aggregate.CaseRules(prices=Prices.shipped()),
            )
        )
    files = [FileResult(path="agents/weather/weather.evalset.json", cases=len(cases))]
    info = RunInfo(tool_version="0.1.0", runner="adk", num_runs=runs, run_url=RUN_URL, repository="octo/repo")
    return aggregate.document(cases, files, info, prices=Prices.shipped().source())


def lower_is_better_case(eval_id: str, *runs: list[float], rule: ScoreRule = "adk_eval") -> CaseResult:
    """A case whose runs scored ``runs`` per turn on ``bad_turns``, a custom metric whose function passes a turn (and
    a run) at or below its threshold, 0.5; decided by the verdict with ``rule``."""
    records = []
    for number, scores in enumerate(runs, start=1):
        mean = sum(scores) / len(scores)
        metric = RunMetric(
            name="bad_turns",
            score=mean,
            status=MetricStatus.NOT_EVALUATED,
            invocation_scores=scores,
            evaluator_status=MetricStatus.PASSED if mean <= 0.5 else MetricStatus.FAILED,
            invocation_statuses=[MetricStatus.PASSED if s <= 0.5 else MetricStatus.FAILED for s in scores],
        )
        turns = [InvocationRecord(user=f"turn {turn}") for turn in range(1, len(scores) + 1)]
        records.append(RunRecord(run=number, status="passed", metrics=[metric], invocations=turns))
    case = CaseResult(
        id=f"{FILE}::{eval_id}",
        file=FILE,
        eval_set_id="weather",
        eval_id=eval_id,
        line=5,
        status="passed",
        metrics=[MetricResult(name="bad_turns", kind="custom", score=None, threshold=0.5, status="not_evaluated")],
        runs=records,
    )
    return verdict.decide_case(case, pass_rule="mean", rule=rule)

"""execute: what running the work items leaves behind, and what it costs the main process."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from google.genai import types as genai_types

from adk_eval_gate.aggregate.records import run_record
from adk_eval_gate.inputs.configs import LoadedConfig
from adk_eval_gate.inputs.load import LoadedEvalSet
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.metrics.registry import EFFICIENCY_METRICS, configured_metrics
from adk_eval_gate.model import compact
from adk_eval_gate.model.compact import AppTable
from adk_eval_gate.model.eval_config import EvalConfig
from adk_eval_gate.model.evalset import EvalCase, EvalSet, Invocation, InvocationEvent, InvocationEvents
from adk_eval_gate.runners.execute import CASE_RUN_RETRY, Execution, FinishedRun, MetricBuilder, run_one
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.runners.workers.messages import Done, encode_run, worker_message
from adk_eval_gate.runners.workers.pool import default_worker_count
from adk_eval_gate.runners.workers.worker_side import Finisher
from adk_eval_gate.support.retry import Backoff


def _invocation(text: str) -> Invocation:
    content = genai_types.Content(role="user", parts=[genai_types.Part(text=text)])
    return Invocation(user_content=content, final_response=content)


def test_the_repr_of_an_execution_stays_short_however_many_runs_finished() -> None:
    """``asyncio.run`` makes the repr of its main task's result when it restores its SIGINT handler: that was the
    repr of every finished run with its invocations (about a second per thousand runs, for nothing)."""
    runs = [FinishedRun(1, Inference(invocations=[_invocation("x" * 1000)]), []) for _ in range(100)]
    execution = Execution(finished={f"a.evalset.json::case{number}": [run] for number, run in enumerate(runs)})
    assert repr(execution) == "Execution(100 cases, 100 runs, interrupted=False)"


def test_released_runs_leave_the_execution_and_still_count_as_finished() -> None:
    item = _planned({"response_match_score": 0.5})[0]
    items = [WorkItem(item.file, item.case, 0, run) for run in (1, 2)]
    execution = Execution(finished={item.case_id: [FinishedRun(1, Inference(), [])]})
    assert execution.unfinished(items) == [item.case_id]
    execution.finished[item.case_id].append(FinishedRun(2, Inference(), []))
    released = execution.release(item.case_id)
    assert [run.run for run in released] == [1, 2] and execution.finished == {}
    assert execution.unfinished(items) == [] and execution.finished_runs() == 2
    assert execution.release(item.case_id) == [] and execution.finished_runs() == 2
    assert repr(execution) == "Execution(0 cases, 2 runs, interrupted=False)"


def _planned(criteria: dict[str, float]) -> tuple[WorkItem, EvalCase]:
    expected = Invocation(
        invocation_id="t1",
        user_content=genai_types.Content(role="user", parts=[genai_types.Part(text="weather in Paris?")]),
        final_response=genai_types.Content(role="model", parts=[genai_types.Part(text="sunny in Paris")]),
    )
    case = EvalCase(eval_id="paris", conversation=[expected])
    loaded = LoadedEvalSet(
        Path("a.evalset.json"), "a.evalset.json", EvalSet(eval_set_id="a", eval_cases=[case]), "evalset"
    )
    config = EvalConfig(criteria=criteria)  # type: ignore[arg-type]
    planned = PlannedFile(loaded, LoadedConfig(None, config, configured_metrics(config)), ())  # type: ignore[arg-type]
    return WorkItem(planned, case, 0, 1), case


def _actual(answer: str) -> Invocation:
    event = InvocationEvent(
        author="bot",
        content=genai_types.Content(role="model", parts=[genai_types.Part(text=answer)]),
        usage_metadata=genai_types.GenerateContentResponseUsageMetadata(
            prompt_token_count=10, candidates_token_count=3, total_token_count=13
        ),
        model_version="m-1",
    )
    return Invocation(
        invocation_id="e-1",
        user_content=genai_types.Content(role="user", parts=[genai_types.Part(text="weather in Paris?")]),
        final_response=genai_types.Content(role="model", parts=[genai_types.Part(text=answer)]),
        intermediate_data=InvocationEvents(invocation_events=[event]),
        duration=0.5,
    )


def test_a_worker_sends_compact_turns_and_no_scores_never_the_invocation_objects() -> None:
    item, _ = _planned({"response_match_score": 0.5, "final_response_match_v2": 0.5})
    inference = asyncio.run(Finisher().finish(item, Inference(invocations=[_actual("sunny in Paris")])))
    payload = encode_run(1, inference)
    assert b"google.genai" not in payload and b"adk_eval_gate.model.evalset" not in payload  # plain data
    message = worker_message(payload)
    assert isinstance(message, Done)
    received = message.run.inference()
    assert received.invocations == [] and received.turns is not None
    assert compact.answer_text(received.turns[0]) == "sunny in Paris"
    assert b"score" not in payload  # the gate scores every metric itself
    facts = received.facts or []
    assert [call.input_tokens for call in facts[0].calls or []] == [10] and facts[0].timing.total_seconds == 0.5


def test_the_main_process_scores_every_metric_from_the_sent_turns_and_keeps_no_objects() -> None:
    item, case = _planned({"response_match_score": 0.5, "exact_match": 0.5})

    class Sent:
        name = "worker"

        async def infer(self, work: WorkItem) -> Inference:
            finished = await Finisher().finish(work, Inference(invocations=[_actual("sunny in Paris")]))
            message = worker_message(encode_run(1, finished))
            assert isinstance(message, Done)
            return message.run.inference()

    apps = AppTable()
    finished = asyncio.run(
        run_one(
            item, runner=Sent(), metrics=MetricBuilder(MetricServices()), timeout=10, retry=CASE_RUN_RETRY, apps=apps
        )  # type: ignore[arg-type]
    )
    scores = {scored.configured.name: scored.outcome.score for scored in finished.scored}
    assert scores["response_match_score"] == 1.0 and scores["exact_match"] == 1.0
    assert {name for name in EFFICIENCY_METRICS} <= set(scores)
    assert [scored.configured.name for scored in finished.scored][:2] == ["response_match_score", "exact_match"]
    assert finished.inference.invocations == []  # what is kept is compact
    record = run_record(case, finished)
    assert record.invocations[0].actual_invocation() == _actual("sunny in Paris")


class _Scripted:
    """A runner (our own seam) that answers the given inferences in turn, then hangs."""

    name = "scripted"

    def __init__(self, *answers: Inference) -> None:
        self.answers = list(answers)
        self.calls = 0

    async def infer(self, work: WorkItem) -> Inference:
        self.calls += 1
        if not self.answers:
            await asyncio.Event().wait()
        return self.answers.pop(0)


def _run_with(runner: _Scripted, *, timeout: float = 10) -> FinishedRun:
    item, _ = _planned({"response_match_score": 0.5})
    no_wait = Backoff(attempts=3, initial=0.0, maximum=0.0)
    return asyncio.run(
        run_one(item, runner=runner, metrics=MetricBuilder(MetricServices()), timeout=timeout, retry=no_wait)  # type: ignore[arg-type]
    )


def test_each_retry_is_kept_with_its_reason_and_an_error_of_the_agent_is_not_retried() -> None:
    busy = Inference(error="ClientError: 429 quota", retryable=True, retry_after=0.0)
    moved = Inference(invocations=[_actual("sunny in Paris")], retries=["the agent worker process 1 was stopped"])
    finished = _run_with(_Scripted(busy, moved))
    assert finished.inference.error is None
    assert finished.inference.retries == ["ClientError: 429 quota", "the agent worker process 1 was stopped"]
    raised = _Scripted(Inference(error="the agent bot raised ConnectionError: reset"), moved)
    finished = _run_with(raised)
    assert (finished.inference.error, finished.inference.retries, raised.calls) == (
        "the agent bot raised ConnectionError: reset",
        [],
        1,
    )


def test_the_retries_before_a_last_failure_or_a_timeout_are_kept() -> None:
    busy = [Inference(error=f"ServerError: 503 busy ({n})", retryable=True) for n in (1, 2, 3)]
    finished = _run_with(_Scripted(*busy))
    assert finished.inference.retries == ["ServerError: 503 busy (1)", "ServerError: 503 busy (2)"]
    assert finished.inference.error == "ServerError: 503 busy (3) (failed 3 times; transient errors are retried)"
    finished = _run_with(_Scripted(busy[0]), timeout=0.2)  # the second attempt never answers
    assert finished.inference.timed_out and finished.inference.retries == ["ServerError: 503 busy (1)"]


def test_one_worker_per_core_at_most_one_per_case_run_at_once() -> None:
    cores = len(os.sched_getaffinity(0))
    assert default_worker_count(1) == 1
    assert default_worker_count(8) == min(cores, 8)
    assert default_worker_count(1000) == cores

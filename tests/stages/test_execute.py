"""execute: what running the work items leaves behind, and what it costs the main process."""

from __future__ import annotations

from google.genai import types as genai_types

from adk_eval_gate.model.evalset import Invocation
from adk_eval_gate.runners.base import Inference
from adk_eval_gate.runners.execute import Execution, FinishedRun


def _invocation(text: str) -> Invocation:
    content = genai_types.Content(role="user", parts=[genai_types.Part(text=text)])
    return Invocation(user_content=content, final_response=content)


def test_the_repr_of_an_execution_stays_short_however_many_runs_finished() -> None:
    """``asyncio.run`` makes the repr of its main task's result when it restores its SIGINT handler: that was the
    repr of every finished run with its invocations (about a second per thousand runs, for nothing)."""
    runs = [FinishedRun(1, Inference(invocations=[_invocation("x" * 1000)]), []) for _ in range(100)]
    execution = Execution(finished={f"a.evalset.json::case{number}": [run] for number, run in enumerate(runs)})
    assert repr(execution) == "Execution(100 cases, 100 runs, interrupted=False)"

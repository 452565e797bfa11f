"""Where agents-cli's metric code runs: each call of ``evaluate(instance)`` in a forked process of its own
(``forked_call.call_in_worker``), as agents run in worker processes. An exit (``sys.exit``, ``os._exit``), a crash
or a hang ends that process only, within ``--timeout``; what the code prints reaches the console line by line
(masked, workflow commands defused); it runs without the GitHub token, with the project's ``.env`` loaded as
agents-cli loads it for its metrics (its secrets masked too).

In the process, the code is compiled and run as agents-cli's ``_compile_custom_function`` runs it, ``evaluate`` is
called and tried again on transient failures as ``with_transient_retry`` does (five tries, two minutes, waits up to
8 s with full jitter), and its answer read as the SDK's ``CustomMetricHandler`` reads it. What the code read in
the repository is recorded (``runners/workers/observe.py``) and sent back with the answer, for ``--only-affected``.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic

from adk_eval_gate.metrics.agents_cli_functions import FunctionAnswer, FunctionCall
from adk_eval_gate.runners.workers import observe
from adk_eval_gate.runners.workers.forked_call import WorkerLost, call_in_worker
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.masking import secrets_in_env

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})  # agents-cli's _RETRYABLE_STATUS_CODES
MAX_TRIES = 5
MAX_SECONDS = 120.0
MAX_WAIT = 8.0
MAX_EXPLANATION = 10_000
_ANSWER = pydantic.TypeAdapter(FunctionAnswer)  # what the call's process sends back is read as this, never unpickled


def _transient(error: BaseException | None) -> bool:
    """agents-cli's ``_is_transient``: a connection error or timeout, or an HTTP status worth trying again, on the
    error or anything it was raised from."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ConnectionError | TimeoutError):
            return True
        code = (
            getattr(error, "code", None)
            or getattr(error, "status_code", None)
            or getattr(getattr(error, "response", None), "status_code", None)
        )
        if isinstance(code, int) and code in RETRYABLE_STATUS:
            return True
        error = error.__cause__ or error.__context__
    return False


def _called(evaluate: Callable[[Any], Any], instance: dict[str, Any]) -> Any:
    started, tries = time.monotonic(), 0
    while True:
        tries += 1
        try:
            return evaluate(instance)
        except Exception as error:
            if not _transient(error) or tries >= MAX_TRIES or time.monotonic() - started >= MAX_SECONDS:
                raise
            time.sleep(random.uniform(0, min(MAX_WAIT, 2.0 ** (tries - 1))))


def _answer(result: Any, name: str) -> FunctionAnswer:
    """The SDK's reading of a custom function's result, then its aggregation's: the score must be a number."""
    explanation: Any = None
    score: Any
    if type(result).__name__ == "EvalCaseMetricResult":
        score, explanation = getattr(result, "score", None), getattr(result, "explanation", None)
        error = getattr(result, "error_message", None)
        if error:
            return FunctionAnswer(error=str(error)[:MAX_EXPLANATION])
    elif isinstance(result, dict) and "score" in result:
        score, explanation = result["score"], result.get("explanation")
    elif isinstance(result, int | float):
        score = result
    else:
        return FunctionAnswer(error=f"CustomFunctionError({name}): Returned unexpected type {type(result)}")
    try:
        number = float(score)
    except (TypeError, ValueError, OverflowError):
        shown = repr(score) if not isinstance(score, int) else sanitize.shown_number(score)
        return FunctionAnswer(error=f"{name} returned the score {shown[:80]}, which is not a number")
    if not sanitize.is_finite_number(number):
        return FunctionAnswer(error=f"{name} returned the score {sanitize.shown_number(number)}, which is not finite")
    text = None if explanation is None else sanitize.clean_text(str(explanation))[:MAX_EXPLANATION]
    return FunctionAnswer(score=number, explanation=text)


def run_here(call: FunctionCall) -> FunctionAnswer:
    """In the call's own process: the code compiled and run, ``evaluate`` called, its answer read."""
    if call.definition.env_file:
        _load_env(call.definition.env_file)
    with observe.recording() as used:
        answer = _run(call)
    answer.read = sorted(used)
    return answer


def _run(call: FunctionCall) -> FunctionAnswer:
    namespace: dict[str, Any] = {}
    try:
        exec(compile(call.definition.source, call.definition.filename, "exec"), namespace)
    except (SystemExit, KeyboardInterrupt) as ended:
        return FunctionAnswer(error=f"the code of {call.metric} {_escape(ended)} when it was loaded")
    except Exception as error:
        return FunctionAnswer(error=f"Failed to load custom_function for metric '{call.metric}': {error}")
    evaluate = namespace.get("evaluate")
    if not callable(evaluate):
        return FunctionAnswer(error=f"custom metric {call.metric} must define a callable named 'evaluate(instance)'")
    name = getattr(evaluate, "__name__", "unknown_custom_function")
    try:
        result = _called(evaluate, call.instance)
    except (SystemExit, KeyboardInterrupt) as ended:
        return FunctionAnswer(error=f"{call.metric}'s {name}() {_escape(ended)}; a metric function returns a score")
    except Exception as error:
        return FunctionAnswer(error=f"CustomFunctionError({name}): {type(error).__name__}: {error}"[:2000])
    return _answer(result, name)


def _escape(ended: BaseException) -> str:
    if isinstance(ended, SystemExit):
        return f"called sys.exit({ended.code!r})"
    return "raised KeyboardInterrupt"


def _load_env(path: str) -> None:
    try:
        from dotenv import load_dotenv
    except ImportError:  # python-dotenv comes with google-adk; without it there is nothing to load
        return
    load_dotenv(path, override=False)


def env_secrets(path: str | None) -> list[str]:
    """The secrets of a ``.env`` file (what ``masking`` calls secrets), for the console to mask."""
    if path is None:
        return []
    try:
        from dotenv import dotenv_values
    except ImportError:
        return []
    values = {key: value for key, value in dotenv_values(Path(path)).items() if value is not None}
    return secrets_in_env(values)


class FunctionProcesses:
    """``services.functions``: at most ``parallelism`` calls at once, each in its own process, for ``timeout``
    seconds; ``on_output`` gets each line the code printed."""

    def __init__(self, *, timeout: float, parallelism: int, on_output: Callable[[str], None]) -> None:
        self.timeout = timeout
        self.on_output = on_output
        self._limit: asyncio.Semaphore | None = None
        self._parallelism = parallelism

    async def __call__(self, call: FunctionCall) -> FunctionAnswer:
        if self._limit is None:
            self._limit = asyncio.Semaphore(self._parallelism)
        async with self._limit:
            answer = await asyncio.to_thread(self._call, call)
        observe.note(answer.read)
        return answer

    def _call(self, call: FunctionCall) -> FunctionAnswer:
        def relay(line: str) -> None:
            self.on_output(f"{call.metric}: {line}")

        try:
            return call_in_worker(
                functools.partial(run_here, call), answer=_ANSWER, on_output=relay, timeout=self.timeout
            )
        except WorkerLost as lost:
            return FunctionAnswer(error=f"{call.metric}'s code: {lost}")

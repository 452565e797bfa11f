"""Which failures of a case run are run again: only those of the model provider's transport, raised inside the
agent's model call, as the provider's SDK marks them; whatever the agent's own code raises is the run's failure.

Where an error came from is read from the frames it passed through: code compiled under a file name inside ADK's
model classes, an installed library or an agent folder stands for each.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.genai import errors

from adk_eval_gate.runners.run_failures import transient_failure

SITE = Path("/venv/lib/python3.11/site-packages")
MODEL_CLASS = SITE / "google" / "adk" / "models" / "google_llm.py"
ADK_FLOW = SITE / "google" / "adk" / "flows" / "llm_flows" / "functions.py"
SDK = SITE / "google" / "genai" / "_api_client.py"
AGENT_TOOL = Path("/repo/bot/tools.py")


def _raising_through(error: BaseException, *files: Path) -> BaseException:
    """``error`` as raised at the end of a chain of calls, one function per file, the first file outermost."""
    namespace: dict[str, Any] = {"error": error}
    callee = None
    for depth, file in reversed(list(enumerate(files))):
        body = f"    return {callee}()\n" if callee else "    raise error\n"
        exec(compile(f"def call_{depth}():\n{body}", str(file), "exec"), namespace)
        callee = f"call_{depth}"
    try:
        namespace["call_0"]()
    except BaseException as raised:
        return raised
    raise AssertionError("nothing was raised")


def _quota() -> errors.ClientError:
    return errors.ClientError(429, {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})


def _busy() -> errors.ServerError:
    return errors.ServerError(503, {"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}})


@pytest.mark.parametrize(
    "error",
    [ConnectionError("reset"), TimeoutError("slow"), OSError("disk"), _quota(), _busy(), httpx.ConnectError("x")],
    ids=["ConnectionError", "TimeoutError", "OSError", "429", "503", "httpx"],
)
def test_whatever_a_tool_raises_is_the_runs_failure_and_never_run_again(error: BaseException) -> None:
    assert transient_failure(_raising_through(error, ADK_FLOW, AGENT_TOOL)) == (False, None)


def test_a_tool_that_calls_the_provider_sdk_itself_fails_the_run_on_its_429() -> None:
    assert transient_failure(_raising_through(_quota(), ADK_FLOW, AGENT_TOOL, SDK)) == (False, None)


@pytest.mark.parametrize(
    "error",
    [_quota(), _busy(), httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), ConnectionError("reset")],
    ids=["429", "503", "httpx-connect", "httpx-timeout", "ConnectionError"],
)
def test_the_providers_transient_errors_inside_the_model_call_are_run_again(error: BaseException) -> None:
    assert transient_failure(_raising_through(error, ADK_FLOW, MODEL_CLASS, SDK))[0] is True


def test_an_error_the_model_class_wraps_is_read_through_its_cause() -> None:
    """ADK's ``Gemini`` raises its own ``_ResourceExhaustedError`` from google-genai's 429."""

    class Wrapped(errors.ClientError):
        pass

    try:
        raise _raising_through(_quota(), MODEL_CLASS, SDK)
    except errors.ClientError as quota:
        wrapped = _raising_through(Wrapped(429, {"error": {"code": 429}}), ADK_FLOW, MODEL_CLASS)
        wrapped.__cause__ = quota
    assert transient_failure(wrapped)[0] is True


def test_a_status_the_sdk_does_not_retry_is_not_run_again() -> None:
    refused = errors.ClientError(400, {"error": {"code": 400, "message": "bad", "status": "INVALID_ARGUMENT"}})
    assert transient_failure(_raising_through(refused, ADK_FLOW, MODEL_CLASS, SDK)) == (False, None)


def test_a_model_class_of_the_agents_own_is_the_agents_code() -> None:
    own_model = Path("/repo/bot/agent.py")
    assert transient_failure(_raising_through(_quota(), ADK_FLOW, own_model)) == (False, None)


def test_the_wait_the_provider_asked_for_is_kept() -> None:
    response = httpx.Response(429, headers={"Retry-After": "7"})
    quota = errors.ClientError(429, {"error": {"code": 429, "message": "quota"}}, response)
    assert transient_failure(_raising_through(quota, MODEL_CLASS, SDK)) == (True, 7.0)


def test_an_error_of_adks_own_code_with_no_model_call_is_the_runs_failure() -> None:
    lost = asyncio.IncompleteReadError(b"", 10)
    assert transient_failure(_raising_through(lost, ADK_FLOW)) == (False, None)

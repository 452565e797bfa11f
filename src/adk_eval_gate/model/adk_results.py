"""ADK's result files (``*.evalset_result.json``): EvalSetResult / EvalCaseResult, also double-encoded.

Only what the recorded runner and the parity tests read is modelled; everything else is kept as raw JSON.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
from pydantic import Field, alias_generators

from adk_eval_gate.support import sanitize
from adk_eval_gate.support.errors import RecordedError
from adk_eval_gate.support.pydantic_errors import first_error

_CONFIG = pydantic.ConfigDict(
    defer_build=True, alias_generator=alias_generators.to_camel, populate_by_name=True, extra="ignore"
)


class PerInvocationResult(pydantic.BaseModel):
    model_config = _CONFIG

    actual_invocation: dict[str, Any]
    expected_invocation: dict[str, Any] | None = None
    eval_metric_results: list[dict[str, Any]] = Field(default_factory=list)


class EvalCaseResult(pydantic.BaseModel):
    model_config = _CONFIG

    eval_set_id: str = ""
    eval_id: str = ""
    final_eval_status: int | str | None = None
    overall_eval_metric_results: list[dict[str, Any]] = Field(default_factory=list)
    eval_metric_result_per_invocation: list[PerInvocationResult] = Field(default_factory=list)
    session_id: str | None = None
    session_details: dict[str, Any] | None = None  # ADK's Session dump: its ``state`` is the final session state
    user_id: str | None = None


class EvalSetResult(pydantic.BaseModel):
    model_config = _CONFIG

    eval_set_result_id: str
    eval_set_result_name: str | None = None
    eval_set_id: str
    eval_case_results: list[EvalCaseResult] = Field(default_factory=list)
    creation_timestamp: float = 0.0


def parse_eval_set_result(data: Any, display: str) -> EvalSetResult:
    if isinstance(data, str):  # ADK 1.x wrote the JSON document as a JSON string
        try:
            data = sanitize.loads(data)
        except json.JSONDecodeError as error:
            raise RecordedError(f"double-encoded result holds invalid JSON: {error.msg}", file=display) from None
        except sanitize.UnsafeJson as error:
            raise RecordedError(f"double-encoded result cannot be used: {error}", file=display) from None
    try:
        return EvalSetResult.model_validate(data)
    except pydantic.ValidationError as error:
        where, message = first_error(error)
        raise RecordedError(f"is not an ADK EvalSetResult: {message}", file=display, field=where or None) from None

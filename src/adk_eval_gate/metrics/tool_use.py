"""Vertex AI's computation-based tool-use metrics: ``tool_call_valid``, ``tool_name_match``,
``tool_parameter_key_match`` and ``tool_parameter_kv_match``.

Vertex scores a predicted tool call against a reference tool call on its evaluation service (which cannot be
called here). The gate scores each invocation's actual calls against its expected calls (``tool_uses``),
paired by position; a call without a partner (an extra or a missing call) scores 0, the invocation's score is
the mean over the pairs (1.0 when neither side has a call), and the case's score the mean over invocations.

* ``tool_call_valid``: per actual call, 1 when it has a name and its arguments are an object (or absent) and,
  when the run recorded the agent's tool declarations (``app_details``), the name is a declared function. An
  invocation without calls scores 1.0, or 0.0 when its expected invocation has calls. Needs no expected calls.
* ``tool_name_match``: 1 when the paired calls have the same name.
* ``tool_parameter_key_match``: the share of the parameter names of either call that both calls have.
* ``tool_parameter_kv_match``: the share of the parameter names of either call that both calls have with equal
  values. Values are equal under Python ``==`` on the decoded JSON with ``use_strict_string_match`` (ADK's rule
  for tool arguments: ``"Paris" != "paris"``, ``"2" != 2``); without it (Vertex's default) strings are compared
  with surrounding whitespace removed, inner whitespace collapsed and case folded, and a string that is a
  number equals that number.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome, require_expected
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import Invocation, tool_calls

Call = genai_types.FunctionCall
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:e[-+]?\d+)?$")


def _arguments(call: Call) -> dict[str, Any]:
    return dict(call.args or {})


def _declared_functions(invocation: Invocation) -> frozenset[str] | None:
    """The function names declared to the agents' models in this invocation; None when none were recorded."""
    if invocation.app_details is None:
        return None
    names: set[str] = set()
    for agent in invocation.app_details.agent_details.values():
        for tool in agent.tool_declarations:
            data = tool.model_dump(exclude_none=True) if isinstance(tool, pydantic.BaseModel) else tool
            if not isinstance(data, dict):
                continue
            for declaration in data.get("function_declarations") or data.get("functionDeclarations") or []:
                if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                    names.add(declaration["name"])
    return frozenset(names) or None


def _valid_call(call: Call, declared: frozenset[str] | None) -> bool:
    if not call.name or not isinstance(call.args, dict | None):
        return False
    return declared is None or call.name in declared


class ToolCallValid(Metric):
    reads_tool_calls = True

    def invocation_score(self, actual: Invocation, expected: Invocation | None) -> float:
        calls = tool_calls(actual.intermediate_data)
        if not calls:
            return 0.0 if expected is not None and tool_calls(expected.intermediate_data) else 1.0
        declared = _declared_functions(actual)
        return sum(1.0 for call in calls if _valid_call(call, declared)) / len(calls)

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        expected: list[Invocation | None] = [None] * len(run.actual)
        if run.expected is not None:
            expected = list(require_expected(run, self.name))
        return self.mean_outcome([self.invocation_score(a, e) for a, e in zip(run.actual, expected, strict=True)])


class _PairedCalls(Metric):
    """A score per pair of actual and expected calls, averaged per invocation."""

    reads_tool_calls = True

    def pair_score(self, actual: Call, expected: Call) -> float:
        raise NotImplementedError

    def invocation_score(self, actual: list[Call], expected: list[Call]) -> float:
        pairs = list(itertools.zip_longest(actual, expected))
        if not pairs:
            return 1.0
        return sum(self.pair_score(a, e) if a and e else 0.0 for a, e in pairs) / len(pairs)

    def evaluate(self, run: CaseRun) -> MetricOutcome:
        expected = require_expected(run, self.name)
        scores = [
            self.invocation_score(tool_calls(a.intermediate_data), tool_calls(e.intermediate_data))
            for a, e in zip(run.actual, expected, strict=True)
        ]
        return self.mean_outcome(scores)


class ToolNameMatch(_PairedCalls):
    def pair_score(self, actual: Call, expected: Call) -> float:
        return 1.0 if actual.name == expected.name else 0.0


def _key_share(actual: dict[str, Any], expected: dict[str, Any], *, matched: set[str]) -> float:
    keys = actual.keys() | expected.keys()
    return len(matched) / len(keys) if keys else 1.0


class ToolParameterKeyMatch(_PairedCalls):
    def pair_score(self, actual: Call, expected: Call) -> float:
        given, wanted = _arguments(actual), _arguments(expected)
        return _key_share(given, wanted, matched=set(given.keys() & wanted.keys()))


def loose(value: Any) -> Any:
    """A value as the lenient comparison sees it (strings trimmed, whitespace collapsed, case folded)."""
    if isinstance(value, str):
        text = " ".join(value.split()).casefold()
        return float(text) if _NUMBER.match(text) else text
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        return {str(key): loose(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [loose(item) for item in value]
    return value


class ToolParameterKvMatch(_PairedCalls):
    def pair_score(self, actual: Call, expected: Call) -> float:
        strict = isinstance(self.criterion, eval_config.ToolParameterKvCriterion) and (
            self.criterion.use_strict_string_match
        )
        given, wanted = _arguments(actual), _arguments(expected)
        same = {
            key
            for key in given.keys() & wanted.keys()
            if (given[key] == wanted[key] if strict else loose(given[key]) == loose(wanted[key]))
        }
        return _key_share(given, wanted, matched=same)

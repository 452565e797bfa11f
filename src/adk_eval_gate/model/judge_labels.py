"""Human labels of an LLM judge's verdicts (``*.labels.json``): what a person decided about one judged turn.

Each label is self-contained, so calibrating a judge never runs an agent: the metric, the judged invocation in
ADK's shape (``Invocation``: the user's content, the agent's final response, its tool uses), the expected
invocation where the metric reads one, the rubric's text for a rubric metric, and the person's label.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from adk_eval_gate.model.evalset import EvalModel, Invocation

LABELS_SCHEMA_VERSION: Literal[1] = 1
BinaryLabel = Literal["valid", "invalid", "yes", "no"]
EXPECTED_READERS = frozenset({"final_response_match_v2"})  # the judge metrics whose label needs the expected turn
RUBRIC_PREFIX = "rubric_based_"
_POSITIVE = frozenset({"valid", "yes"})


class JudgeLabel(EvalModel):
    """One person's label of one judged invocation for one metric."""

    metric: str = Field(min_length=1, max_length=200)
    invocation: Invocation
    expected_invocation: Invocation | None = None
    rubric: str | None = Field(default=None, min_length=1)
    label: BinaryLabel | float = Field(description="valid/invalid, a rubric's yes/no, or a score on the metric's scale")
    confirmed: bool = Field(
        default=True, description="false: the judge's suggestion, not confirmed by a person yet (never counted)"
    )
    labeller: str | None = None
    case: str | None = Field(default=None, description="the eval case the invocation came from, when known")

    @property
    def value(self) -> float:
        """The label on the judge's scale: 1 for valid and yes, 0 for invalid and no, else the score."""
        if isinstance(self.label, str):
            return 1.0 if self.label in _POSITIVE else 0.0
        return float(self.label)

    @property
    def binary(self) -> bool:
        return isinstance(self.label, str)


class JudgeLabelsFile(EvalModel):
    """A ``*.labels.json`` file."""

    schema_version: Literal[1] = LABELS_SCHEMA_VERSION
    labels: list[JudgeLabel]


def json_schema() -> dict[str, Any]:
    schema = JudgeLabelsFile.model_json_schema(by_alias=False)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://github.com/adk-eval-gate/adk-eval-gate/schema/judge-labels.schema.json"
    schema["title"] = "ADK Eval Gate human labels of LLM judges (*.labels.json, version 1)"
    return schema


def dumped(labels: JudgeLabelsFile) -> str:
    return labels.model_dump_json(indent=2, exclude_none=True, by_alias=False) + "\n"

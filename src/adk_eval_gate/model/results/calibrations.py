"""A judge metric's agreement with human labels (``adk-eval-gate calibrate``'s ``calibration.json``, and each
judge metric's record in results.json): the numbers, the disagreements, and whether the metric gated."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from adk_eval_gate.model.results.vocabulary import ResultModel

CALIBRATION_SCHEMA_VERSION: Literal[1] = 1


class Disagreement(ResultModel):
    """A label the judge answered otherwise."""

    file: str
    line: int | None = None
    case: str | None = None
    rubric: str | None = None
    user: str = Field(description="The user's text of the judged turn.")
    response: str = Field(description="The agent's final response that was judged.")
    human: float
    judge: float


class JudgeCalibration(ResultModel):
    """One judge metric on one judge model against the confirmed labels of it."""

    metric: str
    judge_model: str
    fingerprint: str = Field(description="A hash of the judge's model, prompt, sampling and the labels.")
    labels: int = Field(description="Confirmed labels the judge gave a verdict on.")
    unjudged: int = Field(default=0, description="Confirmed labels the judge gave no verdict on (not counted).")
    agreement: float = Field(description="The share of labels the judge agreed with.")
    kappa: float | None = Field(description="Cohen's kappa (weighted for ordinal scores); None: undefined.")
    kappa_interval: tuple[float, float] | None = Field(
        description="The analytic 95% interval: kappa plus or minus 1.96 asymptotic standard errors."
    )
    weighted: bool = Field(default=False, description="Linear weighted kappa over an ordinal scale.")
    categories: list[float] = Field(description="The values of the scale, in the order of the confusion matrix.")
    base_rate: list[float] = Field(description="The share of each category among the human labels.")
    judge_rate: list[float] = Field(description="The share of each category among the judge's verdicts.")
    confusion: list[list[int]] = Field(description="Rows: the human label; columns: the judge's verdict.")
    self_consistency: float | None = Field(
        default=None, description="The mean share of a label's samples that agreed with the judge's majority."
    )
    disagreements: list[Disagreement] = Field(default_factory=list)
    gates: bool = Field(default=False, description="Whether the metric's scores may fail a case.")
    reason: str = Field(default="", description="Why it gates or does not.")


class CalibrationDocument(ResultModel):
    """``calibration.json``."""

    schema_version: Literal[1] = CALIBRATION_SCHEMA_VERSION
    metrics: list[JudgeCalibration]
    notes: list[str] = Field(default_factory=list, description="Labels that were not used, and why.")


def calibration_json_schema() -> dict[str, Any]:
    """``calibration.json``'s JSON Schema (``schema/calibration.schema.json``; a test keeps the two equal)."""
    schema = CalibrationDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://github.com/adk-eval-gate/adk-eval-gate/schema/calibration.schema.json"
    schema["title"] = "ADK Eval Gate calibration.json: LLM judges against human labels (version 1)"
    return schema

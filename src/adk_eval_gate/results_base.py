"""What every part of results.json shares: the model base (unknown keys ignored, so an older version reads a newer
file) and the vocabulary of the comparison with the baseline."""

from __future__ import annotations

import enum
from typing import Literal

import pydantic

CaseStatus = Literal["passed", "failed", "error", "not_evaluated"]


class MetricStatus(str, enum.Enum):
    """A metric's status for one run, one case or the suite (the metrics produce it, results.json records it)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"
    INFORMATIONAL = "informational"

    def __str__(self) -> str:  # as its value in text, like the string it is (Python 3.10's StrEnum)
        return str(self.value)


Significance = Literal["significant", "noise", "untested"]
NoiseModel = Literal["history", "runs"]


class ResultModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

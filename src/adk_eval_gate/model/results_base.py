"""What every part of results.json shares: the model base (unknown keys ignored, so an older version reads a newer
file) and the vocabulary of the comparison with the baseline."""

from __future__ import annotations

import enum
from pathlib import PurePosixPath
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


def case_label(file: str, eval_id: str) -> str:
    """A case's name in every output (the log, the comment, JUnit, report.html): its eval id, or for a legacy query
    list, whose id is its file's path (as in ADK), the file's name without its extensions."""
    if eval_id != file:
        return eval_id
    return PurePosixPath(file).name.split(".")[0] or eval_id


class ResultModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

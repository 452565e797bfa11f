"""What every part of results.json shares: the model base (unknown keys ignored, so an older version reads a newer
file) and the vocabulary of the comparison with the baseline."""

from __future__ import annotations

import enum
from pathlib import PurePosixPath
from typing import Literal

import pydantic


class Vocabulary(str, enum.Enum):
    """A word of results.json's vocabulary: compared, printed and written as its value (Python 3.10's StrEnum)."""

    def __str__(self) -> str:
        return str(self.value)


class MetricStatus(Vocabulary):
    """A metric's status for one run, one case or the suite (the metrics produce it, results.json records it)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"
    INFORMATIONAL = "informational"


class CaseStatus(Vocabulary):
    """A run's or a case's status, as the verdict decides it."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    NOT_EVALUATED = "not_evaluated"


class RunStatus(Vocabulary):
    """The status of the whole run, as the verdict decides it."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"


class Effect(Vocabulary):
    """What a finding of the verdict does to its case or the run; NONE: it is only noted."""

    ERROR = "error"
    FAILED = "failed"
    NOT_EVALUATED = "not_evaluated"
    NONE = "none"


Significance = Literal["significant", "noise", "untested"]
ComputedBy = Literal["agent-platform", "gate-judge"]
"""Which implementation scored a metric ADK computes only through Google's evaluation service (``safety_v1``,
``response_evaluation_score``, ``multi_turn_*``): that service (Vertex AI / Agent Platform, as ADK does), or the
gate's own judge prompts. Scores of the two are never compared with each other."""
NoiseModel = Literal["history", "runs", "anytime"]


def case_label(file: str, eval_id: str) -> str:
    """A case's name in every output (the log, the comment, JUnit, report.html): its eval id, or for a legacy query
    list, whose id is its file's path (as in ADK), the file's name without its extensions."""
    if eval_id != file:
        return eval_id
    return PurePosixPath(file).name.split(".")[0] or eval_id


class ResultModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(defer_build=True, extra="ignore")

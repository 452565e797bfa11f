"""What every part of results.json shares: the model base (unknown keys ignored, so an older version reads a newer
file) and the vocabulary of the comparison with the baseline."""

from __future__ import annotations

from typing import Literal

import pydantic

Significance = Literal["significant", "noise", "untested"]
NoiseModel = Literal["history", "runs"]


class ResultModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

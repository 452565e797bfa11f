"""The comparison part of results.json: this run against the base branch's results (``compare``), with the noise
check of each change, what head and base did differently, and the base branch's history."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adk_eval_gate.model.results.usage_and_budgets import UsageComparison
from adk_eval_gate.model.results.vocabulary import CaseStatus, MetricStatus, NoiseModel, ResultModel, Significance

ChangeKind = Literal["regressed", "improved", "unchanged", "new", "removed"]


class MetricChange(ResultModel):
    """How one metric of one case moved against the baseline (unchanged ones are not stored)."""

    case_id: str
    metric: str
    kind: ChangeKind
    base: float | None = None
    head: float | None = None
    delta: float | None = Field(default=None, description="head - base")
    base_status: MetricStatus | None = None
    head_status: MetricStatus | None = None
    significance: Significance | None = Field(
        default=None,
        description="For a regression or improvement: 'significant' or 'noise', from the case's spread across the "
        "base branch's history (--history) when it has enough runs, else from a 95% Welch interval on the run scores "
        "when both sides have several runs, else 'untested'.",
    )
    noise: NoiseModel | None = Field(default=None, description="What decided the significance.")
    interval: list[float] | None = Field(default=None, description="95% interval of head - base, when tested.")
    comparable: bool = Field(
        default=True,
        description="False when head and base were scored differently (another judge, criteria or runner): not "
        "counted as a regression unless --strict-comparison.",
    )


class CaseChange(ResultModel):
    """A case that is new, was removed, or whose status changed."""

    case_id: str
    kind: Literal["new", "removed", "status"]
    base_status: CaseStatus | None = None
    head_status: CaseStatus | None = None


class MetricDelta(ResultModel):
    name: str
    threshold: float | None = None
    base_mean: float | None = None
    head_mean: float | None = None
    delta: float | None = None
    regressed: int = 0
    improved: int = 0


class BaselineInfo(ResultModel):
    source: Literal["file", "artifact"]
    description: str = Field(description="Where the baseline came from, for people.")
    run_id: int | None = None
    run_number: int | None = None
    run_url: str | None = None
    sha: str | None = None
    ref: str | None = None
    created_at: str | None = None


class Difference(ResultModel):
    """Something head and base did differently that can make their scores not like-for-like."""

    what: str = Field(description="What differs, e.g. 'judge model' or 'runner'.")
    subject: str | None = Field(default=None, description="The metric or file it concerns, if not the whole run.")
    base: str | None = None
    head: str | None = None
    incomparable: list[str] = Field(
        default_factory=list,
        description="The metrics whose scores are not comparable because of it ('*': all of them; "
        "'FILE::METRIC' for one file); empty when it is only worth knowing.",
    )
    message: str = Field(description="One line for people.")


class HistoryPoint(ResultModel):
    """One run of the base branch's history, as the trend chart shows it."""

    run_id: int | None = None
    run_number: int | None = None
    sha: str | None = None
    created_at: str | None = None
    run_url: str | None = None
    cases: int = 0
    pass_rate: float | None = Field(default=None, description="Passed cases / cases (quarantined left out).")
    metric_means: dict[str, float | None] = Field(default_factory=dict)


class History(ResultModel):
    """The base branch's recent successful runs used as the noise model (``--history``), oldest first."""

    requested: int
    runs: list[HistoryPoint] = Field(default_factory=list)
    known_flaky: list[str] = Field(
        default_factory=list, description="Ids of the cases whose status flips across the history."
    )


class JudgeChange(ResultModel):
    """A labelled judge metric on both sides: its kappa before (the baseline's) and now."""

    metric: str
    judge_model: str
    base_judge_model: str
    kappa: float | None
    kappa_interval: tuple[float, float] | None
    base_kappa: float | None
    base_kappa_interval: tuple[float, float] | None
    changed: bool = Field(description="The judge's fingerprint differs: its model, prompt, sampling or labels.")
    dropped: bool = Field(
        default=False, description="Its kappa now is under the lower bound of the baseline's interval: a regression."
    )


class Comparison(ResultModel):
    """This run against the base branch's results (``compare`` stage)."""

    baseline: BaselineInfo
    tolerance: float = 0.0
    regressions: int = Field(
        default=0, description="Regressions not explained by noise (they fail the gate with --fail-on-regression)."
    )
    noisy_regressions: int = Field(default=0, description="Drops within the run-to-run noise.")
    improvements: int = 0
    new: int = 0
    removed: int = 0
    status_flips: int = Field(default=0, description="Cases that passed in the baseline and do not pass now.")
    incomparable_regressions: int = Field(
        default=0, description="Drops of metrics that head and base scored differently (see differences)."
    )
    metrics: list[MetricDelta] = Field(default_factory=list)
    changes: list[MetricChange] = Field(default_factory=list)
    cases: list[CaseChange] = Field(default_factory=list)
    failing_before: list[str] = Field(
        default_factory=list,
        description="Ids of the cases that do not pass now and did not pass on the base branch either.",
    )
    differences: list[Difference] = Field(
        default_factory=list, description="What head and base did differently, one entry per difference."
    )
    history: History | None = Field(default=None, description="The base branch's recent runs (--history).")
    usage: UsageComparison | None = Field(default=None, description="Cost and latency against the baseline.")
    judge_changes: list[JudgeChange] = Field(
        default_factory=list, description="Each labelled judge metric calibrated on both sides (left out without)."
    )

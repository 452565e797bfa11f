"""What ``--sequential`` records: each case's decision and its evidence (``cases[].sequential``), and the run's
settings (``run.sequential``). The decision is the verdict's (``verdict.decide_case``), derived again from the
case's runs whenever results are read."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adk_eval_gate.model.results.vocabulary import ResultModel

SequentialDecision = Literal["proven-pass", "proven-fail", "curtailed", "undecided"]
UndecidedPolicy = Literal["point", "neutral", "fail"]
SequentialEffect = Literal["pass", "fail", "neutral"]


class SequentialRun(ResultModel):
    """The settings of a run with ``--sequential``: a continuation of its evidence must use the same."""

    confidence: float = Field(description="How sure a proven verdict is (--confidence).")
    margin: float = Field(description="The true shortfall below the threshold a proven pass tolerates (--margin).")
    min_runs: int = Field(description="The runs of a case's first wave (--min-runs).")
    max_runs: int = Field(description="The most runs a case gets (--num-runs).")
    undecided: UndecidedPolicy = Field(description="What a case still open after max_runs does (--undecided).")
    fail_split: int | None = Field(
        default=None,
        ge=1,
        description="Under --undecided neutral, the suite's cases, which the error of a proven failure is split "
        "across: a case runs on until its e-value reaches fail_split / (1 - confidence), and once all are decided "
        "e-BH over the cases' e_fail at 1 - confidence fails those it proves failing across the suite. None: 1 "
        "(each case at the confidence).",
    )


class SequentialCase(ResultModel):
    """A case's sequential decision and the evidence behind it."""

    decision: SequentialDecision | None = Field(
        description="proven-pass or proven-fail at the confidence; curtailed: its verdict on max_runs runs could no "
        "longer change; undecided: still open after max_runs runs; none: its runs stopped before a decision."
    )
    verdict: SequentialEffect | None = Field(
        default=None, description="What the decision does to the gate under the --undecided policy."
    )
    runs: int = Field(description="The runs the decision read, in run-number order.")
    e_pass: float = Field(description="The evidence for a pass: the smallest e-value of its metrics' PASS tests.")
    e_fail: float = Field(description="The evidence for a failure: the mean of its metrics' FAIL e-values.")
    interval: list[float] = Field(
        description="The anytime interval, at the confidence, for the mean of the metric that binds the case."
    )
    metric: str = Field(description="The metric the interval is about ('runs': the run outcomes).")
    threshold: float = Field(description="That metric's threshold (the share of runs that must pass for 'runs').")
    mean: float | None = Field(default=None, description="That metric's mean over the runs read.")
    ranges: dict[str, list[float]] = Field(
        default_factory=dict, description="The value ranges of metrics whose range is not 0 to 1."
    )
    reopened_at: list[int] = Field(
        default_factory=list,
        description="The runs read when each re-run of the job continued the case's evidence (its runs up to there "
        "came from earlier attempts): the tests' capitals go on across them, and a new window of max_runs runs "
        "starts after each. Empty: the runs are all this attempt's.",
    )

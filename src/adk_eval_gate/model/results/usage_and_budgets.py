"""The cost and latency part of results.json: tokens, model and tool calls, durations and dollars per turn, run,
case and for the suite; their comparison with the base branch; and the budgets.

Nothing is estimated: a count the agent's events did not report stays None, and a model without a price has no
cost (``unpriced`` says why), so totals only sum what was reported and say how much was not.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from adk_eval_gate.model.results.vocabulary import NoiseModel, ResultModel, Significance, Vocabulary


class ModelUsage(ResultModel):
    """One model's calls and tokens, summed over its calls (the agent's, the judge's or the user simulator's)."""

    model: str = Field(description="The model version as reported, or the judge model's name.")
    calls: int = 0
    input_tokens: int | None = Field(default=None, description="Prompt and tool-use prompt tokens, cached included.")
    cached_tokens: int | None = None
    output_tokens: int | None = Field(default=None, description="Candidate and thinking tokens.")
    reasoning_tokens: int | None = Field(default=None, description="Thinking tokens (part of the output).")
    cost_usd: float | None = None
    unpriced: str | None = Field(default=None, description="Why there is no cost, e.g. 'no price for model X'.")


class TurnUsage(ResultModel):
    """One turn of one run: the agent's tokens, calls and time."""

    tokens: int | None = Field(default=None, description="Input plus output tokens (ADK's token_usage_v1 total).")
    model_calls: int | None = Field(default=None, description="ADK's inference_call_count_v1.")
    tool_calls: int = 0
    seconds: float | None = None
    model_seconds: float | None = None
    tool_seconds: float | None = None
    framework_seconds: float | None = None
    cost_usd: float | None = None


class RunUsage(ResultModel):
    turns: list[TurnUsage] = Field(default_factory=list)
    models: list[ModelUsage] = Field(default_factory=list, description="The agent's, per model version.")
    simulator: list[ModelUsage] = Field(default_factory=list, description="The user simulator's (scenario cases).")
    tokens: int | None = None
    model_calls: int | None = None
    tool_calls: int = 0
    cost_usd: float | None = Field(default=None, description="The agent's cost; None when a model is unpriced.")


class CaseUsage(ResultModel):
    """Per run figures of a case (kept when runs are not, in the base branch's cached history)."""

    run_tokens: list[int | None] = Field(default_factory=list)
    run_model_calls: list[int | None] = Field(default_factory=list)
    run_cost_usd: list[float | None] = Field(default_factory=list)
    turn_seconds: list[float] = Field(default_factory=list, description="Every timed turn of every run.")
    tokens: float | None = Field(default=None, description="Mean over the runs that reported tokens.")
    model_calls: float | None = None
    cost_usd: float | None = None
    p95_turn_seconds: float | None = None
    runs_without_usage: int = 0


class UsageTotals(ResultModel):
    """Everything one party (the agent, the judge, the user simulator) used in this run."""

    models: list[ModelUsage] = Field(default_factory=list)
    calls: int = 0
    input_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    tokens: int | None = None
    cost_usd: float | None = Field(default=None, description="None when no model was priced.")
    unpriced_models: list[str] = Field(default_factory=list, description="Models whose calls have no cost.")


class PassFigures(ResultModel):
    """The suite in one pass (every case once): what one run of each case costs."""

    tokens: float | None = None
    cost_usd: float | None = None
    model_calls: float | None = None
    p50_turn_seconds: float | None = None
    p95_turn_seconds: float | None = None


class FileUsage(ResultModel):
    path: str
    tokens: float | None = None
    cost_usd: float | None = None


class PriceSource(ResultModel):
    date: str
    source: str
    file: str | None = Field(default=None, description="The --prices file that overrode or added models.")


class SuiteUsage(ResultModel):
    agent: UsageTotals = Field(default_factory=UsageTotals, description="Every run of every case.")
    judge: UsageTotals | None = None
    calibration: UsageTotals | None = Field(
        default=None,
        description="The judge's calls that calibrated the judge metrics against the human labels, not in judge (left "
        "out without labels).",
    )
    simulator: UsageTotals | None = None
    per_pass: PassFigures = Field(
        default_factory=PassFigures, description="The mean over runs of one pass of the suite (compared)."
    )
    run_passes: list[PassFigures] = Field(
        default_factory=list, description="The suite's figures in each pass (run 1, 2, ...): the run-to-run noise."
    )
    runs: int = 0
    runs_without_usage: int = Field(default=0, description="Runs whose agent reported no token usage at all.")
    timed_turns: int = 0
    files: list[FileUsage] = Field(default_factory=list)
    prices: PriceSource | None = None


Quantity = Literal["cost_usd", "tokens", "model_calls", "p50_turn_seconds", "p95_turn_seconds"]


class QuantityChange(ResultModel):
    """A cost or latency figure against the baseline (lower is better)."""

    quantity: Quantity
    case_id: str | None = Field(default=None, description="None for the suite.")
    base: float | None = None
    head: float | None = None
    change_pct: float | None = Field(default=None, description="(head - base) / base, in percent.")
    significance: Significance | None = None
    noise: NoiseModel | None = None
    interval: list[float] | None = None
    flagged: bool = Field(default=False, description="A rise that is not within noise and is large enough to show.")


class UsageComparison(ResultModel):
    suite: list[QuantityChange] = Field(
        default_factory=list, description="The suite per pass, on the cases both sides ran (common_cases)."
    )
    common_cases: int | None = Field(
        default=None, description="How many cases the suite's figures cover: the gated cases both sides ran."
    )
    added: PassFigures | None = Field(default=None, description="The figures of the cases the baseline did not run.")
    removed: PassFigures | None = Field(default=None, description="The baseline's figures of the cases not run now.")
    quarantined: PassFigures | None = Field(
        default=None, description="The figures of this run's quarantined cases, left out of the comparison."
    )
    cases: list[QuantityChange] = Field(
        default_factory=list, description="The flagged rises of single cases, largest first (at most 50)."
    )
    rising_cases: int = Field(default=0, description="Cases with a flagged rise.")
    base_files: list[FileUsage] = Field(default_factory=list, description="The baseline's figures per eval file.")


class BudgetStatus(Vocabulary):
    """A budget's check: ``unchecked``, the figure it needs was not reported; ``skipped``, nothing to check it
    against."""

    PASSED = "passed"
    FAILED = "failed"
    UNCHECKED = "unchecked"
    SKIPPED = "skipped"


class BudgetCheck(ResultModel):
    """A budget: per case (test_config.json ``budgets``) or for the run (--max-cost and the increase limits).

    ``unchecked``: the figure it needs was not reported or has no price (the case is not evaluated, the run an
    error); ``skipped``: there is nothing to check against (no baseline for an increase)."""

    name: str
    limit: float
    value: float | None = Field(default=None, description="The figure checked against the limit.")
    status: BudgetStatus
    reason: str = ""


class BudgetLimits(ResultModel):
    """The run's budgets as given (--max-cost, --max-cost-increase, --max-latency-increase)."""

    max_cost: float | None = None
    max_cost_increase: float | None = None
    max_latency_increase: float | None = None

"""The verdict's policy: what the user asked of the gate (its options), recorded in results.json's ``run`` so that
saved results are decided again as they were."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.model.results import BudgetLimits, PassRule, RunInfo, SequentialRun


@dataclass(frozen=True)
class Policy:
    """What the user asked of the gate (its options), recorded in results.json's ``run``."""

    pass_rule: PassRule = "mean"
    allow_not_evaluated: bool = False
    fail_on_regression: bool = False
    strict_comparison: bool = False
    tolerance: float = 0.0
    limits: BudgetLimits | None = None
    sequential: SequentialRun | None = None  # --sequential's settings, when given
    min_judge_kappa: float = 0.6
    min_judge_labels: int = 30
    require_calibrated_judges: bool = False

    @classmethod
    def recorded(cls, run: RunInfo) -> Policy:
        """The policy a results.json was decided with."""
        return cls(
            pass_rule=run.pass_rule,
            allow_not_evaluated=run.allow_not_evaluated,
            fail_on_regression=run.fail_on_regression,
            strict_comparison=run.strict_comparison,
            tolerance=run.regression_tolerance or 0.0,
            limits=run.budget_limits,
            sequential=run.sequential,
        )

    def record(self, run: RunInfo) -> RunInfo:
        return run.model_copy(
            update={
                "pass_rule": self.pass_rule,
                "allow_not_evaluated": self.allow_not_evaluated,
                "fail_on_regression": self.fail_on_regression,
                "strict_comparison": self.strict_comparison,
                "regression_tolerance": self.tolerance,
                "budget_limits": self.limits,
                "sequential": self.sequential,
            }
        )

    @classmethod
    def of(cls, settings: Settings) -> Policy:
        """The policy of the options."""
        limits = BudgetLimits(
            max_cost=settings.max_cost,
            max_cost_increase=settings.max_cost_increase,
            max_latency_increase=settings.max_latency_increase,
        )
        return cls(
            pass_rule=settings.pass_rule,
            allow_not_evaluated=settings.allow_not_evaluated,
            fail_on_regression=settings.fail_on_regression,
            strict_comparison=settings.strict_comparison,
            tolerance=settings.regression_tolerance,
            limits=limits if limits.model_dump(exclude_none=True) else None,
            sequential=sequential_run(settings),
            min_judge_kappa=settings.min_judge_kappa,
            min_judge_labels=settings.min_judge_labels,
            require_calibrated_judges=settings.require_calibrated_judges,
        )

    def with_options(self, given: Policy) -> Policy:
        """A recorded policy (``recorded``) with the options given now (``report``): what fails stays failing (a
        regression or a strict comparison fails when either asks it), a budget limit given now replaces the
        recorded one, and the pass rule and what may stay not evaluated are the recording's."""
        saved, limits = self.limits or BudgetLimits(), given.limits or BudgetLimits()
        names = BudgetLimits.model_fields
        merged = BudgetLimits(**{name: getattr(limits, name) or getattr(saved, name) for name in names})
        return dataclasses.replace(
            self,
            fail_on_regression=self.fail_on_regression or given.fail_on_regression,
            strict_comparison=self.strict_comparison or given.strict_comparison,
            limits=merged if merged.model_dump(exclude_none=True) else None,
        )


def sequential_run(settings: Settings) -> SequentialRun | None:
    """The settings of ``--sequential``, when it is given."""
    if not settings.sequential:
        return None
    return SequentialRun(
        confidence=settings.confidence,
        margin=settings.margin,
        min_runs=settings.min_runs,
        max_runs=settings.num_runs,
        undecided=settings.undecided,
        fail_split=settings.sequential_cases if settings.undecided == "neutral" else None,
    )

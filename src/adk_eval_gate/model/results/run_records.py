"""The runs of a case in results.json: each run's turns (the actual ones compact, ``model/compact.py``), its
metrics, log and usage."""

from __future__ import annotations

from typing import Any, Literal

import pydantic
from pydantic import Field, PrivateAttr

from adk_eval_gate.model import compact
from adk_eval_gate.model.evalset import Invocation
from adk_eval_gate.model.results.usage_and_budgets import RunUsage
from adk_eval_gate.model.results.vocabulary import CaseStatus, ComputedBy, MetricStatus, ResultModel

ErrorKind = Literal["agent", "infrastructure"]
"""Why a run is an error: the agent raised, or something around it failed (a timeout, the model's 429/5xx after
retries, a judge outage); infrastructure errors are counted apart."""


class InvocationRecord(ResultModel):
    """One turn of a run: the user's message and the actual invocation, compact (``model/compact.py``); the
    expected turn is the case's (``CaseResult.expected``), once for all runs."""

    user: str = Field(description="The user's message of this turn, as text.")
    act: dict[str, Any] | None = Field(
        default=None,
        description="The actual invocation in the compact form (model/compact.py: losslessly ADK's Invocation), "
        "if inference got this far.",
    )
    expected: dict[str, Any] | None = Field(
        default=None,
        description="Written by earlier versions only: the expected invocation in ADK's form (now in the case).",
    )
    actual: dict[str, Any] | None = Field(
        default=None,
        description="Written by earlier versions only: the actual invocation in ADK's form (now act).",
    )
    _expected: dict[str, Any] | None = PrivateAttr(default=None)  # the case's expected turn, shared by its runs

    @pydantic.model_validator(mode="before")
    @classmethod
    def _compact_earlier_form(cls, data: Any) -> Any:
        """A turn of an earlier version: its actual invocation made compact (memory holds one form)."""
        if isinstance(data, dict) and isinstance(data.get("actual"), dict) and "act" not in data:
            turn = compact.compact_untrusted(data["actual"], user=data.get("user"))
            if turn is not None:
                data = {key: value for key, value in data.items() if key != "actual"} | {"act": turn}
        return data

    def actual_turn(self) -> dict[str, Any] | None:
        """The actual turn, compact (an earlier version's that could not be made compact: None)."""
        return self.act

    def expected_turn(self) -> dict[str, Any] | None:
        """The expected turn, compact: the case's, or one an earlier version kept here."""
        if self._expected is not None or self.expected is None:
            return self._expected
        return compact.compact_untrusted(self.expected, user=self.user)

    def expected_invocation(self) -> Invocation | None:
        """The expected turn as ADK's Invocation (``pydantic.ValidationError`` if it is not one)."""
        turn = self.expected_turn()
        return None if turn is None else Invocation.model_validate(compact.expanded(turn, user=self.user))

    def actual_invocation(self, apps: dict[str, dict[str, Any]] | None = None) -> Invocation | None:
        """The actual turn as ADK's Invocation, its app details from ``apps`` (the document's ``app_details``);
        ``pydantic.ValidationError`` if it is not one."""
        if self.act is None:
            return None if self.actual is None else Invocation.model_validate(self.actual)
        return Invocation.model_validate(compact.expanded(self.act, user=self.user, apps=apps))


class RubricScoreRecord(ResultModel):
    """ADK's ``RubricScore``: one rubric's verdict from the judge."""

    rubric_id: str
    rationale: str | None = None
    score: float | None = None


class RunMetric(ResultModel):
    name: str
    score: float | None
    status: MetricStatus = Field(description="The metric's status in this run, as the verdict decided it.")
    invocation_scores: list[float | None] = Field(default_factory=list)
    reason: str | None = None
    rubric_scores: list[RubricScoreRecord] | None = None
    details: dict[str, Any] | None = None
    evaluator_status: MetricStatus | None = Field(
        default=None,
        description="The status the custom metric's own function returned for this run (ADK's `adk eval` uses it "
        "as it is); absent: the verdict decides from the score and the threshold.",
    )
    invocation_statuses: list[MetricStatus | None] = Field(
        default_factory=list,
        description="The per-invocation statuses the custom metric's own function returned, from which ADK infers "
        "whether lower scores are better; empty: decided from the scores.",
    )
    computed_by: ComputedBy | None = Field(
        default=None,
        description="For the metrics ADK computes through Google's evaluation service: whether that service computed "
        "it (agent-platform) or the gate's own judge (gate-judge).",
    )


class RunRecord(ResultModel):
    run: int = Field(description="1-based run number (--num-runs, then the --confirm-failures re-runs).")
    status: CaseStatus
    error: str | None = None
    error_kind: ErrorKind | None = Field(
        default=None,
        description="agent: the agent raised; infrastructure: a timeout, the model's 429/5xx after retries or a "
        "judge outage.",
    )
    retries: list[str] = Field(
        default_factory=list,
        description="Why each earlier attempt of this run failed and was run again in a fresh session, in order: "
        "the model provider's 429/5xx or lost connection, or a lost worker process (never what the agent raised); "
        "the run's own result is its last attempt's.",
    )
    confirmation: bool = Field(default=False, description="A re-run of --confirm-failures.")
    duration_seconds: float | None = None
    started_at: float | None = Field(default=None, description="When the run started, in seconds since the epoch.")
    session_id: str | None = None
    invocations: list[InvocationRecord] = Field(default_factory=list)
    metrics: list[RunMetric] = Field(default_factory=list)
    notes: list[str] = Field(
        default_factory=list, description="What was changed in the agent's output to keep it usable (cut, replaced)."
    )
    log: list[str] = Field(
        default_factory=list,
        description="What ADK and the agent logged during this run (warnings and errors, at most 200 lines).",
    )
    usage: RunUsage | None = Field(default=None, description="Tokens, calls, time and cost of the agent's turns.")
    over_budget: list[str] = Field(default_factory=list, description="The case budgets this run exceeded.")
    final_session_state: dict[str, Any] | None = Field(
        default=None,
        description="The session state after the run (ADK's eval bookkeeping key removed), when the runner has it.",
    )

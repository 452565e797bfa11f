"""results.json's document: its cases with their metrics, its files, the verdict's findings and totals, the run's
settings, and reading one back (``parse_document``, ``parse_cases``). Every file this tool writes is validated
against the schema generated from these models (``json_schema``) in the tests.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Literal

import pydantic
from pydantic import Field

from adk_eval_gate.model.results.calibrations import JudgeCalibration
from adk_eval_gate.model.results.case_inputs import AffectedRun, Carried, CaseInputs
from adk_eval_gate.model.results.comparison import (
    Comparison,
)
from adk_eval_gate.model.results.run_records import (
    ErrorKind,
    RunRecord,
)
from adk_eval_gate.model.results.sequential import SequentialCase, SequentialRun
from adk_eval_gate.model.results.usage_and_budgets import BudgetCheck, BudgetLimits, CaseUsage, SuiteUsage
from adk_eval_gate.model.results.vocabulary import (
    CaseStatus,
    ComputedBy,
    Effect,
    MetricStatus,
    ResultModel,
    RunStatus,
    case_label,
)
from adk_eval_gate.support.pydantic_errors import first_error

SCHEMA_VERSION: Literal[1] = 1

MetricKind = Literal["deterministic", "judge", "informational", "custom"]
PassRule = Literal["mean", "all", "majority"]
Stability = Literal["stable-pass", "stable-fail", "flaky"]
Rule = Literal[
    # a case's rules
    "error",
    "threshold",
    "pass_rule",
    "not_evaluated",
    "case_budget",
    "confirmation",
    "quarantine",
    "sequential",
    # the run's rules
    "file_error",
    "internal_error",
    "interrupted",
    "nothing_gated",
    "cases",
    "run_budget",
    "regressions",
    "judge_calibration",
]


class Finding(ResultModel):
    """What one rule of the verdict found about a case or the run, and why: the reports render findings, they never
    decide again."""

    rule: Rule
    effect: Effect = Field(description="What the finding does to its case or the run; none: it is only noted.")
    reason: str
    metric: str | None = Field(default=None, description="The metric the finding is about, if it is about one.")


class MetricResult(ResultModel):
    name: str
    kind: MetricKind = "deterministic"
    score: float | None = Field(
        description="The case's score, as the verdict computes it from its runs: with one run, the run's; with "
        "several, the mean of every invocation's score pooled across the runs (ADK's AgentEvaluator)."
    )
    threshold: float | None = Field(default=None, description="None: the metric has no threshold (informational).")
    status: MetricStatus
    lower_is_better: bool = Field(
        default=False,
        description="The metric passes at or below its threshold: its custom function's own statuses say so (as "
        "ADK infers it).",
    )
    run_scores: list[float | None] = Field(default_factory=list)
    invocation_scores: list[list[float | None]] = Field(default_factory=list)
    passed_runs: int = 0
    stdev: float | None = Field(default=None, description="Sample standard deviation of the run scores.")
    reason: str | None = Field(default=None, description="Why the metric was not evaluated.")
    computed_by: ComputedBy | None = Field(
        default=None,
        description="For the metrics ADK computes through Google's evaluation service: whether that service computed "
        "it (agent-platform) or the gate's own judge (gate-judge).",
    )
    uncalibrated: str | None = Field(
        default=None,
        description="Why this judge metric's scores may not fail the case: it has not earned it against the human "
        "labels (its status is informational).",
    )
    calibration_required: bool = Field(
        default=False, description="--require-calibrated-judges: an uncalibrated judge metric is an error."
    )


class Confirmation(ResultModel):
    """The case failed or regressed on its first runs and was run again (``--confirm-failures``)."""

    reason: Literal["failed", "regressed"]
    first_status: CaseStatus = Field(description="The case's status after its first runs.")
    extra_runs: int = Field(description="How many runs were added.")
    confirmed: bool = Field(
        default=False, description="The case failed and so did every one of its re-runs: a confirmed failure."
    )


class CaseResult(ResultModel):
    id: str = Field(description="<repo-relative file>::<eval_id>")
    file: str
    eval_set_id: str
    eval_id: str
    index: int = Field(default=0, description="Position of the case in its file.")
    line: int | None = Field(default=None, description="Line of the case's eval_id in its file.")
    status: CaseStatus
    error: str | None = None
    error_kind: ErrorKind | None = Field(
        default=None, description="For an error: infrastructure when every failed run failed for that reason."
    )
    metrics: list[MetricResult] = Field(default_factory=list)
    runs: list[RunRecord] = Field(default_factory=list)
    runs_passed: int | None = Field(default=None, description="How many of the case's runs passed.")
    stability: Stability | None = Field(
        default=None,
        description="With several runs: every run passed, none did, or some did (flaky); runs with an "
        "infrastructure error are left out.",
    )
    pass_hat_k: bool | None = Field(default=None, description="pass^k: every one of the k runs passed.")
    pass_at_k: bool | None = Field(default=None, description="pass@k: at least one of the k runs passed.")
    quarantined: bool = Field(default=False, description="Reported, never failing the gate (--quarantine).")
    confirmation: Confirmation | None = Field(default=None, description="Set when the case was run again.")
    sequential: SequentialCase | None = Field(
        default=None, description="With --sequential: the case's decision and its evidence."
    )
    usage: CaseUsage | None = Field(default=None, description="Tokens, calls, time and cost over the runs.")
    budgets: list[BudgetCheck] = Field(default_factory=list, description="test_config.json budgets, checked.")
    findings: list[Finding] = Field(
        default_factory=list, description="Why the case has its status (the verdict's findings; none when it passed)."
    )
    fails_gate: bool = Field(
        default=False,
        description="The case fails the run: gated (not quarantined) and failed, an error, or not evaluated without "
        "--allow-not-evaluated (the verdict's, for the outputs).",
    )
    failing_on_base: bool = Field(
        default=False, description="It did not pass on the base branch either: not a failure new in this change."
    )
    inputs: CaseInputs | None = Field(default=None, description="What the case depends on (--only-affected).")
    carried: Carried | None = Field(
        default=None, description="Set when the case did not run: its result is the base run's (--only-affected)."
    )
    expected: list[dict[str, Any] | None] = Field(
        default_factory=list,
        description="The case's expected turns in the compact form (model/compact.py), once for all its runs.",
    )

    @pydantic.model_validator(mode="after")
    def _each_thing_once(self) -> CaseResult:
        """What results.json keeps once, given back to every run: the case's expected turns (those of an earlier
        version's file, kept in each run, become the case's), and each run's per-turn scores of a metric, which
        the case's metric lists by run."""
        if not self.expected and self.runs:
            turns = [record.expected_turn() for record in self.runs[0].invocations]
            self.expected = turns if any(turn is not None for turn in turns) else []
        for run in self.runs:
            for record, turn in zip(run.invocations, self.expected, strict=False):
                record._expected = turn
                record.expected = None
        by_name = {metric.name: metric.invocation_scores for metric in self.metrics}
        for position, run in enumerate(run for run in self.runs if run.metrics):
            for metric in run.metrics:
                listed = by_name.get(metric.name, [])
                if not metric.invocation_scores and position < len(listed):
                    metric.invocation_scores = list(listed[position])
        scored = any(run.metrics for run in self.runs)
        for case_metric in self.metrics:
            missing = {"run_scores", "passed_runs"} - case_metric.model_fields_set
            if missing and scored:  # left out where they are the runs' own (json_text)
                scores, passed = run_figures(case_metric.name, self.runs)
                if "run_scores" in missing:
                    case_metric.run_scores = scores
                if "passed_runs" in missing:
                    case_metric.passed_runs = passed
        return self

    @property
    def label(self) -> str:
        """Its name in every output (``case_label``)."""
        return case_label(self.file, self.eval_id)


def run_figures(name: str, runs: Sequence[RunRecord]) -> tuple[list[float | None], int]:
    """A metric's score in each run that was scored (a run that failed before scoring has no metrics), and how
    many of those runs it passed: what the case's metric keeps (``run_scores``, ``passed_runs``)."""
    per_run = [next((m for m in run.metrics if m.name == name), None) for run in runs if run.metrics]
    scores = [metric.score if metric else None for metric in per_run]
    return scores, sum(1 for metric in per_run if metric and metric.status == MetricStatus.PASSED)


class FileResult(ResultModel):
    path: str
    format: str | None = None
    eval_set_id: str | None = None
    config: str | None = Field(default=None, description="Where this file's criteria came from.")
    agent: str | None = Field(default=None, description="The file's agent and how it was found (adk runner).")
    num_runs: int | None = Field(
        default=None, description="The file's own runs per case, from the AgentEvaluator call that names it."
    )
    cases: int = 0
    error: str | None = None
    line: int | None = None
    warnings: list[str] = Field(default_factory=list)
    criteria_digest: str | None = Field(default=None, description="Digest of the file's criteria, thresholds included.")
    metric_digests: dict[str, str] = Field(
        default_factory=dict,
        description="Per metric, a digest of what makes its scores comparable: its criterion without the threshold.",
    )
    case_inputs: CaseInputs | None = Field(
        default=None,
        description="The inputs most of the file's cases have (--only-affected): a case of the file without inputs "
        "has these; a case without any says inputs: null.",
    )


class Totals(ResultModel):
    cases: int = 0
    passed: int = 0
    failed: int = 0
    error: int = 0
    not_evaluated: int = 0
    quarantined: int = Field(
        default=0, description="Cases under --quarantine, whatever their status (not in the above)."
    )
    quarantined_not_passing: int = Field(default=0, description="Of the quarantined cases, those that did not pass.")
    files: int = 0
    file_errors: int = 0
    infrastructure_errors: int = Field(
        default=0,
        description="Of the error cases, those whose runs failed for infrastructure reasons (timeouts, the model's "
        "429/5xx after retries, judge outages), not because of the agent.",
    )
    retried_runs: int = Field(
        default=0,
        description="Runs (of the cases that ran here) that were run again after a failure around the agent: the "
        "model provider's 429/5xx or lost connection, a lost worker process (each run's retries).",
    )
    confirmed_failures: int = Field(
        default=0, description="Failed cases that were run again (--confirm-failures) and failed every re-run."
    )
    flaky: int = Field(default=0, description="Gated cases whose runs disagree (some passed, some did not).")
    failing_on_base: int = Field(
        default=0,
        description="Of the gated cases that did not pass, those that did not pass on the base branch either.",
    )
    budgets_missed: int = Field(default=0, description="The run's budgets that failed.")
    budgets_unchecked: int = Field(default=0, description="The run's budgets whose figure was unknown.")
    carried: int = Field(
        default=0, description="Cases that did not run, their results carried from the baseline (in the above)."
    )
    runs: int | None = Field(default=None, description="With --sequential: the case runs spent.")
    runs_fixed: int | None = Field(
        default=None, description="With --sequential: the case runs a fixed --num-runs would have spent."
    )
    proven: int | None = Field(default=None, description="With --sequential: the cases whose verdict was proven.")
    curtailed: int | None = Field(default=None, description="With --sequential: the cases curtailed.")
    undecided: int | None = Field(default=None, description="With --sequential: the cases still open at --num-runs.")


class SuiteStability(ResultModel):
    """How the cases with several runs behaved: pass^k and pass@k are shares of those cases."""

    cases: int = 0
    stable_pass: int = 0
    stable_fail: int = 0
    flaky: int = 0
    pass_hat_k: float | None = Field(
        default=None,
        description="pass^k: the share of the cases that passed all their k runs; with --sequential (k: min-runs, "
        "the cases' run counts vary) the mean over the cases of C(c,k)/C(n,k), c of a case's n runs passing: the "
        "chance that k of its runs all pass.",
    )
    pass_at_k: float | None = Field(
        default=None,
        description="pass@k: the share of the cases that passed at least one of their k runs; with --sequential the "
        "mean over the cases of 1 - C(n-c,k)/C(n,k).",
    )
    k: int | None = Field(
        default=None,
        description="With --sequential: the k of pass^k and pass@k (--min-runs, or fewer when a case ran fewer).",
    )
    runs: list[int] | None = Field(
        default=None, description="With --sequential: the fewest and the most runs a case ran (decisive runs)."
    )


class MetricSummary(ResultModel):
    name: str
    kind: MetricKind = "deterministic"
    threshold: float | None = None
    thresholds: list[float] = Field(default_factory=list, description="Every threshold used, if they differ.")
    mean: float | None = None
    cases: int = 0
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    pass_rate: float | None = None
    lower_is_better: bool = Field(default=False, description="In some case the metric passes at or below its limit.")
    computed_by: ComputedBy | None = Field(
        default=None, description="Who computed a metric ADK sends to Google's evaluation service (MetricResult)."
    )


class JudgeStats(ResultModel):
    calls: int = 0
    cached: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    implausible_counts: int = Field(
        default=0,
        description="Answers whose token counts were not counts (negative, or beyond any model's): each such count "
        "was counted as 0, or as the most one call can use.",
    )


class CalibrationJudgeStats(JudgeStats):
    """The judge's calls that calibrated the labelled judge metrics before the evaluation, counted apart from the
    evaluation's (``judge``)."""

    calibrated: int = Field(default=0, description="Judge metrics whose judge was asked on its labels in this run.")
    reused: int = Field(
        default=0,
        description="Judge metrics whose calibration was unchanged (the same fingerprint) and taken from the cache: "
        "no judge calls.",
    )


class JudgeSetting(ResultModel):
    """How a judge metric's scores were produced: the model and its sampling."""

    model: str
    sampling: str = Field(description="Samples per question and the generation settings, e.g. '5 samples'.")
    provider: str | None = Field(
        default=None,
        description="Who answered the judge model: gemini (google-genai), or the ADK class it resolves to "
        "(OpenAILlm, LiteLlm, Claude, ...). Absent in results of versions that judged with Gemini only.",
    )
    computed_by: ComputedBy | None = Field(
        default=None,
        description="For the metrics ADK computes through Google's evaluation service: that service (agent-platform) "
        "or the gate's own judge (gate-judge). Absent in results of versions that always used the gate's judge.",
    )

    @pydantic.model_serializer(mode="wrap")
    def _computed_by_only_when_said(self, handler: pydantic.SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Other judges' settings are written as before (no ``computed_by: null``), so their digests stay too."""
        data: dict[str, Any] = handler(self)
        if data.get("computed_by") is None:
            data.pop("computed_by", None)
        return data


class ServedAgent(ResultModel):
    """The agent a remote runner reached, as its server describes it (the a2a runner: its agent card)."""

    name: str
    version: str | None = None

    def label(self) -> str:
        """The name and version, as the reports name the agent."""
        return f"{self.name} {self.version}" if self.version else self.name


class RunInfo(ResultModel):
    tool_version: str = ""
    runner: str = ""
    num_runs: int = 1
    shard: str | None = None
    shards_merged: int | None = None
    selection: str | None = Field(
        default=None,
        description="Digest of the selected cases, their criteria and --num-runs: equal in every shard of one run.",
    )
    gate_id: str = "default"
    allow_not_evaluated: bool = False
    pass_rule: PassRule = Field(default="mean", description="How a case with several runs passed (--pass-rule).")
    confirm_failures: int = Field(default=0, description="Extra runs for each failing or regressed case.")
    adk_version: str | None = Field(default=None, description="google-adk that ran the agents (adk runner).")
    served_agent: ServedAgent | None = Field(
        default=None, description="The agent card's name and version (a2a runner). Absent for the other runners."
    )
    judges: dict[str, JudgeSetting] = Field(
        default_factory=dict, description="Per judge metric, the judge model and sampling used."
    )
    strict_comparison: bool = Field(
        default=False, description="Regressions of metrics scored differently on the base branch count too."
    )
    budget_limits: BudgetLimits | None = Field(default=None, description="The run's budgets, as given.")
    started_at: str | None = None
    duration_seconds: float | None = None
    repository: str | None = None
    sha: str | None = None
    ref: str | None = None
    run_url: str | None = None
    interrupted: bool = False
    unfinished: list[str] = Field(
        default_factory=list, description="Ids of the cases with runs that did not finish (an interrupted run)."
    )
    pull_request: int | None = Field(default=None, description="The pull request this run evaluated, if any.")
    regression_tolerance: float | None = None
    fail_on_regression: bool = False
    baseline_note: str | None = Field(default=None, description="Why there is no comparison, when there is none.")
    affected: AffectedRun | None = Field(default=None, description="What --only-affected ran, when it was given.")
    sequential: SequentialRun | None = Field(default=None, description="The settings of --sequential, when given.")
    run_attempt: int | None = Field(
        default=None,
        description="With --sequential in GitHub Actions: the attempt of the workflow run (a re-run: 2 on).",
    )
    continued_from_attempt: int | None = Field(
        default=None,
        description="With --sequential: the earlier attempt of this workflow run whose evidence this one continued "
        "(its results artifact); absent: every case started afresh.",
    )
    environment_inputs: list[str] = Field(
        default_factory=list,
        description="The environment's dependency files (requirements, pyproject.toml, lock files): inputs of every "
        "case.",
    )


class ResultsDocument(ResultModel):
    schema_version: Literal[1] = SCHEMA_VERSION
    status: RunStatus
    error: str | None = Field(
        default=None,
        description="Why the run as a whole is an error when no case says so: it crashed or a report failed.",
    )
    totals: Totals
    cases: list[CaseResult]
    files: list[FileResult] = Field(default_factory=list)
    metrics: list[MetricSummary] = Field(default_factory=list)
    stability: SuiteStability | None = Field(default=None, description="Present when cases ran several times.")
    judge: JudgeStats | None = None
    calibration_judge: CalibrationJudgeStats | None = Field(
        default=None,
        description="What calibrating the judges against the human labels asked of them, apart from judge (left out "
        "without labels).",
    )
    calibrations: list[JudgeCalibration] = Field(
        default_factory=list,
        description="Each labelled judge metric's agreement with the human labels and whether it gated (left out "
        "without labels).",
    )
    usage: SuiteUsage | None = Field(default=None, description="Tokens, calls, time and cost of the whole run.")
    budgets: list[BudgetCheck] = Field(
        default_factory=list, description="The run's budgets (--max-cost, --max-cost-increase, --max-latency-increase)."
    )
    findings: list[Finding] = Field(
        default_factory=list, description="Why the run has its status: the verdict's findings about the run."
    )
    run: RunInfo = Field(default_factory=RunInfo)
    comparison: Comparison | None = None
    app_details: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Each distinct app details of the actual turns (agents' instructions and tool declarations), "
        "once, by the key their turns' app names.",
    )

    @pydantic.model_validator(mode="after")
    def _inputs_once(self, info: pydantic.ValidationInfo) -> ResultsDocument:
        """Read from a file (``parse_document``): a case's inputs, kept once in its file's record when they are
        most of its cases' (``with_file_inputs``). A document made in memory is left as it is."""
        files = file_inputs(self.files) if info.context == READ else {}
        for case in self.cases if files else []:
            with_file_inputs(case, files)
        return self


READ = {"results_file": True}  # the validation context of a document read from a file


def with_file_inputs(case: CaseResult, files: dict[str, CaseInputs]) -> CaseResult:
    """The case with its file's inputs when its line left them out (``FileResult.case_inputs``)."""
    if "inputs" not in case.model_fields_set and case.file in files:
        case.inputs = files[case.file]
    return case


def file_inputs(files: list[FileResult]) -> dict[str, CaseInputs]:
    return {file.path: file.case_inputs for file in files if file.case_inputs is not None}


class InvalidResults(ValueError):
    """Data that is not a results.json of this version (the message names where it is wrong)."""


def parse_document(data: object, *, shown: str) -> ResultsDocument:
    """Validates decoded JSON as a results.json of version 1 (baselines, merge inputs and recordings)."""
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        raise InvalidResults(f"{shown} is not a results.json of version {SCHEMA_VERSION}")
    try:
        return ResultsDocument.model_validate(data, context=READ)
    except pydantic.ValidationError as error:
        where, message = first_error(error)
        raise InvalidResults(f"{shown} is not a valid results.json: {where}: {message}") from None


def parse_cases(head: object, cases: object, *, shown: str) -> tuple[ResultsDocument, Iterator[CaseResult]]:
    """``parse_document`` one case at a time, for a reader that keeps only a little of each (a recording): the
    document without its cases (``head``), and its ``cases``, each validated when it is reached."""
    if not isinstance(head, dict) or head.get("schema_version") != SCHEMA_VERSION:
        raise InvalidResults(f"{shown} is not a results.json of version {SCHEMA_VERSION}")
    if not isinstance(cases, list | Iterator):
        return parse_document(head | {"cases": cases}, shown=shown), iter(())  # raises: the cases are no list
    document = parse_document({**head, "cases": []}, shown=shown)
    files = file_inputs(document.files)

    def each() -> Iterator[CaseResult]:
        for index, case in enumerate(cases):
            try:
                yield with_file_inputs(CaseResult.model_validate(case), files)
            except pydantic.ValidationError as error:
                where, message = first_error(error)
                where = f"cases.{index}.{where}" if where else f"cases.{index}"
                raise InvalidResults(f"{shown} is not a valid results.json: {where}: {message}") from None

    return document, each()


def json_schema() -> dict[str, Any]:
    schema = ResultsDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://github.com/adk-eval-gate/adk-eval-gate/schema/results.schema.json"
    schema["title"] = "ADK Eval Gate results.json (version 1)"
    return schema

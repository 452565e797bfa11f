"""A case's sequential evidence and its decision after each run, in run-number order.

The caller hands the outcomes it has, keyed by run number (1, 2, ...); only the contiguous prefix is read, so a run
that finishes late (a timeout is often a failure) weighs exactly as if it had finished in order, and a run that ended
in an infrastructure error is simply not handed over (the caller runs it again under the same number). After each
run the case is:

* ``proven-fail``: the FAIL tests reject "every metric meets its threshold" at the confidence: with several metrics
  the mean of their FAIL e-values against ``1 / alpha`` (an e-value of the intersection of their nulls, under which
  every factor is a supermartingale of the same runs), which rejects whenever Bonferroni's ``max >= m / alpha``
  would, and more often; against ``fail_split / alpha`` when the error is split across the suite's cases
  (``--undecided neutral``, where only a proof fails the gate);
* ``proven-pass``: every metric's PASS test rejects ``mean <= threshold - margin`` at ``alpha`` (an error needs
  one truly failing metric to be proven passing: no split). A stream whose threshold is the top of its range (``all``,
  a threshold of 1.0) has no PASS test: it passes only with every one of the N runs at the top, which is its claim;
* ``curtailed``: today's verdict on N runs can no longer change whatever the runs left do (it is that verdict,
  unproven); for a case decided only by streams at the top of their range, also at N runs. Under ``--undecided
  neutral`` an unproven failure does not fail the gate, so a case whose N-run verdict is fixed failing is not
  curtailed: it runs on for a proof, within its N runs;
* ``undecided``: still open at N runs; its verdict is today's on those runs, and ``gate_verdict`` applies the
  ``--undecided`` policy.

No decision is taken before ``min_runs`` runs. A job re-run continues the evidence (``continue_evidence``): the
capitals go on, so trying again until green cannot manufacture a proof; only the fixed-N window starts afresh.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import pydantic

from adk_eval_gate.model.results import PassRule
from adk_eval_gate.verdict.sequential import streams as rules
from adk_eval_gate.verdict.sequential.betting import Capitals, advance, e_value, nulls_for
from adk_eval_gate.verdict.sequential.intervals import anytime_interval
from adk_eval_gate.verdict.sequential.streams import MetricSpec

Decision = Literal["proven-pass", "proven-fail", "curtailed", "undecided"]
UndecidedPolicy = Literal["point", "neutral", "fail"]
GateVerdict = Literal["pass", "fail", "neutral"]
PROVEN: tuple[Decision, ...] = ("proven-pass", "proven-fail")


@dataclass(frozen=True)
class SequentialSettings:
    """``--sequential``'s settings: the pass rule in force, ``--confidence``, ``--margin``, ``--min-runs``, the most
    runs a case gets (``--num-runs``), ``--undecided``, and ``fail_split``: the cases the error of a proven failure
    is split across (Bonferroni on e-values: a proof needs ``fail_split / alpha``), the suite's under ``neutral``."""

    pass_rule: PassRule = "mean"
    confidence: float = 0.95
    margin: float = 0.10
    min_runs: int = 2
    max_runs: int = 10
    undecided: UndecidedPolicy = "point"
    fail_split: int = 1

    def __post_init__(self) -> None:
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence {self.confidence}: give a number between 0 and 1, such as 0.95")
        if not 0.0 <= self.margin < 1.0:
            raise ValueError(f"margin {self.margin}: give a number from 0 up to 1, such as 0.10")
        if self.fail_split < 1:
            raise ValueError(f"fail-split {self.fail_split}: give a whole number of cases, at least 1")
        if not 1 <= self.min_runs <= self.max_runs:
            raise ValueError(f"min-runs {self.min_runs}: give a whole number from 1 up to {self.max_runs} (num-runs)")


@dataclass(frozen=True)
class RunOutcome:
    """One run as the tests read it: whether it passed (``majority``, ``all``) and each metric's score (``mean``)."""

    passed: bool
    scores: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamEvidence:
    """One stream's runs so far (on the metric's own scale, across attempts) and its capitals."""

    spec: MetricSpec
    raws: tuple[float, ...] = ()
    capitals: Capitals = field(default_factory=Capitals)


@dataclass(frozen=True)
class CaseEvidence:
    """What a re-run continues from: the decision (None while open), the verdict it gives (True: passes), the runs
    read, where the current attempt's window of N runs starts, and each stream's runs and capitals; the e-values
    follow from them, and ``interval`` gives the anytime interval."""

    settings: SequentialSettings
    streams: tuple[StreamEvidence, ...]
    decision: Decision | None = None
    passed: bool | None = None
    runs: int = 0
    window_start: int = 0

    @property
    def e_pass(self) -> float:
        """The case's PASS e-value: the smallest of its metrics' (1 when none has a PASS test)."""
        return e_value(_log_e_pass(self.streams, self.settings))

    @property
    def e_fail(self) -> float:
        """The case's FAIL e-value: the mean of its metrics'."""
        return e_value(_log_e_fail(self.streams))


def open_evidence(settings: SequentialSettings, metrics: Sequence[MetricSpec] = ()) -> CaseEvidence:
    """A case before its first run (``metrics``: its thresholded metrics, read under ``--pass-rule mean``)."""
    specs = rules.run_streams(settings.pass_rule, metrics)
    return CaseEvidence(settings=settings, streams=tuple(StreamEvidence(spec) for spec in specs))


def _raw(spec: MetricSpec, outcome: RunOutcome, *, run: int, by_outcome: bool) -> float:
    if by_outcome:
        return 1.0 if outcome.passed else 0.0
    if spec.name not in outcome.scores:
        raise ValueError(f"run {run} has no score for metric {spec.name}: it cannot count as evidence")
    return outcome.scores[spec.name]


def _take(evidence: CaseEvidence, outcome: RunOutcome, run: int) -> CaseEvidence:
    streams = []
    by_outcome = evidence.settings.pass_rule != "mean"
    for stream in evidence.streams:
        raw = _raw(stream.spec, outcome, run=run, by_outcome=by_outcome)
        unit = rules.unit_value(stream.spec, raw)
        nulls = nulls_for(rules.unit_threshold(stream.spec), margin=evidence.settings.margin)
        streams.append(StreamEvidence(stream.spec, (*stream.raws, raw), advance(stream.capitals, unit, nulls)))
    return replace(evidence, streams=tuple(streams), runs=run)


def _exact(stream: StreamEvidence, settings: SequentialSettings) -> bool:
    return nulls_for(rules.unit_threshold(stream.spec), margin=settings.margin).exact


def _log_e_fail(streams: Sequence[StreamEvidence]) -> float:
    """The log of the mean of the streams' FAIL e-values, computed without overflow."""
    logs = [stream.capitals.log_fail for stream in streams]
    top = max(logs)
    return top + math.log(math.fsum(math.exp(value - top) for value in logs) / len(logs))


def _log_e_pass(streams: Sequence[StreamEvidence], settings: SequentialSettings) -> float:
    """The log of the smallest PASS e-value among the streams that have a PASS test (0: none has)."""
    logs = [stream.capitals.log_pass for stream in streams if not _exact(stream, settings)]
    return min(logs) if logs else 0.0


def _window(evidence: CaseEvidence, stream: StreamEvidence) -> tuple[float, ...]:
    return stream.raws[evidence.window_start :]


def _decide(evidence: CaseEvidence) -> CaseEvidence:
    settings = evidence.settings
    done = evidence.runs - evidence.window_start
    if done < settings.min_runs:
        return evidence
    bound = math.log(1.0 / (1.0 - settings.confidence))
    at_most = done >= settings.max_runs
    exact = [stream for stream in evidence.streams if _exact(stream, settings)]
    tested = len(exact) < len(evidence.streams)
    exact_pass = all(rules.point_passes(stream.spec, _window(evidence, stream)) for stream in exact)
    if _log_e_fail(evidence.streams) >= _fail_bound(settings):
        return replace(evidence, decision="proven-fail", passed=False)
    if tested and _log_e_pass(evidence.streams, settings) >= bound and (not exact or (at_most and exact_pass)):
        return replace(evidence, decision="proven-pass", passed=True)
    fixed = _settled(evidence)
    # under neutral an unproven failure does nothing, so a case heading for one runs on for a proof
    seeks_proof = fixed is False and settings.undecided == "neutral" and tested
    if fixed is not None and (not at_most or not tested) and not seeks_proof:
        return replace(evidence, decision="curtailed", passed=fixed)
    if at_most:
        return replace(evidence, decision="undecided", passed=point_verdict(evidence))
    return evidence


def _fail_bound(settings: SequentialSettings) -> float:
    """The log e-value a proven failure needs: ``fail_split / alpha``, fixed before any run, so each case may stop
    whenever its own evidence says and still, by the union bound over Ville's inequality, the chance that any of the
    ``fail_split`` cases is proven failing while meeting its threshold stays at most ``alpha``."""
    return math.log(settings.fail_split / (1.0 - settings.confidence))


def _settled(evidence: CaseEvidence) -> bool | None:
    """The case's N-run verdict when its runs so far fix it: failed once one stream's is fixed failing, passed once
    every stream's is fixed passing."""
    total = evidence.settings.max_runs
    verdicts = [rules.settled(stream.spec, _window(evidence, stream), total=total) for stream in evidence.streams]
    if False in verdicts:
        return False
    return True if all(verdict is True for verdict in verdicts) else None


def point_verdict(evidence: CaseEvidence) -> bool:
    """Today's fixed-N verdict on the runs of the current window: every stream passes its rule."""
    return all(rules.point_passes(stream.spec, _window(evidence, stream)) for stream in evidence.streams)


def binding(evidence: CaseEvidence) -> StreamEvidence:
    """The stream that decided the case (its strongest FAIL evidence when proven failing), else the one that stands
    most in the way of a pass."""
    if evidence.decision == "proven-fail":
        return max(evidence.streams, key=lambda stream: stream.capitals.log_fail)
    tested = [stream for stream in evidence.streams if not _exact(stream, evidence.settings)]
    return min(tested or evidence.streams, key=lambda stream: stream.capitals.log_pass)


def interval(evidence: CaseEvidence) -> tuple[float, float]:
    """The anytime interval, at the confidence, for the mean of the metric that binds the case, on its own scale,
    after every run read (across attempts)."""
    stream = binding(evidence)
    units = [rules.unit_value(stream.spec, raw) for raw in stream.raws]
    low, high = anytime_interval(units, confidence=evidence.settings.confidence)
    ends = sorted((rules.raw_value(stream.spec, low), rules.raw_value(stream.spec, high)))
    return ends[0], ends[1]


def consume(evidence: CaseEvidence, outcomes: Mapping[int, RunOutcome]) -> CaseEvidence:
    """The evidence after the runs of ``outcomes`` that follow on from those read, in run-number order, up to the
    first one missing, the decision or the most runs; runs that finish after the decision are not read."""
    current = evidence
    limit = evidence.window_start + evidence.settings.max_runs
    while current.decision is None and current.runs < limit and current.runs + 1 in outcomes:
        run = current.runs + 1
        current = _decide(_take(current, outcomes[run], run))
    return current


def continue_evidence(evidence: CaseEvidence) -> CaseEvidence:
    """The evidence a re-run of the job starts from: a proof stands; any other case reopens with its capitals as they
    are (a fresh start would give every attempt a new chance of a false proof) and a new window of N runs."""
    if evidence.decision in PROVEN:
        return evidence
    return replace(evidence, decision=None, passed=None, window_start=evidence.runs)


def gate_verdict(evidence: CaseEvidence) -> GateVerdict | None:
    """What the case does to the gate under ``--undecided``: a proven case its verdict, a curtailed one the N-run
    verdict it cannot escape; an undecided one today's verdict on its runs (``point``) or a failure (``fail``).
    Under ``neutral`` only a proof fails a case: an undecided case does nothing unless a regression against the base
    is proven (and no failure is curtailed: it runs on for a proof). None while the case is open."""
    if evidence.decision is None or evidence.passed is None:
        return None
    if evidence.decision != "undecided" or evidence.settings.undecided == "point":
        return "pass" if evidence.passed else "fail"
    return "neutral" if evidence.settings.undecided == "neutral" else "fail"


_EVIDENCE = pydantic.TypeAdapter(CaseEvidence)


def evidence_json(evidence: CaseEvidence) -> dict[str, Any]:
    """The evidence as plain JSON values (results.json's ``cases[].sequential``), with the e-values and the interval
    it implies (read back, they are derived again)."""
    shown = {"e_pass": evidence.e_pass, "e_fail": evidence.e_fail, "interval": list(interval(evidence))}
    return {**_EVIDENCE.dump_python(evidence, mode="json"), **shown}


def _replayed(stream: StreamEvidence, settings: SequentialSettings) -> Capitals:
    nulls = nulls_for(rules.unit_threshold(stream.spec), margin=settings.margin)
    capitals = Capitals()
    for raw in stream.raws:
        capitals = advance(capitals, rules.unit_value(stream.spec, raw), nulls)
    return capitals


def _inconsistency(evidence: CaseEvidence) -> str | None:
    """Why saved evidence cannot be what the tests left (its capitals are replayed from its runs), or None."""
    if not evidence.streams or not 0 <= evidence.window_start <= evidence.runs:
        return "its runs and window do not add up"
    for stream in evidence.streams:
        if len(stream.raws) != evidence.runs or _replayed(stream, evidence.settings) != stream.capitals:
            return f"the capitals of {stream.spec.name} do not follow from its {len(stream.raws)} runs"
    bound = math.log(1.0 / (1.0 - evidence.settings.confidence))
    if evidence.decision == "proven-fail" and _log_e_fail(evidence.streams) < _fail_bound(evidence.settings):
        return "it claims a proven failure its e-value does not reach"
    if evidence.decision == "proven-pass" and _log_e_pass(evidence.streams, evidence.settings) < bound:
        return "it claims a proven pass its e-value does not reach"
    return None


def evidence_from_json(data: object) -> CaseEvidence:
    """The evidence a saved ``cases[].sequential`` holds, checked against its own runs: pydantic's ValidationError
    when it is not shaped as one, ValueError when its figures do not follow from its runs (a file edited or
    forged: a continuation must not start from capital it did not earn)."""
    evidence = _EVIDENCE.validate_python(data)
    wrong = _inconsistency(evidence)
    if wrong is not None:
        raise ValueError(f"the saved sequential evidence cannot be continued: {wrong}")
    return evidence

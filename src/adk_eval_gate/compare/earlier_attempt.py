"""This run against an earlier attempt of the same workflow run (a job re-run with ``--sequential``): whether its
evidence can be continued, each case's evidence and runs to continue from, and a case's record once this attempt's
runs are added to them.

Continuing the same test, rather than starting it again, is what keeps "re-run until green" from manufacturing a
proof: every fresh start is a new chance of a false one, while the capitals of a continued test go on (the core's
``continue_evidence``). So a continuation must be of the same test on the same cases: it is refused, and every case
starts afresh, when the earlier attempt ran under other ``--sequential`` settings, another pass rule, other criteria
or judges (the like-for-like fingerprint), another commit or selection of cases, or cases whose content differs. The
document is untrusted (anyone who can push can make an artifact): what it claims of its decisions is never read; each
case's evidence is derived again from its runs' scores, as ``report`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adk_eval_gate import verdict
from adk_eval_gate.compare.likeforlike import differences
from adk_eval_gate.model.results import CaseResult, ResultsDocument, RunInfo
from adk_eval_gate.verdict import CaseEvidence, continue_evidence


@dataclass(frozen=True)
class NoEarlierAttempt:
    """Why there is nothing to continue: ``note`` is the one line to say (empty: nothing to say, a first attempt)."""

    note: str = ""


FindEarlierAttempt = Callable[[], "ResultsDocument | NoEarlierAttempt"]
"""The earlier attempt's lookup, I/O handed to ``run`` (``github.rerun.find`` bound to the settings and
the client)."""


@dataclass(frozen=True)
class Continued:
    """A case continued from the earlier attempt: its record there, its runs cut to those its evidence read and
    marked reopened after them, and the evidence this attempt starts from."""

    case: CaseResult
    evidence: CaseEvidence


@dataclass(frozen=True)
class Continuation:
    attempt: int
    cases: dict[str, Continued]


def refusal(
    earlier: ResultsDocument, *, head: ResultsDocument, attempt: int, expected: Mapping[str, Sequence[Any]]
) -> str | None:
    """Why the earlier attempt's evidence cannot be continued by this one (``head``: this run's settings and files
    as results.json records them; ``expected``: each planned case's expected turns), or None."""
    before, now = earlier.run, head.run
    if before.run_attempt is None or not 1 <= before.run_attempt < attempt:
        return f"its results do not record an attempt before this one ({attempt})"
    if before.sequential is None or before.sequential != now.sequential:
        return f"it ran with other --sequential settings ({_settings(before)}; now {_settings(now)})"
    if before.pass_rule != now.pass_rule:
        return f"it ran with --pass-rule {before.pass_rule}, now {now.pass_rule}"
    if before.sha != now.sha or before.selection != now.selection:
        return "it evaluated another commit or another selection of cases"
    found = differences(head, earlier)
    if found:
        return found[0].message
    for case in earlier.cases:
        if case.id in expected and list(case.expected) != list(expected[case.id]):
            return f"case {case.id} differs from what it ran"
    return None


def _settings(run: RunInfo) -> str:
    sequential = run.sequential
    if sequential is None:
        return "none"
    return (
        f"confidence {sequential.confidence:g}, margin {sequential.margin:g}, min-runs {sequential.min_runs}, "
        f"num-runs {sequential.max_runs}, undecided {sequential.undecided}"
    )


def continued_cases(earlier: ResultsDocument) -> dict[str, Continued]:
    """Each case of the earlier attempt with sequential evidence, decided again from its runs (the document's own
    claims are not read), and the evidence this attempt continues from."""
    decided, _ = verdict.redecide(earlier)
    run = decided.run.sequential
    if run is None:
        return {}
    found = {}
    for case in decided.cases:
        if case.carried is not None or case.sequential is None:
            continue
        ranges = case.sequential.ranges
        evidence = verdict.evidence_of(case, pass_rule=decided.run.pass_rule, run=run, ranges=ranges)
        if evidence is None or evidence.runs == 0:
            continue
        kept = sorted(case.runs, key=lambda record: record.run)[: evidence.runs]
        points = [point for point in case.sequential.reopened_at if point < evidence.runs]
        reopened = case.sequential.model_copy(update={"reopened_at": [*points, evidence.runs]})
        found[case.id] = Continued(
            case.model_copy(update={"runs": kept, "sequential": reopened}), continue_evidence(evidence)
        )
    return found


def _with_earlier_runs(continued: Continued, new: CaseResult | None, *, doc: ResultsDocument) -> CaseResult:
    """The case's record over the earlier attempt's runs and this one's (``new``; None: it spent none here), decided
    again on all of them under ``doc``'s settings."""
    base = new if new is not None else continued.case.model_copy(update={"usage": None})  # it spent nothing here
    runs = [*continued.case.runs, *(new.runs if new is not None else [])]
    combined = base.model_copy(update={"runs": runs, "sequential": continued.case.sequential})
    return verdict.decide_case(combined, pass_rule=doc.run.pass_rule, sequential=doc.run.sequential)


def continued_document(doc: ResultsDocument, continuation: Continuation) -> ResultsDocument:
    """``doc`` with each continued case's earlier runs before its runs here, the cases that needed none here
    included, in file and case order."""
    cases = {case.id: case for case in doc.cases}
    for case_id, continued in continuation.cases.items():
        cases[case_id] = _with_earlier_runs(continued, cases.get(case_id), doc=doc)
    files = {file.path: place for place, file in enumerate(doc.files)}
    ordered = sorted(cases.values(), key=lambda case: (files.get(case.file, len(files)), case.file, case.index))
    run = doc.run.model_copy(update={"continued_from_attempt": continuation.attempt})
    return doc.model_copy(update={"cases": ordered, "run": run})

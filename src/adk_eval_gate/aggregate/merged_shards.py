"""The results.json files of a sharded matrix run combined into one.

The merged document has the same cases, totals, metric summaries and status as an unsharded run; only the
timing fields of ``run`` differ. Each case is decided again from its runs (``verdict.decide_case``, with the pass
rule its shard recorded), as ``report`` decides saved results: a shard's own statuses and scores are not trusted.
The shards must be all of one run: each ``I/N`` once, for every I, with the same selection of cases and criteria
(``run.selection``) and the same commit (``shard_problem`` says which is not).
"""

from __future__ import annotations

import re

from adk_eval_gate import verdict
from adk_eval_gate.aggregate import records as aggregate
from adk_eval_gate.aggregate import usage
from adk_eval_gate.model.results import (
    CalibrationJudgeStats,
    CaseResult,
    FileResult,
    JudgeCalibration,
    JudgeStats,
    ResultsDocument,
    SuiteUsage,
)
from adk_eval_gate.support.errors import UsageError


def merge_documents(documents: list[ResultsDocument]) -> ResultsDocument:
    if not documents:
        raise UsageError("nothing to merge")
    cases: dict[str, CaseResult] = {}
    for document in documents:
        for case in document.cases:
            if case.id in cases:
                raise UsageError(
                    f"case {case.id!r} is in more than one input",
                    hint="merge the results of different shards of one run",
                )
            cases[case.id] = verdict.decide_case(
                case, pass_rule=document.run.pass_rule, sequential=document.run.sequential
            )
    files: dict[str, FileResult] = {}
    for document in documents:
        for file in document.files:
            files.setdefault(file.path, file)
    ordered_cases = sorted(cases.values(), key=lambda c: (c.file, c.index, c.eval_id))
    ordered_files = sorted(files.values(), key=lambda f: f.path)
    first = documents[0].run
    allow = all(d.run.allow_not_evaluated for d in documents)
    judge = None
    if any(d.judge for d in documents):
        judge = JudgeStats(
            **{field: sum(getattr(d.judge, field) for d in documents if d.judge) for field in JudgeStats.model_fields}
        )
    starts = [d.run.started_at for d in documents if d.run.started_at]
    durations = [d.run.duration_seconds for d in documents if d.run.duration_seconds is not None]
    interrupted = any(d.run.interrupted for d in documents)
    judge_models = [model for d in documents if d.usage and d.usage.judge for model in d.usage.judge.models]
    merged = aggregate.document(
        ordered_cases,
        ordered_files,
        judge=judge,
        judge_usage=usage.totals(usage.merged(judge_models)) if judge_models else None,
        prices=next((d.usage.prices for d in documents if d.usage and d.usage.prices), None),
        app_details={key: app for d in documents for key, app in d.app_details.items()},
        run=first.model_copy(
            update={
                "shard": None,
                "shards_merged": len(documents),
                "allow_not_evaluated": allow,
                "started_at": min(starts) if starts else None,
                "duration_seconds": max(durations) if durations else None,
                "interrupted": interrupted,
            }
        ),
    )
    return _with_calibrations(merged, documents)


def _with_calibrations(merged: ResultsDocument, documents: list[ResultsDocument]) -> ResultsDocument:
    """The judges' calibrations of the shards: each judge once (every shard calibrated it on the same labels, so
    they agree), and what calibrating cost every shard added up, apart from the evaluation's judge figures."""
    calibrations: dict[tuple[str, str, str], JudgeCalibration] = {}
    for document in documents:
        for calibration in document.calibrations:
            calibrations.setdefault((calibration.metric, calibration.judge_model, calibration.fingerprint), calibration)
    spent = [d.calibration_judge for d in documents if d.calibration_judge]
    models = [model for d in documents if d.usage and d.usage.calibration for model in d.usage.calibration.models]
    suite_usage = merged.usage
    if models:
        suite_usage = (suite_usage or SuiteUsage()).model_copy(
            update={"calibration": usage.totals(usage.merged(models))}
        )
    return merged.model_copy(
        update={
            "usage": suite_usage,
            "calibrations": list(calibrations.values()),
            "calibration_judge": CalibrationJudgeStats(
                **{field: sum(getattr(s, field) for s in spent) for field in CalibrationJudgeStats.model_fields}
            )
            if spent
            else None,
        }
    )


def shard_problem(documents: list[tuple[str, ResultsDocument]]) -> str | None:
    """Why these results are not the shards of one run (a shard missing or twice, another selection or commit)."""
    shards = [(shown, document.run.shard) for shown, document in documents]
    if len(documents) > 1 and any(shard is None for _, shard in shards):
        unsharded = next(shown for shown, shard in shards if shard is None)
        return f"{unsharded} is not a shard (no run.shard): merge the results of the shards of one --shard run"
    for field, what in (("selection", "selection of cases and criteria"), ("sha", "commit")):
        values = {getattr(document.run, field) for _, document in documents}
        if len(values) > 1:
            first_value = getattr(documents[0][1].run, field)
            other = next(shown for shown, document in documents if getattr(document.run, field) != first_value)
            return f"{other} is from another {what} than {documents[0][0]}"
    first_sequential = documents[0][1].run.sequential
    for shown, document in documents:
        if document.run.sequential != first_sequential:  # the evidence of each case merges only under one setting
            return f"{shown} was run with other --sequential settings than {documents[0][0]}"
    if shards and shards[0][1] is not None:
        parsed: list[tuple[str, int, int]] = []
        for shown, shard in shards:
            match = re.fullmatch(r"(\d+)/(\d+)", shard or "")
            if not match:
                return f"{shown} has a run.shard that is not I/N: {str(shard)[:40]!r}"
            parsed.append((shown, int(match[1]), int(match[2])))
        counts = sorted({count for _, _, count in parsed})
        if len(counts) > 1:
            return f"the shards are of different counts ({', '.join(map(str, counts))})"
        seen: dict[int, str] = {}
        for shown, index, count in parsed:
            if index in seen:
                return f"shard {index}/{count} is given twice: {seen[index]} and {shown}"
            seen[index] = shown
        missing = [f"{index}/{counts[0]}" for index in range(1, counts[0] + 1) if index not in seen]
        if missing:
            plural = "s" if len(missing) > 1 else ""
            return f"shard{plural} {', '.join(missing)} missing: {len(seen)} of {counts[0]} given"
    return None

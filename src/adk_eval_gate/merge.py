"""``adk-eval-gate merge``: combine the results.json files of a sharded matrix run into one.

The merged document has the same cases, totals, metric summaries and status as an unsharded run; only the
timing fields of ``run`` differ.
"""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate import aggregate
from adk_eval_gate.console import Console
from adk_eval_gate.errors import UsageError
from adk_eval_gate.load import read_json
from adk_eval_gate.results import CaseResult, FileResult, InvalidResults, JudgeStats, ResultsDocument, parse_document
from adk_eval_gate.settings import Settings


def load_results(path: Path, display: str | None = None) -> ResultsDocument:
    shown = display or str(path)
    if not path.is_file():
        raise UsageError(f"results file {shown!r} does not exist")
    _, data = read_json(path, shown)
    try:
        return parse_document(data, shown=shown)
    except InvalidResults as error:
        raise UsageError(str(error)) from None


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
            cases[case.id] = case
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
    return aggregate.document(
        ordered_cases,
        ordered_files,
        judge=judge,
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


def _inputs(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found.extend(sorted(path.rglob("results.json")))
        else:
            found.append(path)
    if not found:
        raise UsageError("no results.json found in the given folders")
    return found


def merge_command(settings: Settings, console: Console, *, inputs: list[str]) -> int:
    from adk_eval_gate.report.writer import results_json

    documents = [load_results(path) for path in _inputs(inputs)]
    merged = merge_documents(documents)
    target = settings.results_path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(results_json(merged), encoding="utf-8")
    console.line(f"merged {len(documents)} results into {target}: {merged.totals.cases} cases, {merged.status}")
    return 0

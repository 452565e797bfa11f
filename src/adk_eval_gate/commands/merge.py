"""``adk-eval-gate merge``: combine the results.json files of a sharded matrix run into one
(``aggregate.merged_shards``), and write it with its report.html; ``report`` writes the rest and publishes them.
The shards must be all of one run (``shard_problem``): anything else is a usage error that names the shard, because
a merge with a shard missing would pass the cases it never ran, unless ``--allow-incomplete``.
"""

from __future__ import annotations

from adk_eval_gate.aggregate.merged_shards import merge_documents, shard_problem
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.saved_results import load_results, results_files
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError


def merge_command(settings: Settings, console: Console, *, inputs: list[str], allow_incomplete: bool = False) -> int:
    from adk_eval_gate.finish.written import write_decided_reports
    from adk_eval_gate.report.html import page

    target = settings.results_path
    documents = [(str(path), load_results(path)) for path in results_files(inputs, target=target)]
    problem = shard_problem(documents)
    if problem and not allow_incomplete:
        raise UsageError(problem, field="merge", hint="download every shard's results, or pass --allow-incomplete")
    merged = merge_documents([document for _, document in documents])
    if problem:
        merged = merged.model_copy(update={"status": "error", "error": f"incomplete merge: {problem}"})
        console.error(f"incomplete merge: {problem}; the merged results have status error")
    if target.exists():
        console.warning(f"replacing {target}, written by an earlier run or merge")
    # results.json and report.html; junit.xml and the summary are written by `report`, which publishes them
    written = write_decided_reports(
        merged, settings=settings, console=console, renderers={settings.html_path: page.render}
    )
    merged = written.doc
    console.line(f"merged {len(documents)} results into {target}: {merged.totals.cases} cases, {merged.status}")
    return 2 if problem else 0

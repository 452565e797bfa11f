"""``adk-eval-gate label RESULTS``: a labels file from a run's judged turns, for people to confirm.

Each turn a judge metric scored becomes a label with the judge's verdict filled in as a suggestion and
``confirmed: false`` (``model/suggested_labels.py``, which report.html's labelling view shows too): a suggestion
never counts until a person confirms it (or flips it and confirms it)."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.inputs import formats
from adk_eval_gate.inputs.saved_results import load_results
from adk_eval_gate.model.judge_labels import dumped
from adk_eval_gate.model.suggested_labels import suggested_labels
from adk_eval_gate.support.atomic import write_atomically
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.words import plural

DEFAULT_OUTPUT = f"suggested{formats.JUDGE_LABELS.suffixes[0]}"


def label_command(console: Console, *, results_file: str, output: str | None) -> int:
    doc = load_results(Path(results_file))
    labels = suggested_labels(doc)
    if not labels.labels:
        raise UsageError(
            f"{results_file} has no turn a judge metric scored", hint="run with an LLM judge metric in the criteria"
        )
    target = Path(output or DEFAULT_OUTPUT)
    if not write_atomically(target, dumped(labels)):
        raise UsageError(f"cannot write {target}", field="output")
    console.line(
        f"wrote {target}: {plural(len(labels.labels), 'suggested label')}, none confirmed: check each, flip the "
        'ones the judge got wrong, and set "confirmed": true'
    )
    return 0

"""``adk-eval-gate validate``: load and check every eval file and config; no agent, no network."""

from __future__ import annotations

from adk_eval_gate.console import Console
from adk_eval_gate.prepare import prepare
from adk_eval_gate.report.sections import plural
from adk_eval_gate.settings import Settings


def validate(settings: Settings, console: Console) -> int:
    prepared = prepare(settings, console)
    for file in prepared.files:
        if not file.error:
            console.line(f"ok   {file.path}: {plural(file.cases, 'case')} ({file.format}), criteria from {file.config}")
    bad = len(prepared.errors)
    total = len(prepared.files)
    if bad:
        console.line(f"{bad} of {total} files have problems")
        return 2
    console.line(f"all {total} files are valid")
    return 0

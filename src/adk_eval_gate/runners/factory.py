"""Choose the runner named by ``--runner``."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.console import Console
from adk_eval_gate.runners.base import Runner
from adk_eval_gate.settings import Settings


def make_runner(settings: Settings, *, root: Path, console: Console | None = None) -> Runner:
    if settings.runner == "recorded":
        from adk_eval_gate.runners.recorded import RecordedRunner

        assert settings.recorded is not None
        return RecordedRunner(settings.recorded, display=str(settings.recorded))
    if settings.runner == "http":
        from adk_eval_gate.runners.http import HttpRunner

        return HttpRunner(settings, console=console)
    from adk_eval_gate.runners.adk import AdkRunner

    return AdkRunner(settings, root=root, console=console)

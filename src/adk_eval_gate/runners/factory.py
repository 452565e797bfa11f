"""Build the runner named by ``--runner``: one builder per name of ``config.runner_kinds.RUNNER_KINDS``."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from adk_eval_gate.config.runner_kinds import RUNNER_KINDS
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.runners.runner import Runner
from adk_eval_gate.runners.workers.starter import Starter
from adk_eval_gate.support.console import Console


def make_runner(
    settings: Settings,
    *,
    root: Path,
    console: Console | None = None,
    planned: list[PlannedFile] | None = None,
    starter: Starter | None = None,
) -> Runner:
    """The runner of ``--runner``; behind the dataset rows that need none when ``planned`` has such rows.
    ``starter``: the adk runner's worker starter, started early (``runners.adk.start_early``)."""
    if any(file.loaded.recorded or file.loaded.row_errors for file in planned or []):
        from adk_eval_gate.runners.dataset_rows import DatasetRunner

        return DatasetRunner(
            lambda: chosen_runner(settings, root=root, console=console, starter=starter), name=settings.runner
        )
    return chosen_runner(settings, root=root, console=console, starter=starter)


def chosen_runner(
    settings: Settings, *, root: Path, console: Console | None = None, starter: Starter | None = None
) -> Runner:
    return BUILDERS[settings.runner](settings, root=root, console=console, starter=starter)


class _Builder(Protocol):
    def __call__(
        self, settings: Settings, *, root: Path, console: Console | None, starter: Starter | None
    ) -> Runner: ...


# Each builder imports its runner when used: `--help` and the runners not chosen import none.
def _recorded(settings: Settings, *, root: Path, console: Console | None, starter: Starter | None) -> Runner:
    from adk_eval_gate.runners.recorded import RecordedRunner

    assert settings.recorded is not None
    return RecordedRunner(settings.recorded, display=str(settings.recorded))


def _http(settings: Settings, *, root: Path, console: Console | None, starter: Starter | None) -> Runner:
    from adk_eval_gate.runners.http import HttpRunner

    return HttpRunner(settings, console=console)


def _a2a(settings: Settings, *, root: Path, console: Console | None, starter: Starter | None) -> Runner:
    from adk_eval_gate.runners.a2a import A2aRunner

    return A2aRunner(settings, console=console)


def _adk(settings: Settings, *, root: Path, console: Console | None, starter: Starter | None) -> Runner:
    from adk_eval_gate.runners.adk import AdkRunner

    return AdkRunner(settings, root=root, console=console, starter=starter, observe_inputs=settings.command == "run")


# One builder per name of config.runner_kinds.RUNNER_KINDS, which says what each runner can do.
BUILDERS: dict[str, _Builder] = {"adk": _adk, "http": _http, "a2a": _a2a, "recorded": _recorded}
assert set(BUILDERS) == set(RUNNER_KINDS), "every runner of config.runner_kinds has a builder here, and no other"

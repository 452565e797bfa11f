"""What each case depends on, recorded by every ``run``, and ``--only-affected``: before the runs, the cases this
change can touch (``selection.affected`` on the baseline's recorded inputs, git's changed files and what the checkout
holds of those inputs, ``selection.checkout``) are the only work items, the others are carried from the baseline;
anything uncertain runs everything, with one line why."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adk_eval_gate.aggregate.pricing import Prices
from adk_eval_gate.aggregate.run_info import adk_version
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.discover import display_path
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.judge import platform_access
from adk_eval_gate.model.results import AffectedRun, CaseResult
from adk_eval_gate.runners.workers.observe import ModuleIndex
from adk_eval_gate.selection import affected, checkout, environment_inputs, git_changes
from adk_eval_gate.selection.found_baseline import Baseline, NoBaseline
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.words import plural

FILES_NAMED = 3  # changed files named in the log line that says why everything runs


@dataclass(frozen=True)
class Inputs:
    """What this run records of its cases' inputs, per eval file, and of the environment's."""

    root: Path
    digests: dict[str, str] = field(default_factory=dict)  # eval file -> its settings digest
    files: dict[str, list[str]] = field(default_factory=dict)  # eval file -> its file, config, initial session
    functions: dict[str, list[str]] = field(default_factory=dict)  # eval file -> its custom metric functions
    environment: list[str] = field(default_factory=list)
    environment_unknown: str | None = None  # why the environment's inputs are not all known (every case runs)
    commit: str | None = None  # GITHUB_SHA, else git's HEAD
    outputs: list[str] = field(default_factory=list)  # the gate's reports and cache: never among a listing's names
    states: dict[str, str] = field(default_factory=dict)  # each input's state as the run ended (checkout.survey)

    @classmethod
    def of(cls, settings: Settings, *, planned: list[PlannedFile], root: Path, prices: Prices) -> Inputs:
        run = affected.run_settings(settings, prices=prices.table.model_dump(mode="json"))
        found = environment_inputs.environment_inputs(git_changes.tracked_files(root), settings.requirements, root)
        service = platform_access.choose(settings.environment).service
        return cls(
            root=root,
            digests={file.loaded.display: affected.settings_digest(file, run, service=service) for file in planned},
            files={file.loaded.display: affected.file_inputs(file, root) for file in planned},
            functions={
                file.loaded.display: [
                    custom.code_config.name for custom in (file.config.config.custom_metrics or {}).values()
                ]
                for file in planned
            },
            environment=found.files,
            environment_unknown=found.unknown,
            commit=settings.github.sha or git_changes.head_commit(root),
            outputs=outputs_of(settings, root),
        )

    @functools.cached_property
    def _code(self) -> dict[str, list[str] | None]:
        """Per eval file, the files of its custom metrics' code (imported by now), None when not all are known."""
        index = ModuleIndex(self.root)
        return {display: affected.function_files(functions, index) for display, functions in self.functions.items()}

    def recorded(self, case: CaseResult, observed: list[list[str] | None]) -> CaseResult:
        """The case that ran with its inputs (the files its agent used in each of its runs, ``observed``, and the
        code of its custom metrics); a carried one keeps the base run's."""
        if case.carried is not None or case.file not in self.digests:
            return case
        code = self._code[case.file]
        files = [*self.files[case.file], *(code or [])]
        new = {path for used in [files, *observed] for path in used or [] if path not in self.states}
        self.states.update(checkout.survey(sorted(new), root=self.root, skipped=self.outputs))
        inputs = affected.case_inputs(
            files, observed, settings=self.digests[case.file], states=self.states, complete=code is not None
        )
        return case.model_copy(update={"inputs": inputs})


def outputs_of(settings: Settings, root: Path) -> list[str]:
    """This gate's own reports and cache folder, as repository paths (those inside the repository)."""
    paths = [settings.output_dir, settings.results_path, settings.junit_path, settings.summary_path, settings.html_path]
    paths += [settings.cache_dir] if settings.cache_dir is not None else []
    found = [display_path(path.resolve(), root) for path in paths]
    return sorted({path for path in found if not path.startswith(("/", "..")) and path != "."})


@dataclass
class Affected:
    """The work items to run, the cases carried from the baseline, and what --only-affected did (None: not asked)."""

    items: list[WorkItem]
    carried: dict[str, CaseResult] = field(default_factory=dict)
    info: AffectedRun | None = None
    apps: dict[str, dict[str, Any]] = field(default_factory=dict)  # the base run's app details the carried name


def choose(
    settings: Settings, *, inputs: Inputs, items: list[WorkItem], found: Baseline | NoBaseline, console: Console
) -> Affected:
    """With ``--only-affected``, the items of the cases this change can touch; the others carried."""
    if not settings.only_affected:
        return Affected(items)
    cases = {item.case_id: inputs.digests[item.file.loaded.display] for item in items}
    known = _changes(settings, inputs=inputs, found=found)
    if isinstance(known, str):
        console.line(f"Only affected: every case runs: {known}")
        return Affected(items, info=AffectedRun(ran=len(cases), everything=known))
    assert isinstance(found, Baseline)
    base_sha, now = known
    changed = now.changed
    selection = affected.select(cases, base=found.doc, info=found.info, checkout=now)
    ran = len(cases) - len(selection.carried)
    console.line(
        f"Only affected: {ran} of {plural(len(cases), 'case')} run, the others depend on nothing changed since "
        f"{base_sha[:7]} ({plural(len(changed), 'file')} changed); carried from {found.info.description}"
    )
    if settings.verbose:
        for case_id, reason in selection.reasons.items():
            console.line(f"  {case_id} runs: {reason}")
    return Affected(
        [item for item in items if item.case_id not in selection.carried],
        selection.carried,
        AffectedRun(base_sha=base_sha, changed_files=len(changed), ran=ran, carried=len(selection.carried)),
        _apps_named(selection.carried.values(), found.doc.app_details),
    )


def _apps_named(cases: Iterable[CaseResult], table: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The entries of a results.json's app details table that the cases' compact turns name."""
    named = [record.act.get("app") for case in cases for run in case.runs for record in run.invocations if record.act]
    keys = {key for key in named if isinstance(key, str)}  # a baseline is untrusted: a key may be anything
    return {key: app for key, app in table.items() if key in keys}


def _changes(
    settings: Settings, *, inputs: Inputs, found: Baseline | NoBaseline
) -> tuple[str, affected.Checkout] | str:
    """The baseline's commit and what changed since, or why what the change can touch is not known."""
    if not settings.runner_kind.observes_inputs:
        return f"the {settings.runner} runner's agent does not run here, so what its cases depend on is not known"
    if isinstance(found, NoBaseline):
        return f"there is no baseline to carry results from ({found.note})"
    base = found.doc
    if not any(case.inputs is not None and case.inputs.observed for case in base.cases):
        return "the baseline did not record what its cases depend on (it ran without the adk runner, or before " + (
            "adk-eval-gate recorded inputs)"
        )
    different = affected.version_difference(base, adk_version=adk_version())
    if different:
        return different
    base_sha = base.run.sha or found.info.sha
    if not base_sha:
        return "the baseline does not say which commit it ran"
    changes = git_changes.changed_since(base_sha, root=inputs.root, fetch=settings.github.in_actions)
    if isinstance(changes, git_changes.Unknown):
        return changes.reason
    outputs = display_path(settings.output_dir.resolve(), inputs.root) + "/"  # this gate's own reports
    changed = frozenset(path for path in changes.files if not path.startswith(outputs))
    if inputs.environment_unknown:
        return f"what the environment depends on is not known: {inputs.environment_unknown}"
    every = sorted({*inputs.environment, *base.run.environment_inputs})
    everything = environment_inputs.changes_to_everything(changed, environment=every, always=settings.always_affected)
    if everything:
        named = ", ".join(everything[:FILES_NAMED]) + (
            f" and {len(everything) - FILES_NAMED} more" if len(everything) > FILES_NAMED else ""
        )
        verb = "changed: they are inputs" if len(everything) > 1 else "changed: it is an input"
        always = settings.option_name("always_affected")
        return f"{named} {verb} of every case (a dependency of the environment, or matched by {always})"
    return base_sha, _checkout(base.cases, changed=changed, inputs=inputs)


def _checkout(cases: list[CaseResult], *, changed: frozenset[str], inputs: Inputs) -> affected.Checkout:
    """What the checkout holds now of the inputs the base cases recorded."""
    paths = sorted({path for case in cases if case.inputs is not None for path in case.inputs.files})
    states = checkout.survey(paths, root=inputs.root, skipped=inputs.outputs)
    files = any(state == checkout.FILE for state in states.values())
    tracked = frozenset(git_changes.tracked_files(inputs.root, submodules=True)) if files else frozenset()
    return affected.Checkout(changed=changed, states=states, tracked=tracked)

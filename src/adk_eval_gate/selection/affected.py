"""``--only-affected``: what each case depends on (its inputs, recorded in results.json), and, against a baseline
that recorded them, which cases a change can touch. Pure: the changed files come from ``git_changes``, what the
checkout holds of the inputs from ``checkout``.

A case's inputs are its eval file, its config, the paths its agent and its metrics used (``runners/workers/observe.py``:
the modules imported, the files opened, checked or looked for, the folders listed, inside the repository, while
they loaded and ran) and a digest of the gate's settings that change its scores or status. The environment's
dependency files and ``--always-affected`` globs are inputs of every case (``environment_inputs``). A case runs when one
of its base inputs changed (git says so, or it appeared or disappeared, or a folder it listed holds other names,
or git cannot compare it), its settings differ, it is new, the baseline has no inputs for it or could not evaluate
it (an error); every other case is carried from the baseline, as it was decided there.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from adk_eval_gate import __version__
from adk_eval_gate.aggregate.run_info import criteria_digests, judge_settings
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.agent_sources import AgentChoice
from adk_eval_gate.inputs.configs import ConfigSource
from adk_eval_gate.inputs.discover import display_path
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.judge import platform_access
from adk_eval_gate.model.results import BaselineInfo, Carried, CaseInputs, CaseResult, JudgeSetting, ResultsDocument
from adk_eval_gate.runners.workers.observe import ModuleIndex, repository_files
from adk_eval_gate.selection import checkout as checkout_states


def digest(data: object) -> str:
    encoded = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


def run_settings(settings: Settings, *, prices: object) -> dict[str, object]:
    """The options that change every case's scores or status (``prices``: the price table, as data)."""
    return {
        "runner": settings.runner,
        "agent": settings.agent,
        "num_runs": settings.num_runs,
        "pass_rule": settings.pass_rule,
        "confirm_failures": settings.confirm_failures,
        "timeout": settings.timeout,
        "prices": digest(prices),
    }


def settings_digest(planned: PlannedFile, run: dict[str, object], *, service: bool = False) -> str:
    """The digest of what changes the scores or status of this file's cases: ``run`` (``run_settings``), the
    file's criteria with their thresholds, its judges (``service``: Google's evaluation service computes ADK's
    service-backed metrics) and its budgets."""
    metrics = planned.config.metrics
    budgets = planned.config.config.budgets
    judges = judge_settings(metrics, service=service)
    agent = planned.agent.ref if isinstance(planned.agent, AgentChoice) else None
    found = {"agent_found": [agent.display, agent.sub_agent]} if agent else {}  # a new mapping or call changes it
    return digest(
        {
            **run,
            "criteria": criteria_digests(metrics)[0],
            "judges": {name: _judge_digest(judge) for name, judge in judges.items()},
            "budgets": budgets.model_dump(mode="json") if budgets is not None else None,
            **found,
            **({"file_runs": planned.num_runs} if planned.num_runs else {}),
        }
    )


def _judge_digest(judge: JudgeSetting) -> dict[str, object]:
    """A judge as the digest sees it; the gate's judge as before ``computed_by`` was recorded, so that the
    digests of earlier baselines still match."""
    dumped: dict[str, object] = judge.model_dump()
    if judge.computed_by != platform_access.AGENT_PLATFORM:
        dumped.pop("computed_by", None)
    return dumped


def file_inputs(planned: PlannedFile, root: Path) -> list[str]:
    """The files every case of an eval file depends on whatever its agent does: the file, its config (both names
    when both are there) and the code files it names (agents-cli's custom_function_file), its initial session file,
    the test module or manifest that named its agent; those inside the repository only (a config elsewhere counts
    through its digest)."""
    loaded = planned.loaded
    paths = [Path(loaded.path), *_config_paths(planned.config.source), *planned.config.files]
    if isinstance(planned.agent, AgentChoice) and planned.agent.origin:  # the test module or manifest naming it
        paths.append(root / planned.agent.origin)
    if loaded.initial_session_file:
        paths.append(Path(loaded.path).parent / Path(loaded.initial_session_file).name)
    found = [display_path(path, root) for path in paths]
    return [path for path in found if not path.startswith("/") and not path.startswith("..")]


def _config_paths(source: ConfigSource) -> list[Path]:
    return [path for path in (source.path, source.twin) if path is not None]


def function_files(functions: list[str], index: ModuleIndex) -> list[str] | None:
    """The repository files of the custom metric functions (``package.module.function``) scoring imported in this
    process, with their imports; None when one was never imported (what it depends on is not known)."""
    files: set[str] = set()
    for function in functions:
        file = _module_file(function.rpartition(".")[0], root=index.root)
        if file is None:
            return None
        files |= repository_files([file], index.root)  # an installed package's: not the repository's
    return sorted(index.with_imports(files))


def _module_file(module: str, *, root: Path) -> str | None:
    """The file of ``module``: as imported in this process, else as the import system would find it, without
    running any of its code (custom metrics are imported only in processes of their own)."""
    file = getattr(sys.modules.get(module), "__file__", None)
    if isinstance(file, str):
        return file
    search: list[str] | None = [str(root), *sys.path]
    spec = None
    for part in module.split("."):
        if search is None:  # a module's submodule: no such module
            return None
        spec = importlib.machinery.PathFinder.find_spec(part, search)
        if spec is None:
            return None
        search = list(spec.submodule_search_locations) if spec.submodule_search_locations is not None else None
    return spec.origin if spec is not None and spec.has_location else None


def case_inputs(
    files: list[str],
    observed: Sequence[list[str] | None],
    *,
    settings: str,
    states: Mapping[str, str],
    complete: bool = True,
) -> CaseInputs:
    """A case's inputs once it ran: ``files`` (``file_inputs``, the metrics' code) and what its agent and metrics
    used in each run, ``observed`` (None: that run could not say; ``complete``: the files are all known), with
    those absent and the listed folders' names as the run ended (``states``: ``checkout.survey`` of them all)."""
    paths = sorted({path for used in observed if used is not None for path in used}.union(files))
    return CaseInputs(
        files=paths,
        absent=[path for path in paths if not path.endswith("/") and states.get(path) == checkout_states.ABSENT],
        listings={path: states.get(path, checkout_states.ABSENT) for path in paths if path.endswith("/")},
        settings=settings,
        observed=complete and bool(observed) and all(used is not None for used in observed),
    )


@dataclass(frozen=True)
class Checkout:
    """What this checkout holds of the baseline's inputs: the paths git says changed since the baseline's commit
    (``git_changes``), each input's state now (``checkout.survey``), and the files git tracks."""

    changed: frozenset[str]
    states: Mapping[str, str]
    tracked: frozenset[str]

    @functools.cached_property
    def changed_in(self) -> frozenset[str]:
        """The folders (``a/b/``, the root's ``./``) that directly hold a changed path."""
        return frozenset(path.rpartition("/")[0] + "/" if "/" in path else "./" for path in self.changed)


def touched(inputs: CaseInputs, checkout: Checkout) -> str | None:
    """Why a change touches a case with these base inputs (its first input that changed, in words), or None.

    An input changed when git names it or a path above it (a submodule, a symbolic link, a file that became a
    folder: every path under it changed); when it exists now and did not when the base run ended, or the other way
    round; when a folder the case listed holds other names, or a file directly in it changed; when it is a file git
    does not track (ignored, or not added yet), which git cannot compare (a file reached through a tracked symbolic
    link is compared through the link and what it leads to, both inputs)."""
    absent = set(inputs.absent)
    for path in inputs.files:
        above = _changed_above(path, checkout.changed)
        if above is not None:
            return f"{path} changed" if above == path.rstrip("/") else f"{path} is under {above}, which changed"
        now = checkout.states.get(path)
        if path.endswith("/"):
            if now != inputs.listings.get(path):
                return f"the folder {path} holds other names"
            if path in checkout.changed_in:  # a listing also tells each file's size and time (DirEntry.stat)
                return f"a file in the folder {path} changed"
        elif now == checkout_states.OUTSIDE:
            return f"{path} is not a path of the repository"
        elif (now == checkout_states.ABSENT) != (path in absent):
            return f"{path} {'disappeared' if path not in absent else 'appeared'}"
        elif now == checkout_states.FILE and not _tracked(path, checkout.tracked):
            return f"{path} is not tracked by git (ignored, or not added), so whether it changed cannot be known"
    return None


def _tracked(path: str, tracked: frozenset[str]) -> bool:
    """Git tracks the file, or a symbolic link it is reached through (what the link leads to is an input too)."""
    parts = path.split("/")
    return any("/".join(parts[:index]) in tracked for index in range(len(parts), 0, -1))


def _changed_above(path: str, changed: frozenset[str]) -> str | None:
    """The path itself, or the nearest folder above it, that git says changed."""
    parts = path.rstrip("/").split("/")
    for index in range(len(parts), 0, -1):
        candidate = "/".join(parts[:index])
        if candidate in changed and candidate != ".":
            return candidate
    return None


def version_difference(base: ResultsDocument, *, adk_version: str | None) -> str | None:
    """Why the baseline's scores are not this version's: another gate or google-adk version."""
    if base.run.tool_version != __version__:
        made = base.run.tool_version or "an unknown version"
        return f"the baseline was made by adk-eval-gate {made}, this is {__version__}"
    if base.run.adk_version and adk_version and base.run.adk_version != adk_version:
        return f"the baseline ran google-adk {base.run.adk_version}, this runs {adk_version}"
    return None


@dataclass
class Selection:
    """Which cases run and which are carried from the baseline, and why each one runs."""

    carried: dict[str, CaseResult] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)  # case id -> why it runs


def select(cases: dict[str, str], *, base: ResultsDocument, info: BaselineInfo, checkout: Checkout) -> Selection:
    """``cases``: this run's case ids with their settings digests (``settings_digest``)."""
    by_id = {case.id: case for case in base.cases}
    unfinished = set(base.run.unfinished)
    selection = Selection()
    for case_id, settings in cases.items():
        base_case = by_id.get(case_id)
        reason = _why_it_runs(base_case, settings=settings, checkout=checkout, unfinished=unfinished)
        if reason is not None:
            selection.reasons[case_id] = reason
        elif base_case is not None:
            selection.carried[case_id] = _carried_case(base_case, base=base, info=info)
    return selection


def _why_it_runs(case: CaseResult | None, *, settings: str, checkout: Checkout, unfinished: set[str]) -> str | None:
    if case is None:
        return "new"
    if case.inputs is None or not case.inputs.observed or case.id in unfinished:
        return "its inputs were not recorded"
    if case.error is not None:  # an error case (the verdict gives it its first error)
        return "it could not be evaluated on the base branch"
    if case.inputs.settings != settings:
        return "its settings changed"
    return touched(case.inputs, checkout)


def _carried_case(case: CaseResult, *, base: ResultsDocument, info: BaselineInfo) -> CaseResult:
    """The base run's case as this run's, marked with the run it came from (the first one, when it was carried
    there too); quarantine and the comparison with the base branch are this run's to decide."""
    origin = case.carried or Carried(
        sha=base.run.sha or info.sha, run_url=info.run_url or base.run.run_url, description=info.description
    )
    return case.model_copy(update={"carried": origin, "quarantined": False, "failing_on_base": False})

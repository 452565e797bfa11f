"""``--only-affected``: what each case depends on (its inputs, recorded in results.json), and, against a baseline
that recorded them, which cases a change can touch. Pure: the changed files come from ``git_changes``.

A case's inputs are its eval file, its config, the files its agent used (``runners/observe.py``: the modules it
imported and the files it opened or listed inside the repository, while it loaded and ran) and a digest of the
gate's settings that change its scores or status. The environment's dependency files (requirements, pyproject.toml,
lock files, the workflows, the action's ``requirements`` input) and ``--always-affected`` globs are inputs of every
case. A case runs when one of its base inputs changed, its settings differ, it is new, the baseline has no inputs
for it or could not evaluate it (an error); every other case is carried from the baseline, as it was decided there.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from adk_eval_gate import __version__
from adk_eval_gate.compare import likeforlike
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.configs import ConfigSource
from adk_eval_gate.inputs.discover import SKIPPED_DIRS, display_path, glob_to_regex
from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.judge import platform_access
from adk_eval_gate.model.results import BaselineInfo, Carried, CaseInputs, CaseResult, JudgeSetting, ResultsDocument
from adk_eval_gate.runners.observe import ModuleIndex, repository_files

ENVIRONMENT_FILES = re.compile(
    r"(?:^|/)(?:requirements[^/]*\.(?:txt|in)|constraints[^/]*\.txt|pyproject\.toml|setup\.(?:py|cfg)|Pipfile"
    r"|Pipfile\.lock|poetry\.lock|uv\.lock|pdm\.lock|pylock[^/]*\.toml|environment\.ya?ml)\Z"
    r"|\A\.github/workflows/[^/]+\.ya?ml\Z"
)
"""The environment's dependency files, anywhere in the repository, and the workflows that set it up."""


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
    judges = likeforlike.judge_settings(metrics, service=service)
    return digest(
        {
            **run,
            "criteria": likeforlike.criteria_digests(metrics)[0],
            "judges": {name: _judge_digest(judge) for name, judge in judges.items()},
            "budgets": budgets.model_dump(mode="json") if budgets is not None else None,
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
    """The files every case of an eval file depends on whatever its agent does: the file, its config, its
    initial session file; those inside the repository only (a config elsewhere counts through its digest)."""
    loaded = planned.loaded
    paths = [Path(loaded.path), *_config_paths(planned.config.source)]
    if loaded.initial_session_file:
        paths.append(Path(loaded.path).parent / Path(loaded.initial_session_file).name)
    found = [display_path(path, root) for path in paths]
    return [path for path in found if not path.startswith("/") and not path.startswith("..")]


def _config_paths(source: ConfigSource) -> list[Path]:
    return [source.path] if source.path is not None else []


def function_files(functions: list[str], index: ModuleIndex) -> list[str] | None:
    """The repository files of the custom metric functions (``package.module.function``) scoring imported in this
    process, with their imports; None when one was never imported (what it depends on is not known)."""
    files: set[str] = set()
    for function in functions:
        file = getattr(sys.modules.get(function.rpartition(".")[0]), "__file__", None)
        if not isinstance(file, str):
            return None
        files |= repository_files([file], index.root)  # an installed package's: not the repository's
    return sorted(index.with_imports(files))


def case_inputs(
    files: list[str], observed: Sequence[list[str] | None], *, settings: str, complete: bool = True
) -> CaseInputs:
    """A case's inputs once it ran: ``files`` (``file_inputs``, the metrics' code) and what its agent used in each
    run, ``observed`` (None: that run could not say; ``complete``: the files are all known)."""
    used = {path for paths in observed if paths is not None for path in paths}
    return CaseInputs(
        files=sorted(used.union(files)),
        settings=settings,
        observed=complete and bool(observed) and all(paths is not None for paths in observed),
    )


def environment_inputs(tracked: Iterable[str], requirements: str | None, root: Path) -> list[str]:
    """The dependency files of the environment among ``tracked``, with the action's ``requirements`` file."""
    found = {path for path in tracked if ENVIRONMENT_FILES.search(path)}
    if requirements and requirements != "pyproject":
        path = display_path(Path(requirements).resolve(), root)
        if not path.startswith(("/", "..")):
            found.add(path)
    return sorted(found)


def changes_to_everything(changed: frozenset[str], *, environment: list[str], always: list[str]) -> list[str]:
    """The changed files that are inputs of every case: dependency files (``environment``, and any file named
    like one), and the files ``--always-affected`` globs match."""
    patterns = [glob_to_regex(glob.strip().removeprefix("./")) for glob in always]
    found = []
    for path in sorted(changed):
        if SKIPPED_DIRS.intersection(path.split("/")[:-1]):
            continue  # a virtualenv or tool folder inside the checkout
        if path in environment or ENVIRONMENT_FILES.search(path) or any(p.match(path) for p in patterns):
            found.append(path)
    return found


def touches(inputs: list[str], changed: frozenset[str]) -> bool:
    """A changed file is one of the inputs, or was added to or removed from a folder the agent listed."""
    if not changed.isdisjoint(inputs):
        return True
    folders = {path for path in inputs if path.endswith("/")}
    return bool(folders) and any(path.rpartition("/")[0] + "/" in folders for path in changed)


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


def select(cases: dict[str, str], *, base: ResultsDocument, info: BaselineInfo, changed: frozenset[str]) -> Selection:
    """``cases``: this run's case ids with their settings digests (``settings_digest``)."""
    by_id = {case.id: case for case in base.cases}
    unfinished = set(base.run.unfinished)
    selection = Selection()
    for case_id, settings in cases.items():
        base_case = by_id.get(case_id)
        reason = _why_it_runs(base_case, settings=settings, changed=changed, unfinished=unfinished)
        if reason is not None:
            selection.reasons[case_id] = reason
        elif base_case is not None:
            selection.carried[case_id] = carried_case(base_case, base=base, info=info)
    return selection


def _why_it_runs(
    case: CaseResult | None, *, settings: str, changed: frozenset[str], unfinished: set[str]
) -> str | None:
    if case is None:
        return "new"
    if case.inputs is None or not case.inputs.observed or case.id in unfinished:
        return "its inputs were not recorded"
    if case.error is not None:  # an error case (the verdict gives it its first error)
        return "it could not be evaluated on the base branch"
    if case.inputs.settings != settings:
        return "its settings changed"
    if touches(case.inputs.files, changed):
        return "an input changed"
    return None


def carried_case(case: CaseResult, *, base: ResultsDocument, info: BaselineInfo) -> CaseResult:
    """The base run's case as this run's, marked with the run it came from (the first one, when it was carried
    there too); quarantine and the comparison with the base branch are this run's to decide."""
    origin = case.carried or Carried(
        sha=base.run.sha or info.sha, run_url=info.run_url or base.run.run_url, description=info.description
    )
    return case.model_copy(update={"carried": origin, "quarantined": False, "failing_on_base": False})

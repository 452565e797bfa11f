"""Work items: every selected case of every loaded file, ``--num-runs`` times, restricted to a ``--shard``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from adk_eval_gate.config.shard import Shard
from adk_eval_gate.inputs.agent_sources import AgentChoice, NoAgent
from adk_eval_gate.inputs.configs import LoadedConfig
from adk_eval_gate.inputs.load import LoadedEvalSet
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.support.errors import UsageError
from adk_eval_gate.support.words import did_you_mean


@dataclass(frozen=True)
class PlannedFile:
    loaded: LoadedEvalSet
    config: LoadedConfig
    case_ids: tuple[str, ...]  # the selection given on the command line; empty: all
    agent: AgentChoice | NoAgent | None = None  # None: not looked for (a runner that needs none, or a test's file)
    num_runs: int | None = None  # the runs of the AgentEvaluator call that names the file, unless --num-runs is given


@dataclass(frozen=True)
class WorkItem:
    file: PlannedFile
    case: EvalCase
    case_index: int
    run: int  # 1-based
    confirmation: bool = False  # a re-run of --confirm-failures

    @property
    def case_id(self) -> str:
        return case_id(self.file.loaded.display, self.case.eval_id)


def case_id(display: str, eval_id: str) -> str:
    return f"{display}::{eval_id}"


def select_cases(planned: PlannedFile) -> list[tuple[int, EvalCase]]:
    """The cases chosen by ``file:case1,case2`` (all when none); an unknown id is a usage error."""
    cases = list(enumerate(planned.loaded.eval_set.eval_cases))
    if not planned.case_ids:
        return cases
    known = {case.eval_id for _, case in cases}
    unknown = [case_id for case_id in planned.case_ids if case_id not in known]
    if unknown:
        close = did_you_mean(unknown[0], known)
        raise UsageError(
            f"no case {unknown[0]!r} in {planned.loaded.display}",
            field="paths",
            hint=f"did you mean {close!r}?" if close else f"its cases are: {', '.join(sorted(known)[:10])}",
        )
    wanted = set(planned.case_ids)
    return [(index, case) for index, case in cases if case.eval_id in wanted]


RunCount = Callable[[PlannedFile, EvalCase], "int | None"]


def selection_digest(files: list[PlannedFile], *, num_runs: int) -> str:
    """What every shard of one run has in common: the selected cases, their criteria, each file's runs and
    ``--num-runs``."""
    selection = [
        [
            planned.loaded.display,
            [case.eval_id for _, case in select_cases(planned)],
            [
                [metric.name, metric.criterion.model_dump(mode="json") if metric.criterion else None]
                for metric in planned.config.metrics
            ],
            *([planned.num_runs] if planned.num_runs else []),
        ]
        for planned in files
    ]
    encoded = json.dumps([selection, num_runs], sort_keys=True, default=str).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


def plan(
    files: list[PlannedFile], *, num_runs: int, shard: Shard | None, run_count: RunCount | None = None
) -> list[WorkItem]:
    """Work items in file order, then case order, then run order.

    ``run_count`` overrides ``num_runs`` for the cases it gives a number (the recorded runner has as many runs
    as were recorded); a file's own ``num_runs`` (its AgentEvaluator call's) overrides it for the file's cases.
    """
    items: list[WorkItem] = []
    for planned in files:
        for index, case in select_cases(planned):
            if shard and not shard.owns(case_id(planned.loaded.display, case.eval_id)):
                continue
            runs = (run_count(planned, case) if run_count else None) or planned.num_runs or num_runs
            items.extend(WorkItem(planned, case, index, run) for run in range(1, runs + 1))
    return items

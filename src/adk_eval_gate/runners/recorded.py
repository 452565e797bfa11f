"""The recorded runner: actual invocations from ADK result files or from one of our results.json.

ADK results are matched by eval set id and eval id (several results for one case are several runs); our
results.json by case id. Legacy files, whose eval set id ADK makes up at random, fall back to the eval id alone
when it is unique among the recorded results.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic

from adk_eval_gate.inputs.load import read_json
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem, case_id
from adk_eval_gate.model.adk_results import RESULT_SUFFIX, parse_eval_set_result
from adk_eval_gate.model.evalset import EvalCase, Invocation
from adk_eval_gate.model.results import InvalidResults, RunRecord, parse_document
from adk_eval_gate.runners.base import Inference, plain_state, recorded_start
from adk_eval_gate.support.errors import RecordedError, UsageError
from adk_eval_gate.support.pydantic_errors import first_error


@dataclass(frozen=True)
class Recording:
    invocations: list[Invocation]
    final_session_state: dict[str, Any] | None = None  # when the recording has it


RecordedRun = Recording | str  # a recorded run, or why it has no invocations


def _invocations(raw: list[dict[str, object]], where: str) -> list[Invocation]:
    try:
        return [Invocation.model_validate(item) for item in raw]
    except pydantic.ValidationError as error:
        loc, message = first_error(error)
        raise RecordedError(f"recorded invocation is invalid at {loc}: {message}", file=where) from None


def _recorded_invocations(run: RunRecord, where: str, apps: dict[str, Any]) -> list[Invocation]:
    invocations = []
    for item in run.invocations:
        try:
            actual = item.actual_invocation(apps)
        except pydantic.ValidationError as error:
            loc, message = first_error(error)
            raise RecordedError(f"recorded invocation is invalid at {loc}: {message}", file=where) from None
        if actual is not None:
            invocations.append(actual)
    return invocations


def _session_state(session_details: dict[str, Any] | None) -> dict[str, Any] | None:
    state = session_details.get("state") if session_details else None
    return plain_state(state) if isinstance(state, dict) else None


class RecordedRunner:
    name = "recorded"

    def __init__(self, source: Path, *, display: str) -> None:
        self.by_set_and_id: dict[tuple[str, str], list[RecordedRun]] = defaultdict(list)
        self.by_case_id: dict[str, list[RecordedRun]] = defaultdict(list)
        if not source.exists():
            raise UsageError(
                f"{display!r} does not exist",
                field="recorded",
                hint="give an ADK *.evalset_result.json, a folder of them, or a results.json",
            )
        files = sorted(source.rglob(f"*{RESULT_SUFFIX}")) if source.is_dir() else [source]
        if not files:
            raise UsageError(f"no *{RESULT_SUFFIX} files under {display!r}", field="recorded")
        loaded = []
        for path in files:
            shown = path.as_posix()
            _, data = read_json(path, shown, RecordedError)
            if isinstance(data, dict) and data.get("schema_version") == 1 and "cases" in data:
                self._add_results_json(data, shown)
            else:
                loaded.append(parse_eval_set_result(data, shown))
        for result in sorted(loaded, key=lambda item: item.creation_timestamp):
            for case_result in result.eval_case_results:
                set_id = case_result.eval_set_id or result.eval_set_id
                raw = [item.actual_invocation for item in case_result.eval_metric_result_per_invocation]
                run: RecordedRun = (
                    Recording(_invocations(raw, result.eval_set_result_id), _session_state(case_result.session_details))
                    if raw
                    else "the recorded ADK run has no invocations (its inference failed)"
                )
                self.by_set_and_id[(set_id, case_result.eval_id)].append(run)

    def _add_results_json(self, data: dict[str, object], shown: str) -> None:

        try:
            document = parse_document(data, shown=shown)
        except InvalidResults as error:
            raise RecordedError(str(error)) from None
        for case in document.cases:
            for run in case.runs:
                if run.error or any(inv.actual_turn() is None and inv.actual is None for inv in run.invocations):
                    self.by_case_id[case.id].append(run.error or "the recorded run is incomplete")
                else:
                    invocations = _recorded_invocations(run, shown, document.app_details)
                    recording = Recording(invocations, run.final_session_state)
                    self.by_case_id[case.id].append(recording)

    def runs_for(self, planned: PlannedFile, case: EvalCase) -> list[RecordedRun]:
        display = planned.loaded.display
        if case_id(display, case.eval_id) in self.by_case_id:
            return self.by_case_id[case_id(display, case.eval_id)]
        key = (planned.loaded.eval_set.eval_set_id, case.eval_id)
        if key in self.by_set_and_id:
            return self.by_set_and_id[key]
        matches = [runs for (_, eval_id), runs in self.by_set_and_id.items() if eval_id == case.eval_id]
        if len(matches) == 1:
            return matches[0]
        return []

    def run_count(self, planned: PlannedFile, case: EvalCase) -> int | None:
        return max(1, len(self.runs_for(planned, case)))

    async def prepare(self, items: list[WorkItem]) -> None:
        return None

    async def wait_ready(self) -> None:
        return None

    async def infer(self, item: WorkItem) -> Inference:
        runs = self.runs_for(item.file, item.case)
        if not runs:
            return Inference(
                error=f"no recorded result for eval set "
                f"{item.file.loaded.eval_set.eval_set_id!r}, case {item.case.eval_id!r}"
            )
        recorded = runs[item.run - 1]
        if isinstance(recorded, str):
            return Inference(error=recorded)
        durations = [invocation.duration for invocation in recorded.invocations if invocation.duration is not None]
        return Inference(
            invocations=recorded.invocations,
            duration_seconds=round(sum(durations), 3) if durations else 0.0,
            started_at=recorded_start(recorded.invocations),
            final_session_state=recorded.final_session_state,
        )

    async def aclose(self) -> None:
        return None

"""The recorded runner: actual invocations from ADK result files or from one of our results.json.

ADK results are matched by eval set id and eval id (several results for one case are several runs); our
results.json by case id. Legacy files, whose eval set id ADK makes up at random, fall back to the eval id alone
when it is unique among the recorded results.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic

from adk_eval_gate.inputs.formats import RESULT_SUFFIX
from adk_eval_gate.inputs.load import read_json, read_text
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem, case_id
from adk_eval_gate.model import compact
from adk_eval_gate.model.adk_results import parse_eval_set_result
from adk_eval_gate.model.evalset import EvalCase, Invocation
from adk_eval_gate.model.results import InvalidResults, RunRecord, parse_cases
from adk_eval_gate.runners.runner import Inference, plain_state, recorded_start
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.errors import RecordedError, UsageError
from adk_eval_gate.support.pydantic_errors import first_error


@dataclass(frozen=True)
class Recording:
    """One recorded run, kept as it was read (its turns compact, or in ADK's form), packed as JSON bytes and made
    into invocation objects only when it is replayed: a recording of thousands of cases stays small in memory."""

    packed: bytes  # [turns, the compact turns' user texts (None: ADK's form), the final session state] as JSON
    where: str  # the recording file, for errors
    apps: dict[str, Any] | None = None  # the recording's app details table (our results.json), shared

    @classmethod
    def of(
        cls,
        turns: list[Any],
        where: str,
        *,
        users: list[str] | None = None,
        apps: dict[str, Any] | None = None,
        final_session_state: dict[str, Any] | None = None,
    ) -> Recording:
        """``turns`` (decoded JSON, as read) packed."""
        text = json.dumps([turns, users, final_session_state], ensure_ascii=False, separators=(",", ":"))
        return cls(text.encode("utf-8", "surrogatepass"), where, apps)

    def _unpacked(self) -> tuple[list[Any], list[str] | None, dict[str, Any] | None]:
        turns, users, state = json.loads(self.packed.decode("utf-8", "surrogatepass"))
        return turns, users, state

    def replayed(self) -> tuple[list[Invocation], dict[str, Any] | None]:
        """The recorded invocations and the final session state (``RecordedError`` naming the file and the field
        when an invocation is not valid)."""
        turns, users, state = self._unpacked()
        try:
            if users is None:
                return [Invocation.model_validate(turn) for turn in turns], state
            invocations = [
                Invocation.model_validate(compact.expanded(turn, user=user, apps=self.apps))
                for turn, user in zip(turns, users, strict=True)
            ]
            return invocations, state
        except pydantic.ValidationError as error:
            loc, message = first_error(error)
            raise RecordedError(f"recorded invocation is invalid at {loc}: {message}", file=self.where) from None


RecordedRun = Recording | str  # a recorded run, or why it has no invocations


def _session_state(session_details: dict[str, Any] | None) -> dict[str, Any] | None:
    state = session_details.get("state") if session_details else None
    return plain_state(state) if isinstance(state, dict) else None


def _recording(run: RunRecord, where: str, apps: dict[str, Any]) -> RecordedRun:
    """A run of one of our results.json as a recording, or why it cannot be replayed."""
    if run.error:
        return run.error
    turns = [record.actual_turn() for record in run.invocations]
    if any(turn is None for turn in turns):
        legacy = [record.actual for record in run.invocations]  # an earlier version's, not made compact
        if any(turn is None for turn in legacy):
            return "the recorded run is incomplete"
        return Recording.of(legacy, where, final_session_state=run.final_session_state)
    users = [record.user for record in run.invocations]
    return Recording.of(turns, where, users=users, apps=apps, final_session_state=run.final_session_state)


_SPACE = re.compile(r"[ \t\n\r]*")


def _skip_space(text: str, at: int) -> int:
    """Where the first character that is not JSON's white space is, from ``at`` on."""
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]  # the pattern matches the empty string


_DECODER = json.JSONDecoder()


def _released(items: list[Any]) -> Iterator[Any]:
    """The items, each let go of by ``items`` when it is reached."""
    for index, item in enumerate(items):
        items[index] = None
        yield item


def _streamed(text: str) -> tuple[dict[str, Any], Iterator[Any]] | None:
    """A JSON object with a ``cases`` array, read a case at a time: its other members (untrusted JSON, through
    ``sanitize``), and its cases, each decoded when it is reached. None when the text is anything else, or not
    valid JSON: it is then read whole, as every file is, which says what is wrong."""
    if '"cases"' not in text:
        return None  # not a results.json (an ADK result file)
    try:
        members, cases = _members(text)
        head = {name: sanitize.loads(text[start:end], max_depth=MAX_MEMBER_DEPTH) for name, (start, end) in members}
    except (ValueError, RecursionError, IndexError):
        return None
    if cases is None:
        return None
    return head, (sanitize.loads(text[start:end], max_depth=MAX_MEMBER_DEPTH) for start, end in cases)


MAX_MEMBER_DEPTH = sanitize.MAX_FILE_DEPTH - 2  # a case is two levels into the file


def _members(text: str) -> tuple[list[tuple[str, tuple[int, int]]], list[tuple[int, int]] | None]:
    """Where each member of the top object is, and each element of its ``cases`` array (a later member of a name
    wins, as in ``json.loads``); ``ValueError`` when the text is not such an object."""
    members: dict[str, tuple[int, int]] = {}
    cases: list[tuple[int, int]] | None = None
    at = _skip_space(text, 0)
    if text[at] != "{":
        raise ValueError("not an object")
    at = _skip_space(text, at + 1)
    while text[at] != "}":
        name, at = _DECODER.raw_decode(text, at)
        at = _skip_space(text, at)
        if not isinstance(name, str) or text[at] != ":":
            raise ValueError("not a member")
        at = _skip_space(text, at + 1)
        if name == "cases" and text[at] == "[":
            cases, at = _elements(text, at)
            members.pop(name, None)
        else:
            _, end = _DECODER.raw_decode(text, at)
            members[name], at = (at, end), end
            cases = None if name == "cases" else cases
        at = _skip_space(text, at)
        if text[at] == ",":
            at = _skip_space(text, at + 1)
        elif text[at] != "}":
            raise ValueError("not a separator")
    if _skip_space(text, at + 1) != len(text):
        raise ValueError("more after the object")
    return list(members.items()), cases


def _elements(text: str, at: int) -> tuple[list[tuple[int, int]], int]:
    """Where each element of the array at ``at`` is, and where the array ends."""
    spans = []
    at = _skip_space(text, at + 1)
    while text[at] != "]":
        _, end = _DECODER.raw_decode(text, at)
        spans.append((at, end))
        at = _skip_space(text, end)
        if text[at] == ",":
            at = _skip_space(text, at + 1)
            if text[at] == "]":
                raise ValueError("a trailing comma")
        elif text[at] != "]":
            raise ValueError("not a separator")
    return spans, at + 1


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
            streamed = _streamed(read_text(path, shown, RecordedError))
            if streamed is not None and streamed[0].get("schema_version") == 1:
                self._add_results_json(*streamed, path=path, shown=shown)
                continue
            data = read_json(path, shown, RecordedError)[1]  # the text is not kept
            if isinstance(data, dict) and data.get("schema_version") == 1 and "cases" in data:
                cases = data["cases"]
                self._add_results_json(
                    data, _released(cases) if isinstance(cases, list) else cases, path=path, shown=shown
                )
            else:
                loaded.append(parse_eval_set_result(data, shown))
        for result in sorted(loaded, key=lambda item: item.creation_timestamp):
            for case_result in result.eval_case_results:
                set_id = case_result.eval_set_id or result.eval_set_id
                raw = [item.actual_invocation for item in case_result.eval_metric_result_per_invocation]
                state = _session_state(case_result.session_details)
                run: RecordedRun = (
                    Recording.of(raw, result.eval_set_result_id, final_session_state=state)
                    if raw
                    else "the recorded ADK run has no invocations (its inference failed)"
                )
                self.by_set_and_id[(set_id, case_result.eval_id)].append(run)

    def _add_results_json(self, head: dict[str, Any], cases: Iterable[object], *, path: Path, shown: str) -> None:
        """Each case decoded, validated and packed in turn (``parse_cases``): the whole document is never held, as
        decoded JSON or as models. JSON a case cannot hold is said as reading the whole file says it."""
        try:
            document, parsed = parse_cases(head, cases, shown=shown)
            for case in parsed:
                for run in case.runs:
                    self.by_case_id[case.id].append(_recording(run, shown, document.app_details))
        except InvalidResults as error:
            raise RecordedError(str(error)) from None
        except sanitize.UnsafeJson:
            read_json(path, shown, RecordedError)  # raises, naming the line
            raise

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
        try:
            invocations, state = recorded.replayed()
        except RecordedError as error:
            return Inference(error=error.one_line())
        durations = [invocation.duration for invocation in invocations if invocation.duration is not None]
        return Inference(
            invocations=invocations,
            duration_seconds=round(sum(durations), 3) if durations else 0.0,
            started_at=recorded_start(invocations),
            final_session_state=state,
        )

    async def aclose(self) -> None:
        return None

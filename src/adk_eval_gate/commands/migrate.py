"""``adk-eval-gate migrate``: a legacy query-list file to an EvalSet file, as ADK's
``AgentEvaluator.migrate_eval_data_to_new_schema`` converts it (the old path as the case id,
``model_dump_json(indent=2)`` with every default), except that the ids come from the file's name instead of
random UUIDs (so migrating twice gives the same file), and that an ``initial.session.json`` next to the legacy
file is used, as ``run`` uses it, when ``--initial-session`` is not given."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.inputs import legacy
from adk_eval_gate.inputs.load import initial_session_beside, legacy_file_error, read_json, sequential_ids
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import EvalFileError, UsageError


def migrate(old: str, new: str, *, initial_session: str | None = None) -> int:
    """Writes the EvalSet; returns the number of turns converted."""
    if not old or not new:
        raise UsageError("give the legacy file and the new file", field="migrate")
    text, data = read_json(Path(old), old, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    if not legacy.is_query_list(data):
        raise EvalFileError(
            'is not a legacy query list ([{"query": ...}, ...])',
            file=old,
            line=1,
            hint="only the classic *.test.json query list needs migrating",
        )
    session: dict[str, object] = {}
    if initial_session:
        _, loaded = read_json(Path(initial_session), initial_session, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
        if not isinstance(loaded, dict):
            raise EvalFileError("must be a JSON object", file=initial_session, line=1)
        session = loaded
    else:
        session = initial_session_beside(Path(old), old)[0] or {}  # as `run` and ADK's AgentEvaluator do
    set_id = Path(old).name.removesuffix(".json").removesuffix(".test")
    try:
        eval_set = legacy.convert_query_list(
            data, eval_id=old, eval_set_id=set_id, initial_session=session, new_id=sequential_ids(set_id)
        )
    except legacy.LegacyFormatError as error:
        raise legacy_file_error(error, text=text, display=old) from None
    target = Path(new)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(eval_set.model_dump_json(indent=2), encoding="utf-8")
    return len(eval_set.eval_cases[0].conversation or [])


def migrate_command(console: Console, *, old: str, new: str, initial_session: str | None) -> int:
    turns = migrate(old, new, initial_session=initial_session)
    console.line(f"wrote {new}: 1 case with {turns} turns (converted as ADK converts legacy files)")
    return 0

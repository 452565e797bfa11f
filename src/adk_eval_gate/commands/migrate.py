"""``adk-eval-gate migrate``: an ADK eval set to an Agent Platform dataset and back (``inputs.dataset_migration``); a
legacy query-list file to an EvalSet file, as ADK's ``AgentEvaluator.migrate_eval_data_to_new_schema`` converts it (the
old path as the case id, ``model_dump_json(indent=2)`` with every default), except that the ids come from the file's
name instead of random UUIDs (so migrating twice gives the same file), and that an ``initial.session.json`` next to the
legacy file is used, as ``run --legacy-session-file`` uses it, when ``--initial-session`` is not given."""

from __future__ import annotations

import json
import os
from pathlib import Path

from adk_eval_gate.inputs import formats, legacy
from adk_eval_gate.inputs.configs import find_repository_root
from adk_eval_gate.inputs.load import initial_session_beside, legacy_file_error, read_json, sequential_ids
from adk_eval_gate.model.evalset import EvalSet
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.atomic import read_regular, unread
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import EvalFileError, UsageError
from adk_eval_gate.support.repository_paths import (
    SHOWN_CHARACTERS,
    is_inside,
    path_value_problem,
    real_path,
    shown,
)


def legacy_eval_set(old: str, *, initial_session: str | None = None, beside: bool = True) -> EvalSet:
    """The legacy query list ``old`` as ADK converts it to an EvalSet (nothing written); ``beside``: without
    ``initial_session``, the ``initial.session.json`` beside it seeds the session (ADK's own migration reads none)."""
    if not old:
        raise UsageError("give the legacy file and the new file", field="migrate")
    text, data = read_json(Path(old), old, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    if not formats.LEGACY_QUERY_LIST.recognised(data):
        raise EvalFileError(
            'is not a legacy query list ([{"query": ...}, ...])',
            file=old,
            line=1,
            hint="only the classic *.test.json query list needs migrating",
        )
    # the session beside the file when none is given, as `run --legacy-session-file` uses it
    session = _session(initial_session) if initial_session else {}
    if not initial_session and beside:
        session = initial_session_beside(Path(old), old)[0] or {}
    set_id = Path(old).name.removesuffix(".json").removesuffix(".test")
    try:
        return legacy.convert_query_list(
            data, eval_id=old, eval_set_id=set_id, initial_session=session, new_id=sequential_ids(set_id)
        )
    except legacy.LegacyFormatError as error:
        raise legacy_file_error(error, text=text, display=old) from None


def migrate(old: str, new: str, *, initial_session: str | None = None) -> int:
    """Writes the EvalSet; returns the number of turns converted."""
    if not new:
        raise UsageError("give the legacy file and the new file", field="migrate")
    eval_set = legacy_eval_set(old, initial_session=initial_session)
    target = Path(new)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(eval_set.model_dump_json(indent=2), encoding="utf-8")
    return len(eval_set.eval_cases[0].conversation or [])


MAX_SOURCE_BYTES = 64 * 1024 * 1024  # an eval file, a dataset or a session to migrate: far larger than any written


def _source_problem(path: str) -> str | None:
    """Why ``path`` cannot be read as a file to migrate (a folder, a FIFO, a device such as ``/dev/zero``, a socket,
    a file past ``MAX_SOURCE_BYTES``), read through ``read_regular``: bounded and never blocking."""
    unusable = path_value_problem(path)
    if unusable is not None:
        return unusable
    data = read_regular(Path(path), max_bytes=MAX_SOURCE_BYTES)
    return unread(Path(path), data, max_bytes=MAX_SOURCE_BYTES) if isinstance(data, str) else None


def _target_problem(new: str, *, root: Path) -> str | None:
    """Why ``new`` cannot be written: a folder, a file where a folder of its path should be, or a symbolic link on its
    way that leads out of the repository ``root`` (a path given outside the repository is the user's to choose)."""
    unusable = path_value_problem(new)
    if unusable is not None:
        return unusable
    target = Path(new)
    if target.is_dir():
        return "is a folder"
    above = next((folder for folder in target.parents if folder.exists() or folder.is_symlink()), None)
    if above is not None and not above.is_dir():
        return f"cannot be written: {above.as_posix()} is a file, not a folder"
    written = real_path(target)
    if isinstance(written, str):
        return written
    if is_inside(Path(os.path.abspath(target)), root) and not is_inside(written, root):
        return "leads out of the repository through a symbolic link"
    return None


def _refuse_unusable(*, old: str, new: str, initial_session: str | None) -> None:
    """One line and exit code 2 for a file that cannot be read or written, before anything is read."""
    for source in (old, initial_session):
        problem = _source_problem(source) if source else None
        if problem is not None:
            display = source if len(source or "") <= SHOWN_CHARACTERS else shown(source or "")
            raise EvalFileError(f"cannot be migrated: it {problem}", file=display)
    problem = _target_problem(new, root=find_repository_root(Path.cwd()))
    if problem is not None:
        raise UsageError(f"the new file {shown(new)} {problem}", field="migrate", hint="name the file to write")


def migrate_command(console: Console, *, old: str, new: str, initial_session: str | None) -> int:
    """A legacy file to an eval set; an eval set (or a legacy file) to an Agent Platform dataset when ``new`` is named
    ``*-dataset.json``; a dataset to an eval set."""
    if not old or not new:
        raise UsageError("give the legacy file and the new file", field="migrate")
    _refuse_unusable(old=old, new=new, initial_session=initial_session)
    if formats.is_platform_dataset_name(new) or _is_dataset(old):
        return _migrate_dataset_command(console, old=old, new=new, initial_session=initial_session)
    turns = migrate(old, new, initial_session=initial_session)
    console.line(f"wrote {new}: 1 case with {turns} turns (converted as ADK converts legacy files)")
    return 0


def _is_dataset(path: str) -> bool:
    if formats.is_platform_dataset_name(path):
        return True
    try:
        _, data = read_json(Path(path), path, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    except EvalFileError:
        return False  # migrate says what is wrong with it
    return formats.AGENT_PLATFORM_DATASET.recognised(data)


def _migrate_dataset_command(console: Console, *, old: str, new: str, initial_session: str | None) -> int:
    from adk_eval_gate.inputs import dataset_migration as convert
    from adk_eval_gate.inputs.platform_dataset import load_json_eval_file

    if not Path(old).is_file():
        raise EvalFileError("does not exist or is not a file", file=old)
    notes: list[str] = []
    target = Path(new)
    if formats.is_platform_dataset_name(new):
        if formats.LEGACY_QUERY_LIST.recognised(read_json(Path(old), old, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)[1]):
            eval_set = legacy_eval_set(old, initial_session=initial_session)
        else:
            loaded = load_json_eval_file(Path(old), display=old)
            if formats.AGENT_PLATFORM_DATASET.name not in formats.BY_NAME[loaded.format].migrates_to:
                raise EvalFileError(
                    f"is an {formats.BY_NAME[loaded.format].described} already",
                    file=old,
                    hint="name an .evalset.json to convert it back",
                )
            eval_set = loaded.eval_set
        dataset = convert.to_dataset(eval_set, notes)
        text = json.dumps(dataset.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False)
        what = f"{len(dataset.eval_cases or [])} cases as an Agent Platform dataset"
    else:
        loaded = load_json_eval_file(Path(old), display=old)
        eval_set = convert.to_eval_set(loaded, notes)
        if initial_session:
            session = _session(initial_session)
            for case in eval_set.eval_cases:
                if case.session_input is not None:
                    case.session_input.app_name = str(session.get("app_name") or case.session_input.app_name)
                    case.session_input.user_id = str(session.get("user_id") or case.session_input.user_id)
        text = eval_set.model_dump_json(indent=2, exclude_none=True)
        what = f"{len(eval_set.eval_cases)} cases as an ADK eval set"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text + "\n", encoding="utf-8")
    console.line(f"wrote {new}: {what}")
    for note in notes:
        console.line(f"note {note}")
    return 0


def _session(path: str) -> dict[str, object]:
    _, loaded = read_json(Path(path), path, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    if not isinstance(loaded, dict):
        raise EvalFileError("must be a JSON object", file=path, line=1)
    return loaded

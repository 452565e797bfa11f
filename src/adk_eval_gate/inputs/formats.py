"""Every file format the gate reads, each said once: its names, how its content is recognised, its loader, what
``migrate`` turns it into, and whether ``pytest --adk-eval`` collects it.

``discover`` (``run`` and ``validate``), the pytest plugin and ``migrate`` read this registry; no other module
holds a format's file-name suffix. A new format is its loader module plus one ``Format`` in ``FORMATS``. Loaders
and content checks import their module on use, so this module is cheap to import and imports no loader.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from adk_eval_gate.inputs.load import LoadedEvalSet

# The formats of eval files: a loaded file's ``LoadedEvalSet.format``, and the name of its ``Format`` below.
FileFormat = Literal[
    "evalset", "legacy_query_list", "legacy_named_list", "vertex_jsonl", "vertex_csv", "agent_platform_dataset"
]
Loader = Callable[[Path, str], "LoadedEvalSet"]  # (the file, its repository-relative display path)
ContentCheck = Callable[[Any], bool]  # whether parsed JSON is of the format


def _load_adk_json(path: Path, display: str) -> LoadedEvalSet:
    """ADK's JSON files: an EvalSet, or a legacy query list or named list (the content decides which)."""
    from adk_eval_gate.inputs.load import load_eval_file

    return load_eval_file(path, display=display)


def _load_vertex_dataset(path: Path, display: str) -> LoadedEvalSet:
    from adk_eval_gate.inputs.vertex_dataset import load_dataset

    return load_dataset(path, display=display)


def _load_platform_dataset(path: Path, display: str) -> LoadedEvalSet:
    from adk_eval_gate.inputs.load import read_json
    from adk_eval_gate.inputs.platform_dataset import load_platform_dataset
    from adk_eval_gate.support import sanitize

    text, data = read_json(path, display, max_depth=sanitize.MAX_EVAL_FILE_DEPTH)
    return load_platform_dataset(path, display=display, text=text, data=data)


def _is_eval_set(data: Any) -> bool:
    return isinstance(data, dict) and bool({"eval_set_id", "evalSetId", "eval_cases", "evalCases"} & data.keys())


def _is_query_list(data: Any) -> bool:
    from adk_eval_gate.inputs import legacy

    return legacy.is_query_list(data)


def _is_named_list(data: Any) -> bool:
    from adk_eval_gate.inputs import legacy

    return legacy.is_named_list(data)


def _is_platform_dataset(data: Any) -> bool:
    from adk_eval_gate.inputs.platform_dataset import is_platform_dataset

    return is_platform_dataset(data)


@dataclass(frozen=True)
class Format:
    name: str  # an eval file's format's is a ``FileFormat``
    described: str
    suffixes: tuple[str, ...] = ()  # file names found in folders (``run``'s PATHs, ``pytest --adk-eval``)
    named_suffixes: tuple[str, ...] = ()  # file names read when given as a path, never looked for in folders
    recognises: ContentCheck | None = None  # a JSON file's content of this format (None: its name decides)
    loader: Loader | None = None  # None: not an eval file
    migrates_to: tuple[str, ...] = ()  # the formats ``migrate`` writes from it
    agents_cli_config: bool = False  # graded by agents-cli's eval_config.yaml instead of ADK's test_config.json
    not_for_pytest: str | None = None  # why ``pytest --adk-eval`` does not run it (None: it does)

    def recognised(self, data: Any) -> bool:
        """Whether parsed JSON is of this format by its content."""
        return self.recognises is not None and self.recognises(data)


EVAL_SET = Format(
    "evalset",
    "ADK eval set",
    suffixes=(".evalset.json", ".test.json"),
    recognises=_is_eval_set,
    loader=_load_adk_json,
    migrates_to=("agent_platform_dataset",),
)
LEGACY_QUERY_LIST = Format(
    "legacy_query_list",
    "legacy ADK query list",
    suffixes=(".test.json",),
    recognises=_is_query_list,
    loader=_load_adk_json,
    migrates_to=("evalset", "agent_platform_dataset"),
)
LEGACY_NAMED_LIST = Format(
    "legacy_named_list",
    "legacy ADK named list",
    suffixes=(".test.json",),
    recognises=_is_named_list,
    loader=_load_adk_json,
    migrates_to=("agent_platform_dataset",),
)
VERTEX_JSONL = Format(
    "vertex_jsonl",
    "Vertex AI dataset (JSON Lines)",
    suffixes=(".evalset.jsonl",),
    named_suffixes=(".jsonl", ".ndjson"),
    loader=_load_vertex_dataset,
)
VERTEX_CSV = Format("vertex_csv", "Vertex AI dataset (CSV)", named_suffixes=(".csv",), loader=_load_vertex_dataset)
AGENT_PLATFORM_DATASET = Format(
    "agent_platform_dataset",
    "Agent Platform dataset",
    suffixes=("-dataset.json",),  # agents-cli's tests/eval/datasets/basic-dataset.json
    recognises=_is_platform_dataset,
    loader=_load_platform_dataset,
    migrates_to=("evalset",),
    agents_cli_config=True,
)
RECORDED_RESULTS = Format(
    "recorded_results",
    "ADK eval result",
    suffixes=(".evalset_result.json",),
    not_for_pytest="is an ADK eval result, not an eval file: replay it with adk-eval-gate run --runner recorded",
)
JUDGE_LABELS = Format(
    "judge_labels",
    "judge labels",
    suffixes=(".labels.json",),
    not_for_pytest="is judge labels, not an eval file: adk-eval-gate calibrate reads it",
)
FORMATS = (
    LEGACY_QUERY_LIST,
    LEGACY_NAMED_LIST,
    EVAL_SET,
    VERTEX_JSONL,
    VERTEX_CSV,
    AGENT_PLATFORM_DATASET,
    RECORDED_RESULTS,
    JUDGE_LABELS,
)
BY_NAME = {entry.name: entry for entry in FORMATS}

EVAL_FILE_SUFFIXES = tuple(dict.fromkeys(s for entry in FORMATS if entry.loader for s in entry.suffixes))
DATASET_SUFFIXES = tuple(dict.fromkeys(s for entry in (VERTEX_JSONL, VERTEX_CSV) for s in entry.named_suffixes))
NAMED_SUFFIXES = (".json", *DATASET_SUFFIXES)  # a file given by path with such a name is read as an eval file
NOT_EVAL_SUFFIXES = tuple(s for entry in FORMATS if not entry.loader for s in entry.suffixes)
RESULT_SUFFIX = RECORDED_RESULTS.suffixes[0]
PLATFORM_DATASET_FOLDERS = ("eval", "datasets")  # agents-cli's default datasets: tests/eval/datasets/*.json
_SNIFF_BYTES = 4096


def eval_file_patterns() -> str:
    """The names discovery looks for, as a message says them: ``*.evalset.json, *.test.json, ...``."""
    return ", ".join(f"*{suffix}" for suffix in EVAL_FILE_SUFFIXES)


def file_head(path: Path) -> str:
    """The start of a regular file (never opened otherwise: opening a FIFO to read it blocks), as text."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return ""
        with path.open("rb") as handle:
            return handle.read(_SNIFF_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


def named_as_eval_file(name: str) -> bool:
    """A file name that discovery picks up by its name alone."""
    return name.endswith(EVAL_FILE_SUFFIXES)


def _platform_dataset_file(path: Path) -> bool:
    """An Agent Platform dataset by agents-cli's conventions: named ``*-dataset.json``, or a JSON file in an
    ``eval/datasets`` folder that starts like an ``EvaluationDataset``."""
    name = path.name
    if name.endswith(AGENT_PLATFORM_DATASET.suffixes):
        return True
    if not name.endswith(".json") or named_as_eval_file(name) or path.parts[-3:-1] != PLATFORM_DATASET_FOLDERS:
        return False
    head = file_head(path)
    return ('"eval_cases"' in head or '"evalCases"' in head) and '"eval_set_id"' not in head


def discovered(path: Path) -> bool:
    """Whether a file found in a folder is an eval file (``run`` and ``pytest --adk-eval`` run it)."""
    return named_as_eval_file(path.name) or _platform_dataset_file(path)


def is_dataset_name(name: str) -> bool:
    """A Vertex-style dataset (JSON Lines or CSV) by its name."""
    return name.endswith(DATASET_SUFFIXES)


def is_platform_dataset_name(name: str) -> bool:
    return name.endswith(AGENT_PLATFORM_DATASET.suffixes)


def _loader_for(path: Path, *, dataset: bool) -> Loader:
    """How an eval file is read: a Vertex-style dataset by its name, or given as one (``dataset``: ``--dataset``,
    whatever its name, except ``.json``: an Agent Platform dataset); else JSON, whose name or content says whether
    it is an Agent Platform dataset or ADK's."""
    if is_dataset_name(path.name) or (dataset and path.suffix.lower() != ".json"):
        return _load_vertex_dataset
    return _load_json_eval_file


def _load_json_eval_file(path: Path, display: str) -> LoadedEvalSet:
    from adk_eval_gate.inputs.platform_dataset import load_json_eval_file

    return load_json_eval_file(path, display=display)


def load(path: Path, *, display: str, dataset: bool = False) -> LoadedEvalSet:
    return _loader_for(path, dataset=dataset)(path, display)


def not_for_pytest(path: Path) -> str | None:
    """Why ``pytest --adk-eval`` does not run the file given to it (None: it runs it)."""
    named = next((entry for entry in FORMATS if entry.suffixes and path.name.endswith(entry.suffixes)), None)
    if named is not None and named.loader is None:
        return named.not_for_pytest
    return None

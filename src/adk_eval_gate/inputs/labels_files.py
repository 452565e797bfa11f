"""Human labels of LLM judges (``*.labels.json``): the suffix that names them, and their loader.

A labels file is read bounded (a FIFO or a huge file is a problem of that file, never a hang), parsed as untrusted
JSON (``support/sanitize.py``) and checked against ``model/judge_labels.py``; every problem names the file, the
line and the field. Beyond the schema: the metric must be one an LLM judge scores (an unknown name close to a judge
metric's is a misspelling; any other name may be an agents-cli or templated metric, checked when calibrating), the
label must be on the metric's scale, a rubric metric's label names its rubric, ``final_response_match_v2``'s has
the expected invocation, and two labels of the same judged invocation must not disagree.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic

from adk_eval_gate.inputs import formats
from adk_eval_gate.inputs.discover import display_path, file_problem, split_selector, walk_named
from adk_eval_gate.inputs.load import decoded, parsed_json
from adk_eval_gate.metrics.registry import BUILT_IN
from adk_eval_gate.model.judge_labels import EXPECTED_READERS, RUBRIC_PREFIX, JudgeLabel, JudgeLabelsFile
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.atomic import read_regular, unread
from adk_eval_gate.support.errors import EvalFileError, first_of
from adk_eval_gate.support.jsonpos import JsonPositions, format_path
from adk_eval_gate.support.pydantic_errors import file_problems, locate

SUFFIX = formats.JUDGE_LABELS.suffixes[0]
MAX_LABELS_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class LoadedLabels:
    display: str
    labels: list[JudgeLabel]
    lines: list[int | None]  # the line of each label in the file

    @property
    def confirmed(self) -> list[tuple[JudgeLabel, int | None]]:
        return [(label, line) for label, line in zip(self.labels, self.lines, strict=True) if label.confirmed]


def is_labels_file(path: Path) -> bool:
    return path.name.endswith(SUFFIX)


def labels_files(specs: Sequence[str], *, given: Sequence[Path], root: Path) -> list[tuple[Path, str]]:
    """(path, repository-relative name) of the labels files: those ``given`` (``--judge-labels``), else every
    ``*.labels.json`` under the folders of ``specs``, skipping the folders eval files' discovery skips."""
    if given:
        return [(path, display_path(path, root)) for path in given]
    found: dict[Path, None] = {}
    for spec in specs or ["."]:
        path = Path(split_selector(spec)[0])
        for candidate in walk_named(path, (SUFFIX,)) if path.is_dir() else [path] if is_labels_file(path) else []:
            found[candidate] = None
    return [(path, display_path(path, root)) for path in found]


def _text(path: Path, display: str) -> str:
    data = read_regular(path, max_bytes=MAX_LABELS_BYTES)
    if isinstance(data, str):
        raise EvalFileError(unread(path, data, max_bytes=MAX_LABELS_BYTES), file=display)
    return decoded(data, display)


def _validated(data: Any, *, text: str, display: str) -> JudgeLabelsFile:
    if not isinstance(data, dict) or "labels" not in data:
        raise EvalFileError(
            "is not a labels file: it must be an object with a labels list",
            file=display,
            line=1,
            field="labels",
            hint='{"labels": [{"metric": ..., "invocation": ..., "label": "valid"}]}',
        )
    try:
        return JudgeLabelsFile.model_validate(data)
    except pydantic.ValidationError as error:
        raise file_problems(error, data, model=JudgeLabelsFile, text=text, display=display) from None


def _metric_problem(label: JudgeLabel) -> tuple[str, str] | None:
    """(field, what is wrong) when the label cannot be a label of its metric; None when it can be."""
    spec = BUILT_IN.get(label.metric)
    judges = [name for name, known in BUILT_IN.items() if known.kind == "judge"]
    if spec is None:
        close = difflib.get_close_matches(label.metric, judges, n=1, cutoff=0.85)
        return ("metric", f"unknown metric {label.metric!r}: did you mean {close[0]!r}?") if close else None
    if spec.kind != "judge":
        return "metric", f"{label.metric} is not scored by an LLM judge; only judge metrics take labels"
    low, high = spec.value_range or (float("-inf"), float("inf"))
    if label.binary and (low, high) != (0.0, 1.0):
        return "label", f"{label.metric} scores from {low:g} to {high:g}: give a number, not {label.label!r}"
    if not low <= label.value <= high:
        return "label", f"{label.value:g} is off {label.metric}'s scale, {low:g} to {high:g}"
    if label.metric.startswith(RUBRIC_PREFIX) and label.rubric is None:
        return "rubric", f"{label.metric} judges rubrics: name the rubric's text that the label answers"
    if label.metric in EXPECTED_READERS and label.expected_invocation is None:
        return "expected_invocation", f"{label.metric} compares with the expected invocation: give it"
    return None


def judged_key(label: JudgeLabel) -> str:
    """What identifies a judged invocation of a metric: two labels with the same key label the same thing."""
    judged = [
        label.metric,
        label.rubric,
        label.invocation.model_dump(mode="json", exclude={"invocation_id", "creation_timestamp"}),
        label.expected_invocation.model_dump(mode="json") if label.expected_invocation else None,
    ]
    return json.dumps(judged, sort_keys=True, ensure_ascii=False)


def _problems(labels: JudgeLabelsFile, *, text: str, display: str) -> list[EvalFileError]:
    positions = JsonPositions(text)
    problems: list[EvalFileError] = []
    seen: dict[str, tuple[float, int | None]] = {}
    for index, label in enumerate(labels.labels):
        line = locate(positions, ["labels", index])
        problem = _metric_problem(label)
        if problem is not None:
            field, message = problem
            where: list[str | int] = ["labels", index, field]
            problems.append(
                EvalFileError(message, file=display, line=locate(positions, where), field=format_path(where))
            )
            continue
        if not label.confirmed:
            continue
        key = judged_key(label)
        if key in seen and seen[key][0] != label.value:
            earlier = seen[key][1]
            problems.append(
                EvalFileError(
                    f"disagrees with the label of the same invocation at line {earlier}",
                    file=display,
                    line=line,
                    field=format_path(["labels", index, "label"]),
                    hint="keep the one you mean",
                )
            )
        seen.setdefault(key, (label.value, line))
    return problems


def load_labels(path: Path, *, display: str, root: Path | None = None) -> LoadedLabels:
    """The labels of ``path``, or an ``EvalFileError`` naming the file, line and field (carrying the file's other
    problems); ``root``: the repository, which a symbolic link must not leave."""
    problem = file_problem(path, root=root) if root is not None else None
    if problem is not None:
        raise EvalFileError(problem, file=display)
    text = _text(path, display)
    labels = _validated(parsed_json(text, display, max_depth=sanitize.MAX_EVAL_FILE_DEPTH), text=text, display=display)
    problems = _problems(labels, text=text, display=display)
    if problems:
        raise first_of(problems)
    positions = JsonPositions(text)
    lines = [locate(positions, ["labels", index]) for index in range(len(labels.labels))]
    return LoadedLabels(display, labels.labels, lines)

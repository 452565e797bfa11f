"""Saved results given on the command line (``report``, ``merge``): a results.json read and validated, or the
results.json files found in the folders given."""

from __future__ import annotations

from pathlib import Path

from adk_eval_gate.inputs.load import read_json
from adk_eval_gate.model.results import InvalidResults, ResultsDocument, parse_document
from adk_eval_gate.support.errors import UsageError


def load_results(path: Path, display: str | None = None) -> ResultsDocument:
    shown = display or str(path)
    if not path.is_file():
        raise UsageError(f"results file {shown!r} does not exist")
    _, data = read_json(path, shown)
    try:
        return parse_document(data, shown=shown)
    except InvalidResults as error:
        raise UsageError(str(error)) from None


def results_files(paths: list[str], *, target: Path) -> list[Path]:
    """The files given, and the results.json files under the folders given, without ``target`` (an earlier
    merge's output)."""
    found: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found.extend(sorted(path.rglob("results.json")))
        else:
            found.append(path)
    found = [path for path in found if path.resolve() != target.resolve()]  # an earlier merge's output
    if not found:
        raise UsageError("no results.json found in the given folders")
    return found

"""The base branch's results by workflow run id, kept under ``--cache-dir``: a run's artifact never changes, so
each one is downloaded once, and a run without the artifact is remembered as such.

What is kept is the results document without its runs (the transcripts): everything the comparison and the
history need, a fraction of the size. Entries are read back through the same validation as a download (they
came from an artifact anyone who can push a branch can make); one that cannot be read is ignored, never fatal, and
only regular files within the artifact's size limit are read (``atomic.CacheReader``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate.github.artifact import MAX_RESULTS_BYTES
from adk_eval_gate.model.results import InvalidResults, ResultsDocument, parse_document
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.atomic import CacheReader, write_atomically

FOLDER = "base-runs"
CACHE_FORMAT = 1


def compact(doc: ResultsDocument) -> ResultsDocument:
    """The document without what a comparison never reads: each case's runs, and its own comparison."""
    cases = [case.model_copy(update={"runs": []}) for case in doc.cases]
    return doc.model_copy(update={"cases": cases, "comparison": None})


@dataclass(frozen=True)
class NoArtifact:
    """The run was looked at and has no artifact of that name."""


class RunCache:
    def __init__(
        self,
        directory: Path,
        *,
        api_url: str,
        repository: str,
        artifact_name: str,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        """``warn``: told once about an entry that is not a regular file within the size limit."""
        self.directory = directory / FOLDER
        self._scope = json.dumps([CACHE_FORMAT, api_url, repository.lower(), artifact_name])
        self.reader = CacheReader(max_bytes=MAX_RESULTS_BYTES, warn=warn)

    def _path(self, run_id: int) -> Path:
        key = hashlib.sha256(f"{self._scope}:{run_id}".encode()).hexdigest()[:32]
        return self.directory / f"{key}.json"

    def get(self, run_id: int) -> ResultsDocument | NoArtifact | None:
        """The run's results, ``NoArtifact``, or None when the cache does not know the run."""
        text = self.reader.read(self._path(run_id))
        if text is None:
            return None
        try:
            data = sanitize.loads(text)
        except ValueError:  # not JSON, or unsafe JSON (sanitize.UnsafeJson)
            return None
        if not isinstance(data, dict) or data.get("run_id") != run_id:
            return None
        if data.get("results") is None:
            return NoArtifact()
        try:
            return parse_document(data["results"], shown=f"cached results of run {run_id}")
        except InvalidResults:
            return None

    def put(self, run_id: int, doc: ResultsDocument | NoArtifact) -> None:
        """Best effort: a cache that cannot be written only costs the next run its downloads."""
        results = None if isinstance(doc, NoArtifact) else compact(doc).model_dump(mode="json")
        text = json.dumps({"run_id": run_id, "results": results}, ensure_ascii=False, separators=(",", ":"))
        write_atomically(self._path(run_id), text)

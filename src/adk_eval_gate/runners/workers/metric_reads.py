"""What custom metrics read where they score (a process of their own: ``metric_process``, ``function_process``,
which send the paths back as data, noted here), as inputs of the cases they score: a metric that compares with a
``golden.txt`` beside it depends on it as much as the agent on its prompt.

Each custom metric is wrapped while its file's metrics are built (``MetricBuilder``); what it reads while it scores
(``runners/workers/observe.py``: files read, checked or looked for, folders listed, under the repository) counts, from
then on, for every case it scores, as a file an agent read once counts for its later runs: a metric may read its file
once and keep it.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from adk_eval_gate.inputs.plan import PlannedFile
from adk_eval_gate.metrics.metric import CaseRun, Metric, MetricOutcome
from adk_eval_gate.metrics.registry import ConfiguredMetric
from adk_eval_gate.model.agents_cli_config import FunctionDefinition
from adk_eval_gate.runners.workers import observe, observe_events


class MetricReads:
    """Per custom metric function, the paths it read while scoring so far (in this process)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules = observe.ModuleIndex(root)
        self._read: dict[str, set[str]] = {}
        self._found: dict[tuple[str, ...], tuple[tuple[int, ...], list[str]]] = {}  # what files found, and from what

    def wrap(self, configured: ConfiguredMetric, metric: Metric) -> Metric:
        """The metric, recording what it reads when it runs user code (a custom metric); others as they are."""
        key = _code_of(configured)
        if key is None:
            return metric
        observe.install(self.root)  # the first custom metric's: a run without one watches nothing here
        return _Recorded(metric, self._read.setdefault(key, set()))

    def files(self, planned: PlannedFile) -> list[str]:
        """The repository files the custom metrics of this eval file read so far, with the modules they import."""
        keys = tuple(key for configured in planned.config.metrics if (key := _code_of(configured)) is not None)
        if not keys:
            return []
        # The read sets only grow: the same sizes are the same files, found again only when something grew.
        sizes = (*(len(self._read.get(key, ())) for key in keys), len(sys.modules), observe_events.module_reads_size[0])
        last = self._found.get(keys)
        if last is not None and last[0] == sizes:
            return list(last[1])
        read = [path for key in keys for path in self._read.get(key, ())]
        found = sorted(self.modules.with_imports(observe.repository_files(read, self.root)))
        self._found[keys] = (sizes, found)
        return list(found)


def _code_of(configured: ConfiguredMetric) -> str | None:
    """What identifies the user code a metric runs: an ADK custom metric's function, an agents-cli metric's code."""
    if configured.custom_function_path is not None:
        return configured.custom_function_path
    if isinstance(configured.definition, FunctionDefinition):
        return f"{configured.definition.file or configured.definition.filename}"
    return None


class _Recorded(Metric):
    """A metric whose reads while it scores are recorded into ``reads``."""

    def __init__(self, inner: Metric, reads: set[str]) -> None:
        super().__init__(
            name=inner.name, criterion=inner.criterion, services=inner.services, criterion_type=inner.criterion_type
        )
        self._inner = inner
        self._reads = reads

    async def evaluate(self, run: CaseRun) -> MetricOutcome:
        with observe.recording() as used:
            try:
                result = self._inner.evaluate(run)
                return await result if inspect.isawaitable(result) else result
            finally:
                self._reads.update(used)

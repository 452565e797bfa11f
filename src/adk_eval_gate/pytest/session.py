"""The gate's own stages inside a test process: load a file with its criteria, plan and run its cases, aggregate.

Used by the pytest plugin (one eval case per test item) and by ``evaluate`` (AgentEvaluator's API). Agents run
in this process, as AgentEvaluator runs them; dataset rows with recorded answers need no agent.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable
from pathlib import Path

from adk_eval_gate.configs import ConfigCache, ConfigSource, find_config
from adk_eval_gate.console import Console
from adk_eval_gate.dataset import load_dataset
from adk_eval_gate.discover import DATASET_SUFFIXES, display_path
from adk_eval_gate.execute import MetricBuilder, execute
from adk_eval_gate.load import load_eval_file
from adk_eval_gate.metrics.base import MetricServices
from adk_eval_gate.metrics.services import build_services, judge_metric_names
from adk_eval_gate.pipeline import case_results
from adk_eval_gate.plan import PlannedFile, plan
from adk_eval_gate.results import CaseResult
from adk_eval_gate.runners.agents import AgentRef
from adk_eval_gate.runners.base import Runner
from adk_eval_gate.runners.dataset import DatasetRunner
from adk_eval_gate.runners.factory import chosen_runner
from adk_eval_gate.settings import Settings

ConfigFinder = Callable[[Path], ConfigSource]


class CaseSession:
    """Runs eval cases with one runner and one set of metric services, kept from case to case."""

    def __init__(
        self,
        settings: Settings,
        *,
        root: Path,
        console: Console | None = None,
        config_finder: ConfigFinder | None = None,
        agent: AgentRef | None = None,
    ) -> None:
        """``config_finder``: where a file's criteria come from (default: the gate's resolution, ``--config``
        first); ``agent``: the agent of every file (default: ``settings.agent``, else the one above each file)."""
        self.settings = settings
        self.root = root
        self.console = console or Console(in_actions=False)
        self._find_config = config_finder or (lambda path: find_config(path, root=root, option=settings.config))
        self._configs = ConfigCache(root)
        self._agent = agent
        self.runner = DatasetRunner(self._chosen_runner, name=settings.runner)
        self._services: MetricServices | None = None

    def _chosen_runner(self) -> Runner:
        if self._agent is not None and self.settings.runner == "adk":
            from adk_eval_gate.runners.adk import AdkRunner

            return AdkRunner(self.settings, root=self.root, console=self.console, agent=self._agent)
        return chosen_runner(self.settings, root=self.root, console=self.console)

    async def agent_problem(self) -> str | None:
        """Why the agent given to the session cannot be imported (None: it can, or none was given)."""
        if self._agent is None or self.settings.runner != "adk":
            return None
        from adk_eval_gate.runners.adk import AdkRunner

        runner = self.runner.runner
        loaded = await runner.loaded(self._agent) if isinstance(runner, AdkRunner) else None
        return loaded if isinstance(loaded, str) else None

    def load(self, path: Path) -> PlannedFile:
        """The file with its criteria; raises ``GateError`` with the one line that says what is wrong."""
        display = display_path(path, self.root)
        config = self._configs.get(self._find_config(path))
        if path.name.endswith(DATASET_SUFFIXES):
            return PlannedFile(load_dataset(path, display=display), config, ())
        return PlannedFile(load_eval_file(path, display=display), config, ())

    def _services_for(self, planned: PlannedFile) -> MetricServices:
        if self._services is None or (self._services.judge is None and judge_metric_names([planned])):
            self._services = build_services(self.settings, [planned], self.console)
        return self._services

    async def run(self, planned: PlannedFile, eval_ids: tuple[str, ...] = ()) -> list[CaseResult]:
        """Every run (``settings.num_runs``) of the chosen cases (all when none), scored and aggregated."""
        chosen = dataclasses.replace(planned, case_ids=eval_ids)
        items = plan([chosen], num_runs=self.settings.num_runs, shard=None, run_count=self.runner.run_count)
        try:
            execution = await execute(
                items,
                runner=self.runner,
                metrics=MetricBuilder(self._services_for(planned)),
                parallelism=self.settings.parallelism,
                timeout=self.settings.timeout,
            )
        finally:
            gc.unfreeze()  # execute freezes what a gate run keeps to its end; a test process goes on
        return case_results(settings=self.settings, planned=[chosen], execution=execution)

    async def aclose(self) -> None:
        await self.runner.aclose()
        if self._services is not None:
            await self._services.aclose()

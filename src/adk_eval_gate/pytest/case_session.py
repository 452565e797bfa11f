"""The gate's own stages inside a test process: load a file with its criteria, plan and run its cases, aggregate.

Used by the pytest plugin (one eval case per test item) and by ``evaluate`` (AgentEvaluator's API). Agents run
in the gate's worker processes, as in ``run``: a tool that calls ``os._exit`` or crashes ends a worker, never
pytest, and its case is an ``error``. Dataset rows with recorded answers need no agent. What the workers print
reaches the test's output through the console, masked; every text of a result is masked before it is shown.
"""

from __future__ import annotations

import dataclasses
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from adk_eval_gate.aggregate.run_results import case_results
from adk_eval_gate.commands import sequential_run
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs import formats
from adk_eval_gate.inputs.agent_sources import AgentChoice, AgentRef, NoAgent, kept_inside
from adk_eval_gate.inputs.configs import DATASET_CONFIG_NAMES, ConfigCache, ConfigSource, LoadedConfig, find_config
from adk_eval_gate.inputs.discover import display_path, file_problem
from adk_eval_gate.inputs.load import LoadedEvalSet, with_session_beside
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem, case_id, plan
from adk_eval_gate.inputs.prepare import agent_locator, config_mismatch, graded_by_agents_cli, needs_agent
from adk_eval_gate.metrics.metric import MetricServices
from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.model.results import CaseResult
from adk_eval_gate.runners import runlog
from adk_eval_gate.runners.agents import import_problems_in_worker
from adk_eval_gate.runners.dataset_rows import DatasetRunner
from adk_eval_gate.runners.execute import MetricBuilder, RunHooks, RunLimits, execute
from adk_eval_gate.runners.factory import chosen_runner
from adk_eval_gate.runners.runner import Inference, Runner
from adk_eval_gate.runners.services import build_services, judge_metric_names
from adk_eval_gate.runners.workers.metric_process import MetricProcesses
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import EvalFileError, unexpected
from adk_eval_gate.support.masking import mask_model, secrets_in_env
from adk_eval_gate.verdict import ScoreRule

if TYPE_CHECKING:
    from adk_eval_gate.runners.adk import AdkRunner

ConfigFinder = Callable[[Path], ConfigSource]


class CurrentStdout(io.TextIOBase):
    """``sys.stdout`` as it is at each write: pytest swaps it while it captures a test's output, and in a worker
    process it is the pipe to the main process."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


class _Started:
    """The session's runner once ``start`` has set it up: ``execute`` sets up nothing again for each case."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.name = runner.name

    def run_count(self, planned: PlannedFile, case: EvalCase) -> int | None:
        return self.runner.run_count(planned, case)

    async def prepare(self, items: list[WorkItem]) -> None:
        return None

    async def wait_ready(self) -> None:
        return None

    async def infer(self, item: WorkItem) -> Inference:
        return await self.runner.infer(item)

    async def aclose(self) -> None:
        return None  # the session closes the runner


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
        score_rule: ScoreRule = "adk_eval",
    ) -> None:
        """``config_finder``: where a file's criteria come from (default: the gate's resolution, ``--config``
        first); ``agent``: the agent of every file (default: ``settings.agent``, else the one above each file);
        ``score_rule``: whose rules score a metric over a case's runs (``verdict.aggregation``: ``run``'s, or
        AgentEvaluator's for its drop-in)."""
        self.settings = settings
        self.root = root
        self.console = console or Console(
            in_actions=False, stream=cast("TextIO", CurrentStdout()), secrets=secrets_in_env(settings.environment)
        )
        self._find_config = config_finder or (lambda path: find_config(path, root=root, option=settings.config))
        self._configs = ConfigCache(root)
        self._agent = agent
        self._locator = agent_locator(settings, root) if agent is None else None
        self.score_rule = score_rule
        self.runner = DatasetRunner(self._chosen_runner, name=settings.runner)
        self._services: MetricServices | None = None
        self._started: dict[str, list[WorkItem]] = {}  # case id -> its work items, served by the started runner
        self._adk: AdkRunner | None = None  # the runner, once built, when it is the adk runner

    def _chosen_runner(self) -> Runner:
        from adk_eval_gate.runners.adk import AdkRunner

        if self._agent is not None and self.settings.runner_kind.needs_agent:
            self._adk = AdkRunner(self.settings, root=self.root, console=self.console, agent=self._agent)
            return self._adk
        runner = chosen_runner(self.settings, root=self.root, console=self.console)
        self._adk = runner if isinstance(runner, AdkRunner) else None
        return runner

    def agent_problem(self) -> str | None:
        """Why the agent given to the session cannot be imported, imported in a worker process as the case runs
        will import it (None: it can, or none was given)."""
        if self._agent is None or not self.settings.runner_kind.needs_agent:
            return None
        from adk_eval_gate.runners.adk import require_adk

        require_adk()
        problems = import_problems_in_worker(
            [self._agent], root=self.root, on_output=self.console.line, timeout=self.settings.timeout
        )
        return self.mask(problems[self._agent].one_line()) if self._agent in problems else None

    def _secrets(self) -> list[str]:
        """The secrets of the environment now (an API key an agent's .env added too) and those the workers sent."""
        for secret in secrets_in_env({**self.settings.environment, **os.environ}):
            self.console.add_secret(secret)
        return self.console.secrets

    def mask(self, text: str) -> str:
        """``text`` without a secret."""
        self._secrets()
        return self.console.mask(text)

    def masked(self, case: CaseResult) -> CaseResult:
        """The case as a test reports it: every secret masked in every field, before any of it is rendered; the
        whole error of an agent that cannot be imported, which ``run`` reports once, since each test stands alone."""
        import_error = self._adk.import_errors.get(case.error or "") if self._adk is not None else None
        if import_error is not None:
            case = case.model_copy(update={"error": import_error.one_line()})
        return mask_model(case, self._secrets())

    def load(self, path: Path) -> PlannedFile:
        """The file with its criteria; raises ``GateError`` with the one line that says what is wrong, as ``run``
        reports the file (a FIFO, a link that loops or leaves the repository, a file that cannot be read)."""
        display = display_path(path, self.root)
        problem = file_problem(path, root=self.root) or formats.not_for_pytest(path)
        if problem:
            raise EvalFileError(problem, file=display)
        try:
            loaded = with_session_beside(formats.load(path, display=display), read=self.settings.legacy_session_file)
            config = self._config_of(loaded)
        except (RecursionError, MemoryError, OSError, ValueError) as surprise:  # as run's prepare reports them
            raise EvalFileError(f"cannot be loaded ({unexpected(surprise)})", file=display) from None
        if self._agent is not None or self._locator is None:
            return PlannedFile(loaded, config, ())
        try:
            agent = kept_inside(self._locator.choose(path), option=self._locator.option, root=self.root)
        except (RecursionError, MemoryError, OSError, ValueError) as surprise:  # a path in a repository file
            raise EvalFileError(f"its agent cannot be found ({unexpected(surprise)})", file=display) from None
        if isinstance(agent, NoAgent) and self.settings.runner_kind.needs_agent and needs_agent(loaded):
            raise EvalFileError(agent.reason, file=display)
        runs = agent.num_runs if isinstance(agent, AgentChoice) and self._locator.runs_wanted else None
        return PlannedFile(loaded, config, (), agent, runs)

    def _config_of(self, loaded: LoadedEvalSet) -> LoadedConfig:
        """The file's criteria, found as ``run`` finds them: agents-cli's eval_config.yaml for the formats it
        grades, else ADK's (``config_finder``)."""
        if graded_by_agents_cli(loaded):
            names = DATASET_CONFIG_NAMES
            source = find_config(loaded.path, root=self.root, option=self.settings.config, names=names)
        else:
            source = self._find_config(loaded.path)
        config = self._configs.get(source)
        config_mismatch(loaded, config, option="--adk-config", root=self.root)
        return config

    def _services_for(self, planned: PlannedFile) -> MetricServices:
        if self._services is None or (
            self._services.judge is None and judge_metric_names([planned], service=self._services.platform is not None)
        ):
            self._services = build_services(self.settings, [planned], self.console)
        return self._services

    def _plan(self, files: list[PlannedFile]) -> list[WorkItem]:
        return plan(files, num_runs=self.settings.num_runs, shard=None, run_count=self.runner.run_count)

    async def start(self, files: list[PlannedFile]) -> None:
        """Sets the runner up once for the chosen cases of ``files`` (its worker processes import the agents), so
        that ``run`` on any of them starts no process of its own."""
        items = self._plan(files)
        with runlog.installed(self.console.line):  # the workers forked here keep each case run's log with it
            await self.runner.prepare(items)
            await self.runner.wait_ready()
        for item in items:
            self._started.setdefault(item.case_id, []).append(item)

    async def run(self, planned: PlannedFile, eval_ids: tuple[str, ...] = ()) -> list[CaseResult]:
        """Every run (``settings.num_runs``) of the chosen cases (all when none), scored and aggregated.

        Cases that ``start`` set up run on its workers; others on workers started for this call only."""
        started = [self._started.get(case_id(planned.loaded.display, eval_id)) for eval_id in eval_ids]
        runner: Runner
        if eval_ids and all(started):
            items = [item for items in started if items for item in items]
            chosen, runner = items[0].file, _Started(self.runner)
        else:
            chosen, runner = dataclasses.replace(planned, case_ids=eval_ids), self.runner
            items = self._plan([chosen])
        try:
            with runlog.installed(self.console.line):
                execution = await execute(
                    items,
                    runner=runner,
                    metrics=MetricBuilder(
                        self._services_for(planned),
                        processes=MetricProcesses(timeout=self.settings.timeout, on_output=self.console.line),
                    ),
                    limits=RunLimits(parallelism=self.settings.parallelism, timeout=self.settings.timeout),
                    hooks=RunHooks(waves=sequential_run.schedule(self.settings, items=items)),
                )
        finally:
            if runner is self.runner:
                await self.runner.aclose()  # the workers started for this call
        return case_results(settings=self.settings, planned=[chosen], execution=execution, score_rule=self.score_rule)

    async def aclose(self) -> None:
        await self.runner.aclose()
        if self._services is not None:
            await self._services.aclose()

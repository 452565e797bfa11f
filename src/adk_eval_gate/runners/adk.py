"""The ``adk`` runner: every case run goes through google-adk's ``Runner``, as ``adk eval`` does, in the agent
worker processes (``runners.workers.pool``, forked by the worker starter: ``start_early``), or in this process with
``--workers 0``.

Per case run (``runners.adk_case``): a fresh in-memory session seeded from ``session_input`` (app name, user id,
state, pinned id; ADK's defaults otherwise), the user turns of the conversation (or ADK's LLM-backed user simulator
for a ``conversation_scenario``), a plugin that remembers each model request (for ``app_details``) and one that adds
ADK's default HTTP retry options to model calls, and the events turned into actual invocations by
``runners.invocations``. google-adk is imported only where the agents run.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.agent_sources import AgentChoice, AgentRef, NoAgent, agent_folder_above
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model import evalset, schemas, tokens
from adk_eval_gate.model.evalset import EvalCase, SessionInput
from adk_eval_gate.runners import runlog
from adk_eval_gate.runners.adk_case import local_models, run_case, warm_up
from adk_eval_gate.runners.agents import AgentError, LoadedAgent, load_agent, load_env
from adk_eval_gate.runners.invocations import to_invocations
from adk_eval_gate.runners.run_failures import describe_agent_error, transient_failure
from adk_eval_gate.runners.runner import Inference, escaped, plain_state
from adk_eval_gate.runners.simulation import UserSimulatorFailed, user_turns
from adk_eval_gate.runners.workers import observe
from adk_eval_gate.runners.workers.pool import WorkerPool, default_worker_count
from adk_eval_gate.runners.workers.starter import Starter
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.support.masking import secrets_in_env

DEFAULT_APP_NAME = "EvaluationGenerator"
DEFAULT_USER_ID = "test_user_id"
SESSION_ID_PREFIX = "adk-eval-session-"
INSTALL_HINT = "pip install 'adk-eval-gate[adk]', or list google-adk in the action's requirements"
EMPTY_APP_NAME = (
    "the case's session_input.app_name is empty, and ADK's Runner refuses an agent without an app name (ADK's own "
    "eval fails this case the same way): set app_name in the eval file, e.g. to the agent folder's name"
)


class AdkMissingError(GateError):
    """google-adk is not installed."""


@dataclass
class AgentsImported:
    """What importing the agents of a run left: the agents that cannot be used, and the secrets in the
    environment afterwards (a worker process sends both to the main process, which masks the secrets too)."""

    problems: list[AgentError]
    secrets: list[str]


def require_adk() -> None:
    try:
        import google.adk.runners  # noqa: F401
    except ImportError as error:
        raise AdkMissingError(
            f"the adk runner needs google-adk, which cannot be imported ({error})", hint=INSTALL_HINT
        ) from None


def session_identity(session_input: SessionInput | None) -> tuple[str, str, str]:
    """(app name, user id, session id) of a case run's session, with ADK's defaults."""
    app_name = session_input.app_name if session_input else DEFAULT_APP_NAME
    user_id = session_input.user_id if session_input else DEFAULT_USER_ID
    pinned = session_input.session_id if session_input else None
    return app_name, user_id, pinned or f"{SESSION_ID_PREFIX}{uuid.uuid4()}"


def _adk_installed() -> bool:
    """Whether google-adk can be found, without importing it (the main process leaves that to the workers)."""
    try:
        return importlib.util.find_spec("google.adk") is not None
    except (ImportError, ValueError):
        return False


def _worker_count(settings: Settings) -> int:
    return default_worker_count(settings.parallelism) if settings.workers is None else settings.workers


def start_early(settings: Settings) -> Starter | None:
    """The worker starter, forked now, when this run will run agents in worker processes: it imports google-adk
    and warms it up while this process discovers, loads and plans (``AdkRunner`` takes it)."""
    if settings.runner != "adk" or _worker_count(settings) < 1 or not _adk_installed():
        return None
    return Starter.start(warm_process)


def warm_process() -> None:
    """What every worker process needs before it imports an agent, done once in the starter: google-adk imported
    and one turn of a built-in agent run, and what importing an agent uses (ADK's .env loader). Workers score
    nothing: the gate's process scores every metric."""
    require_adk()
    from google.adk.cli.utils import envs  # noqa: F401

    from adk_eval_gate.runners import adk_plugins  # noqa: F401

    asyncio.run(warm_up())
    schemas.build(schemas.models_of([evalset, tokens]))  # what a case run makes: its invocations, token figures


class AdkRunner:
    name = "adk"

    def __init__(
        self,
        settings: Settings,
        *,
        root: Path,
        console: Console | None = None,
        agent: AgentRef | None = None,
        starter: Starter | None = None,
        observe_inputs: bool = False,
    ) -> None:
        """``agent``: the agent of every file, instead of ``--agent`` or the one found above each file;
        ``starter``: the worker starter this run started early (``start_early``); ``observe_inputs``: report with
        each run the repository files its agent used (``Inference.observed``)."""
        self.worker_count = _worker_count(settings)
        if self.worker_count < 1:
            require_adk()  # the agents run here
        elif not _adk_installed():
            raise AdkMissingError("the adk runner needs google-adk, which is not installed", hint=INSTALL_HINT)
        self.root = root
        self.option = agent  # every file's agent (a test's AgentEvaluator call); else each file's own
        self.verbose = settings.verbose
        self.console = console
        self._starter = starter
        self._agents: dict[AgentRef, LoadedAgent | AgentError] = {}
        self._refs: dict[str, AgentRef | str] = {}
        self._pool: WorkerPool | None = None
        self.import_errors: dict[str, AgentError] = {}  # each agent that cannot be imported, by its cases' reason
        self._used = observe.AgentInputs(root) if observe_inputs else None

    @classmethod
    def serving(cls, root: Path, option: AgentRef | None, verbose: bool, observe_inputs: bool) -> AdkRunner:
        """The runner of a worker process (``WorkerPool``'s job): it imports the agents and runs case runs there
        (observing the files they use when ``observe_inputs``)."""
        runner = cls.__new__(cls)
        runner.worker_count, runner.root, runner.option, runner.verbose = 0, root, option, verbose
        runner.console, runner._starter, runner._pool = None, None, None
        runner._agents, runner._refs, runner.import_errors = {}, {}, {}
        runner._used = observe.AgentInputs(root) if observe_inputs else None
        return runner

    def agent_for(self, planned: PlannedFile) -> AgentRef | str:
        """The agent of an eval file (``inputs.agent_sources`` found it), or why there is none."""
        if self.option is not None:
            return self.option
        if isinstance(planned.agent, AgentChoice):
            return planned.agent.ref
        if isinstance(planned.agent, NoAgent):
            return planned.agent.reason
        display = planned.loaded.display  # a file nobody looked an agent up for: the folder above it, as adk eval
        if display not in self._refs:
            found = agent_folder_above(planned.loaded.path, root=self.root)
            self._refs[display] = found or f"no ADK agent folder found above {display}; give one with --agent"
        return self._refs[display]

    def run_count(self, planned: PlannedFile, case: EvalCase) -> int | None:
        return None

    async def prepare(self, items: list[WorkItem]) -> None:
        """Imports every agent the items need, once; with worker processes, starts them doing so. A file without
        an agent is said once here; each of its cases is an error with the reason."""
        for planned in {item.file.loaded.display: item.file for item in items}.values():
            ref = self.agent_for(planned)
            if isinstance(ref, AgentRef):
                load_env(ref)  # metrics in this process may need the agent's .env (e.g. a judge's API key)
            elif self.console is not None:
                self.console.error(f"{planned.loaded.display}: {ref}", file=planned.loaded.display)
        if self.console is not None:
            for secret in secrets_in_env(os.environ):  # an API key from an agent's .env is masked like the others
                self.console.add_secret(secret)
        if self.worker_count >= 1 and items:
            self._pool = WorkerPool(
                count=min(self.worker_count, len(items)),
                job=functools.partial(AdkRunner.serving, self.root, self.option, self.verbose, self._used is not None),
                warm=warm_process,
                starter=self._starter,
                on_output=self.console.line if self.console else None,
            )
            self._starter = None  # the pool ends it
            self._pool.start(items)
            schemas.build(schemas.package_models())  # this process's, while the workers start: not after the runs
        else:
            self._report(await self.load_agents(items))

    async def wait_ready(self) -> None:
        """Returns when every worker process has imported the agents (at once without workers)."""
        if self._pool is not None:
            await self._pool.wait_ready()
            for ready in self._pool.setup_results:
                self._report(AgentsImported([problem.error() for problem in ready.problems], ready.secrets))

    def _report(self, imported: AgentsImported) -> None:
        """Masks what the agents' .env files hold from now on; reports each agent that cannot be imported once,
        with what to do (its cases give the reason without it)."""
        if self.console is None:
            return
        for secret in imported.secrets:
            self.console.add_secret(secret)
        for problem in imported.problems:
            if problem.reason() not in self.import_errors:
                self.import_errors[problem.reason()] = problem
                self.console.error(problem.one_line(), file=problem.source_file, line=problem.source_line)

    async def load_agents(self, items: list[WorkItem]) -> AgentsImported:
        """Imports the items' agents: the errors of those that cannot be imported, and the secrets in the
        environment then (a module agent's .env is only loaded where it is imported)."""
        await warm_up()
        if self._used is not None:
            observe.install(self.root)
        refs = dict.fromkeys(ref for item in items if isinstance(ref := self.agent_for(item.file), AgentRef))
        loaded = [await self.loaded(ref) for ref in refs]
        return AgentsImported([agent for agent in loaded if isinstance(agent, AgentError)], secrets_in_env(os.environ))

    async def loaded(self, ref: AgentRef) -> LoadedAgent | AgentError:
        """The agent, imported once, or why it cannot be used."""
        if ref not in self._agents:
            with observe.recording() as used:
                try:
                    self._agents[ref] = await load_agent(ref, root=self.root)
                except AgentError as error:
                    self._agents[ref] = error
            if self._used is not None:
                self._used.imported(ref, used)
        return self._agents[ref]

    async def _agent(self, planned: PlannedFile) -> LoadedAgent | str:
        ref = self.agent_for(planned)
        if isinstance(ref, str):
            return ref
        agent = await self.loaded(ref)
        return agent.reason() if isinstance(agent, AgentError) else agent

    async def infer(self, item: WorkItem) -> Inference:
        if self._pool is not None:
            return await self._pool.infer(item)
        return await self.run_here(item)

    async def run_here(self, item: WorkItem) -> Inference:
        """One case run in this process, with what ADK and the agent logged meanwhile."""
        if self._used is not None:
            observe.install(self.root)
        with runlog.capture() as case_log, observe.recording() as used:
            inference = await self._run_here(item)
        inference.log = case_log.result()
        inference.observed = self._observed(item, used)
        return inference

    def _observed(self, item: WorkItem, used: set[str]) -> list[str] | None:
        """What the item's agent used (``observe.AgentInputs``); None when it is not observed or could not be
        imported: then what it would have used is not known."""
        ref = self.agent_for(item.file)
        if self._used is None or not isinstance(ref, AgentRef) or not isinstance(self._agents.get(ref), LoadedAgent):
            return None
        return self._used.of_run(ref, used)

    async def _run_here(self, item: WorkItem) -> Inference:
        agent = await self._agent(item.file)
        if isinstance(agent, str):
            return Inference(error=agent)
        try:
            turns = user_turns(item)
        except GateError as error:
            return Inference(error=error.one_line())
        app_name, user_id, session_id = session_identity(item.case.session_input)
        try:
            conversation = await run_case(
                agent, case=item.case, turns=turns, app_name=app_name, user_id=user_id, session_id=session_id
            )
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # sys.exit() and KeyboardInterrupt in a tool end this case run only
            retryable, retry_after = transient_failure(error)
            if not app_name and isinstance(error, ValueError) and "app_name is required" in str(error):
                return Inference(error=EMPTY_APP_NAME, session_id=session_id)
            return Inference(  # a failing user simulator is the user's side of the run, not the agent
                error=error.one_line()
                if isinstance(error, UserSimulatorFailed)
                else describe_agent_error(escaped(error), agent.ref),
                session_id=session_id,
                retryable=retryable,
                retry_after=retry_after,
            )
        return Inference(
            invocations=to_invocations(
                conversation.events, timings=conversation.timings, app_details=conversation.details
            ),
            session_id=session_id,
            simulator_calls=list(turns.calls),
            final_session_state=plain_state(conversation.state) if conversation.state is not None else None,
            local_models=local_models(agent, conversation.events),
        )

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
        if self._starter is not None:  # started early, never used (no case to run)
            await asyncio.to_thread(self._starter.close)
            self._starter = None

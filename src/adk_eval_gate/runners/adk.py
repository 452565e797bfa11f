"""The ``adk`` runner: every case run goes through google-adk's ``Runner`` in this process, as ``adk eval`` does.

Per case run: a fresh in-memory session seeded from ``session_input`` (app name, user id, state, pinned id;
ADK's defaults otherwise), the user turns of the conversation (or ADK's LLM-backed user simulator for a
``conversation_scenario``), a plugin that remembers each model request (for ``app_details``) and one that adds
ADK's default HTTP retry options to model calls, and the events turned into actual invocations by
``runners.invocations``. google-adk is imported only when this runner is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import PlannedFile, WorkItem
from adk_eval_gate.model.evalset import AgentDetails, AppDetails, EvalCase, Invocation, SessionInput
from adk_eval_gate.runners import observe, runlog
from adk_eval_gate.runners.agents import (
    AgentError,
    AgentRef,
    LoadedAgent,
    find_agent,
    load_agent,
    load_env,
    parse_agent_option,
)
from adk_eval_gate.runners.base import Inference, escaped, plain_state
from adk_eval_gate.runners.errors import describe_agent_error, transient_failure
from adk_eval_gate.runners.invocations import AgentEvent, TurnTiming, from_adk_event, to_invocations, user_event
from adk_eval_gate.runners.simulation import UserTurns, user_turns
from adk_eval_gate.runners.workers import WorkerPool, default_worker_count
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.support.masking import secrets_in_env

DEFAULT_APP_NAME = "EvaluationGenerator"
DEFAULT_USER_ID = "test_user_id"
SESSION_ID_PREFIX = "adk-eval-session-"
INSTALL_HINT = "pip install 'adk-eval-gate[adk]', or list google-adk in the action's requirements"


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


class AdkRunner:
    name = "adk"

    def __init__(
        self,
        settings: Settings,
        *,
        root: Path,
        console: Console | None = None,
        agent: AgentRef | None = None,
        observe_inputs: bool = False,
    ) -> None:
        """``agent``: the agent of every file, instead of ``--agent`` or the one found above each file;
        ``observe_inputs``: report with each run the repository files its agent used (``Inference.observed``)."""
        require_adk()
        self.root = root
        self.option = agent or (parse_agent_option(settings.agent, root=root) if settings.agent else None)
        self.worker_count = default_worker_count(settings.parallelism) if settings.workers is None else settings.workers
        self.console = console
        self._agents: dict[AgentRef, LoadedAgent | AgentError] = {}
        self._refs: dict[str, AgentRef | str] = {}
        self._pool: WorkerPool | None = None
        self.import_errors: dict[str, AgentError] = {}  # each agent that cannot be imported, by its cases' reason
        self._used = observe.AgentInputs(root) if observe_inputs else None

    def agent_for(self, planned: PlannedFile) -> AgentRef | str:
        """The agent of an eval file, or why there is none."""
        display = planned.loaded.display
        if display not in self._refs:
            found = self.option or find_agent(planned.loaded.path, root=self.root)
            self._refs[display] = found or (
                f"no ADK agent folder found above {display} (a folder with __init__.py and agent.py); "
                "give one with --agent"
            )
        return self._refs[display]

    def run_count(self, planned: PlannedFile, case: EvalCase) -> int | None:
        return None

    async def prepare(self, items: list[WorkItem]) -> None:
        """Imports every agent the items need, once; with worker processes, starts them doing so."""
        for ref in {self.agent_for(item.file) for item in items}:
            if isinstance(ref, AgentRef):
                load_env(ref)  # metrics in this process may need the agent's .env (e.g. a judge's API key)
        if self.console is not None:
            for secret in secrets_in_env(os.environ):  # an API key from an agent's .env is masked like the others
                self.console.add_secret(secret)
        if self.worker_count >= 1 and items:
            self._pool = WorkerPool(
                count=min(self.worker_count, len(items)),
                setup=self.load_agents,
                run=self.run_here,
                on_output=self.console.line if self.console else None,
            )
            self._pool.start(items)
        else:
            self._report(await self.load_agents(items))

    async def wait_ready(self) -> None:
        """Returns when every worker process has imported the agents (at once without workers)."""
        if self._pool is not None:
            await self._pool.wait_ready()
            for imported in self._pool.setup_results:
                self._report(imported)

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
            conversation = await _run_case(
                agent, case=item.case, turns=turns, app_name=app_name, user_id=user_id, session_id=session_id
            )
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # sys.exit() and KeyboardInterrupt in a tool end this case run only
            retryable, retry_after = transient_failure(error)
            return Inference(
                error=describe_agent_error(escaped(error), agent.ref),
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
        )

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


async def warm_up() -> None:
    """One turn of a tiny built-in agent: ADK imports much of itself lazily on the first turn (about 0.5 s).

    Done before the case runs' clocks start, and before worker processes are forked so they inherit it.
    """
    from google.genai import types as genai_types

    from adk_eval_gate.runners.adk_plugins import warm_up_agent
    from adk_eval_gate.runners.agents import AgentRef
    from adk_eval_gate.runners.simulation import StaticTurns

    agent = LoadedAgent(AgentRef("module", "warm-up", "warm-up"), warm_up_agent(), None)
    message = genai_types.Content(role="user", parts=[genai_types.Part(text="warm up")])
    case = EvalCase(eval_id="warm-up", conversation=[Invocation(user_content=message)])
    with contextlib.suppress(Exception):  # only an optimisation
        await _run_case(
            agent, case=case, turns=StaticTurns(case), app_name="warm-up", user_id="warm-up", session_id="warm-up"
        )


def _plugins() -> tuple[Any, list[Any]]:
    from adk_eval_gate.runners.adk_plugins import EnsureRetryOptions, RequestRecorder

    recorder = RequestRecorder()
    return recorder, [recorder, EnsureRetryOptions()]


def _runner(agent: LoadedAgent, *, app_name: str, plugins: list[Any], session_service: Any) -> Any:
    from google.adk.artifacts.in_memory_artifact_service import InMemoryArtifactService
    from google.adk.memory.in_memory_memory_service import InMemoryMemoryService
    from google.adk.runners import Runner

    services = {
        "session_service": session_service,
        "artifact_service": InMemoryArtifactService(),
        "memory_service": InMemoryMemoryService(),
    }
    if agent.app is None:
        return Runner(app_name=app_name, agent=agent.root_agent, plugins=plugins, **services)
    app = agent.app.model_copy(update={"plugins": [*agent.app.plugins, *plugins], "root_agent": agent.root_agent})
    return Runner(app=app, app_name=app_name, **services)


@contextlib.contextmanager
def _busy_intervals() -> Iterator[Any]:
    """ADK's collector of the time spent awaiting models and inside tools (None if this ADK lacks it)."""
    try:
        from google.adk.telemetry import _instrumentation
    except ImportError:
        yield None
        return
    collect = getattr(_instrumentation, "collect_busy_intervals", None)
    if collect is None:
        yield None
        return
    with collect() as busy:
        yield busy


def _eval_label() -> contextlib.AbstractContextManager[Any]:
    try:
        from google.adk.utils._client_labels_utils import EVAL_CLIENT_LABEL, client_label_context
    except ImportError:
        return contextlib.nullcontext()
    return client_label_context(EVAL_CLIENT_LABEL)


@dataclass
class _Conversation:
    """What one case run left: its events, each turn's timing, the app details and the session state after it."""

    events: list[AgentEvent]
    timings: dict[str, TurnTiming]
    details: dict[str, AppDetails]
    state: dict[str, Any] | None


async def _run_case(
    agent: LoadedAgent, *, case: EvalCase, turns: UserTurns, app_name: str, user_id: str, session_id: str
) -> _Conversation:
    from google.adk.events.event import Event
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    session_service = InMemorySessionService()
    state = copy.deepcopy(case.session_input.state) if case.session_input else {}
    await session_service.create_session(app_name=app_name, user_id=user_id, state=state, session_id=session_id)
    recorder, plugins = _plugins()
    events: list[AgentEvent] = []
    adk_events: list[Any] = []  # what the user simulator reads
    timings: dict[str, TurnTiming] = {}
    with _eval_label():
        async with _runner(agent, app_name=app_name, plugins=plugins, session_service=session_service) as runner:
            while (message := await turns.next_message(adk_events)) is not None:
                started = time.monotonic()
                invocation_id = None
                with _busy_intervals() as busy:
                    async with contextlib.aclosing(
                        runner.run_async(user_id=user_id, session_id=session_id, new_message=message)
                    ) as stream:
                        async for event in stream:
                            if invocation_id is None:
                                invocation_id = event.invocation_id
                                events.append(user_event(message, invocation_id))
                                adk_events.append(Event(content=message, author="user", invocation_id=invocation_id))
                            events.append(from_adk_event(event))
                            adk_events.append(event)
                if invocation_id is not None:
                    timings[invocation_id] = TurnTiming(
                        duration=round(time.monotonic() - started, 3),
                        model_duration=round(busy.model_seconds(), 3) if busy is not None else None,
                        tool_duration=round(busy.tool_seconds(), 3) if busy is not None else None,
                    )
    session = await session_service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
    final_state = dict(session.state) if session is not None else None
    return _Conversation(events, timings, _app_details(adk_events, recorder), final_state)


def _app_details(adk_events: list[Any], recorder: Any) -> dict[str, AppDetails]:
    """Per invocation: each agent's instructions and tool declarations as actually sent to its model."""
    details: dict[str, AppDetails] = {}
    for event in adk_events:
        app = details.setdefault(event.invocation_id, AppDetails(agent_details={}))
        if event.author == "user" or event.author in app.agent_details:
            continue
        request = recorder.request_for(event)
        if request is None:
            continue
        config = request.config
        instructions = config.system_instruction if config else None
        if not isinstance(instructions, str):
            from adk_eval_gate.model.evalset import content_text

            instructions = (
                content_text(instructions) if instructions is not None and hasattr(instructions, "parts") else ""
            )
        app.agent_details[event.author] = AgentDetails(
            name=event.author, instructions=instructions, tool_declarations=list(config.tools or []) if config else []
        )
    return details

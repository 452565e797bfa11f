"""One case run through google-adk's ``Runner``, as ADK's eval makes it: a fresh in-memory session seeded from the
case, the user's turns sent one after the other, the events turned into actual invocations (``runners.invocations``)
with each turn's timing and the instructions and tool declarations each agent really sent (``app_details``); and
the warm-up turn that makes ADK import what it otherwise imports on a first turn (and remember the optional imports
it tries on every turn and cannot make: ``MissingImports``). Imports google-adk when called.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from adk_eval_gate.inputs.agent_sources import AgentRef
from adk_eval_gate.metrics.efficiency import UNKNOWN_MODEL
from adk_eval_gate.model.evalset import AgentDetails, AppDetails, EvalCase, Invocation
from adk_eval_gate.runners.agents import LoadedAgent
from adk_eval_gate.runners.invocations import AgentEvent, TurnTiming, from_adk_event, user_event
from adk_eval_gate.runners.seeded_history import adk_events as history_events
from adk_eval_gate.runners.seeded_history import seeded_history
from adk_eval_gate.runners.simulation import UserTurns

_WARM: list[bool] = []  # set once this process (or the one it was forked from) has warmed up

# Optional modules ADK imports inside a function it calls on every turn, catching the ImportError when their
# dependency is missing (``build_node`` tries ``google.adk.agents.remote_a2a_agent``, which needs the a2a package).
# Python remembers no failed import: each try searches sys.path and runs the module's first lines again, about 1 ms
# of a turn's 10 ms of CPU.
PER_TURN_OPTIONAL_IMPORTS = ("google.adk.agents.remote_a2a_agent",)


class MissingImports(importlib.abc.MetaPathFinder):
    """Remembers the imports of ``PER_TURN_OPTIONAL_IMPORTS`` that failed once, and fails them again at once, with
    the same error (``ModuleNotFoundError``, the same message: agent code that imports one sees what it would;
    only ``importlib.util.find_spec`` of such a module raises it too, where it would have found the file)."""

    def __init__(self) -> None:
        self.failed: dict[str, tuple[str, str | None, str | None]] = {}  # module: the error's message, name, path

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        failed = self.failed.get(fullname)
        if failed is not None:
            message, name, path_of = failed
            raise ModuleNotFoundError(message, name=name, path=path_of)
        return None

    def learn(self, names: Sequence[str]) -> None:
        """Tries each module once; those that cannot be imported are failed at once from now on."""
        for name in names:
            if name in sys.modules or name in self.failed:
                continue
            try:
                importlib.import_module(name)
            except ImportError as error:  # kept without its traceback and the frames it holds
                self.failed[name] = (str(error), error.name, error.path)
        if self.failed and self not in sys.meta_path:
            sys.meta_path.insert(0, self)


MISSING_IMPORTS = MissingImports()


async def warm_up() -> None:
    """One turn of a tiny built-in agent: ADK imports much of itself lazily on the first turn (about 0.5 s).

    Done before the case runs' clocks start, in the worker starter so the workers inherit it (once a process).
    """
    if _WARM:
        return
    _WARM.append(True)
    MISSING_IMPORTS.learn(PER_TURN_OPTIONAL_IMPORTS)
    from google.genai import types as genai_types

    from adk_eval_gate.runners.adk_plugins import warm_up_agent
    from adk_eval_gate.runners.simulation import StaticTurns

    agent = LoadedAgent(AgentRef("module", "warm-up", "warm-up"), warm_up_agent(), None)
    message = genai_types.Content(role="user", parts=[genai_types.Part(text="warm up")])
    case = EvalCase(eval_id="warm-up", conversation=[Invocation(user_content=message)])
    with contextlib.suppress(Exception):  # only an optimisation
        await run_case(
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


# The OpenTelemetry API's own providers, in place until something sets one (agent code, an instrumentation).
DEFAULT_TELEMETRY_PROVIDERS = ("ProxyTracerProvider", "_ProxyMeterProvider", "ProxyLoggerProvider")


def telemetry_exported() -> bool:
    """Whether anything in this process can see ADK's telemetry: a tracer, meter or logger provider was set."""
    try:
        from opentelemetry import _logs, metrics, trace

        providers = (trace.get_tracer_provider(), metrics.get_meter_provider(), _logs.get_logger_provider())
    except Exception:  # an OpenTelemetry we cannot read: as if exported
        return True
    return tuple(type(provider).__name__ for provider in providers) != DEFAULT_TELEMETRY_PROVIDERS


def _run_config() -> Any:
    """ADK's run config for a case run's turns: its defaults (None) while anything can see ADK's telemetry;
    otherwise one whose telemetry is the cheapest ADK makes (stable semantic conventions, no message content).

    ADK fills its model-call spans and log records on every call whether or not a provider is set. With nothing set
    they are no-ops, and what ADK built for them (every request's messages, instructions and tool declarations in
    the experimental conventions, and a config read from the environment per call) was about 15% of a turn's CPU.
    What the agents do, their events, and ADK's model and tool times (``_busy_intervals``) are the same."""
    if telemetry_exported():
        return None
    from google.adk.agents.run_config import RunConfig
    from google.adk.telemetry.context import ContentCapturingMode, TelemetryConfig

    quiet = TelemetryConfig(
        genai_semconv_stability_opt_in="stable", capture_message_content=ContentCapturingMode.NO_CONTENT
    )
    return RunConfig(telemetry=quiet)


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


async def run_case(
    agent: LoadedAgent, *, case: EvalCase, turns: UserTurns, app_name: str, user_id: str, session_id: str
) -> _Conversation:
    from google.adk.events.event import Event
    from google.adk.sessions.base_session_service import GetSessionConfig
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    session_service = InMemorySessionService()
    seeded = seeded_history(case, root_agent=getattr(agent.root_agent, "name", None))
    created = await session_service.create_session(
        app_name=app_name, user_id=user_id, state=seeded.state, session_id=session_id
    )
    for event in history_events(seeded, invocation_id=f"{session_id}-history"):  # a dataset case's conversation so far
        await session_service.append_event(created, event)
    recorder, plugins = _plugins()
    run_config = _run_config()  # once a case run: making it took 2% of a worker's CPU when made for each turn
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
                        runner.run_async(
                            user_id=user_id, session_id=session_id, new_message=message, run_config=run_config
                        )
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
    session = await session_service.get_session(  # its state only: the service deep-copies what it returns
        app_name=app_name, user_id=user_id, session_id=session_id, config=GetSessionConfig(num_recent_events=0)
    )
    final_state = dict(session.state) if session is not None else None
    return _Conversation(events, timings, _app_details(adk_events, recorder), final_state)


def own_model_class(llm_class: type[Any]) -> bool:
    """Whether a ``BaseLlm`` subclass is the user's own model: none of its model classes but ``BaseLlm`` itself comes
    from google-adk (a scripted model, a wrapper of a model on the user's machine), unlike ADK's ``Gemini``,
    ``Claude``, ``LiteLlm`` and the other provider classes, and the classes derived from them."""
    from google.adk.models.base_llm import BaseLlm

    return not any(
        klass.__module__.startswith("google.adk.")
        for klass in llm_class.__mro__
        if isinstance(klass, type) and issubclass(klass, BaseLlm) and klass is not BaseLlm
    )


def _local_authors(root_agent: Any) -> frozenset[str]:
    """The agents of the tree whose model (their own, or the one they take from an ancestor, as ADK resolves it)
    is a class of the user's own."""
    from google.adk.models.base_llm import BaseLlm

    found: set[str] = set()
    seen: set[int] = set()
    stack = [root_agent]
    while stack:
        agent = stack.pop()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        stack.extend(getattr(agent, "sub_agents", None) or [])
        try:
            model = agent.canonical_model
        except Exception:  # not an LLM agent, or a model name ADK cannot resolve: not known to be local
            continue
        if isinstance(model, BaseLlm) and own_model_class(type(model)):
            found.add(str(agent.name))
    return frozenset(found)


def local_models(agent: LoadedAgent, events: Sequence[AgentEvent]) -> list[str]:
    """The models, named as the calls reported them (as the usage figures name them), that answered the run's
    agents through a model class of the user's own: what the docs call local models (their cost is not asked
    for)."""
    if agent.local_authors is None:
        agent.local_authors = _local_authors(agent.root_agent)
    return sorted(
        {
            event.model_version or UNKNOWN_MODEL
            for event in events
            if event.author in agent.local_authors
            and (event.usage_metadata is not None or event.model_version is not None)
        }
    )


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

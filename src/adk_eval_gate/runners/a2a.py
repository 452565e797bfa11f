"""The ``a2a`` runner: drive an agent served over the Agent2Agent protocol (ADK's ``to_a2a``, any A2A server).

The agent card (``runners.a2a_card``) is fetched once and checked. Each case run is one A2A conversation: every
user turn is a message in the same context (the server's ``context_id`` from the first answer on), sent with the
official client (a2a-sdk) over the transport the card prefers of JSON-RPC and HTTP+JSON, streamed
(``message/stream``) when the card offers streaming, else ``message/send`` with the task polled (``tasks/get``)
until it ends. Each turn's answer is read into agent events (``runners.a2a_reading``), so an ADK server's tool calls
and usage are scored as in-process. The protocol's states: ``input-required`` is answered by the case's next user
turn (with none left the case ends naming it), ``auth-required``, ``failed``, ``rejected`` and ``canceled`` end the
case with the agent's reason; a case run stopped by --timeout cancels its open task (``tasks/cancel``).

Requests carry ``--agent-header`` (masked wherever printed) and go to ``--agent-url``'s origin only; answers are
read within limits (``runners.a2a_transport``); a 429, a 5xx or a lost connection makes the whole case run again in
a fresh context (``execute.CASE_RUN_RETRY``), honouring ``Retry-After`` for the card.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import httpx
from google.genai import types as genai_types

from adk_eval_gate import __version__
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.model.results import ServedAgent
from adk_eval_gate.runners.a2a_card import HTTP_JSON, JSONRPC, CardFacts, fetch_card
from adk_eval_gate.runners.a2a_reading import FINISHED, INTERRUPTED, TurnRead, TurnReader, plain
from adk_eval_gate.runners.a2a_transport import A2aLimits, GuardedClient, guarded_client
from adk_eval_gate.runners.http import AGENT_SERVER_RETRY
from adk_eval_gate.runners.http_headers import parse_headers
from adk_eval_gate.runners.http_reading import AgentServerError
from adk_eval_gate.runners.invocations import AgentEvent, TurnTiming, to_invocations, user_event
from adk_eval_gate.runners.remote import RemoteRunner, Transient
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.runners.simulation import SimulatedTurns, user_turns
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError, UsageError
from adk_eval_gate.support.retry import retry_after_seconds, transient_status

CANCEL_SECONDS = 5.0  # how long tasks/cancel may take once a case run is stopped
POLL_SECONDS = (0.05, 1.0)  # the first and the longest wait between two tasks/get of a task that is not done
TOOLS_UNSEEN = (
    "the A2A server does not show its tool calls (only ADK's A2A executor sends them, as data parts with ADK's "
    "metadata), so the tool trajectory cannot be evaluated over A2A"
)


def _cause(error: BaseException) -> BaseException:
    """The first of an error's causes that says more than a wrapper (a2a-sdk wraps httpx's errors)."""
    seen = error
    while seen.__cause__ is not None and not isinstance(seen, (httpx.HTTPError, GateError)):
        seen = seen.__cause__
    return seen


def _failure(error: BaseException, what: str) -> Exception:
    """What a failed exchange with the server is: transient (run the case again), ours to refuse, or the server's."""
    cause = _cause(error)
    if isinstance(cause, GateError):
        return cause
    if isinstance(cause, httpx.HTTPStatusError):
        status = cause.response.status_code
        message = f"{what} answered HTTP {status}"
        if transient_status(status):
            return Transient(message, retry_after_seconds(cause.response.headers))
        return AgentServerError(message)
    if isinstance(error, RecursionError) or isinstance(cause, RecursionError):
        return AgentServerError(f"{what} sent JSON nested too deep to read")
    if isinstance(cause, httpx.TimeoutException):
        return Transient(f"{what} did not answer in time ({type(cause).__name__})")
    if isinstance(cause, httpx.TransportError):
        return Transient(f"{what} failed: {type(cause).__name__}: {cause}")
    detail = " ".join(str(error).split())[:300]
    return AgentServerError(f"{what} failed: {type(error).__name__}: {detail}")


def _user_message(content: genai_types.Content, *, context_id: str | None, task_id: str | None) -> Any:
    from a2a.types import a2a_pb2

    parts = [a2a_pb2.Part(text=part.text) for part in content.parts or [] if part.text is not None]
    message = a2a_pb2.Message(message_id=uuid.uuid4().hex, role=a2a_pb2.Role.ROLE_USER, parts=parts)
    if context_id:
        message.context_id = context_id
    if task_id:
        message.task_id = task_id
    return message


def _require_a2a_sdk() -> None:
    try:
        import a2a.client  # noqa: F401
    except ImportError as error:
        raise UsageError(
            f"the a2a runner needs a2a-sdk, which cannot be imported ({error})",
            field="--runner",
            hint="pip install 'adk-eval-gate[a2a]'",
        ) from None


class A2aRunner(RemoteRunner):
    name = "a2a"

    def __init__(self, settings: Settings, *, console: Console | None = None, limits: A2aLimits | None = None) -> None:
        assert settings.agent_url is not None
        _require_a2a_sdk()
        self.agent_url = settings.agent_url.rstrip("/")
        self.headers = {"User-Agent": f"adk-eval-gate/{__version__}"}
        self.headers.update(parse_headers(settings.agent_headers, env=settings.environment, console=console))
        self.timeout = settings.timeout
        self.parallelism = settings.parallelism
        self.limits = limits or A2aLimits()
        self.served: CardFacts | None = None  # the agent card, once fetched (results.json's run.served_agent)
        self._http: GuardedClient | None = None
        self._client: Any = None
        self._card_lock: asyncio.Lock | None = None

    def http(self) -> GuardedClient:
        if self._http is None:
            connections = max(self.parallelism, 1) + 4
            self._http = guarded_client(
                headers=self.headers, timeout=self.timeout, connections=connections, limits=self.limits
            )
        return self._http

    async def card(self) -> CardFacts:
        """The agent card, fetched once (retried on 429, 5xx and lost connections, honouring Retry-After)."""
        if self._card_lock is None:
            self._card_lock = asyncio.Lock()
        async with self._card_lock:
            if self.served is None:
                self.served = await self._fetch_card()
            return self.served

    async def _fetch_card(self) -> CardFacts:
        what = f"the A2A server at {self.agent_url}"
        for attempt in range(1, AGENT_SERVER_RETRY.attempts + 1):
            try:
                return await fetch_card(self.http(), agent_url=self.agent_url)
            except (httpx.HTTPError, Transient) as error:
                failure = _failure(error, what)
                if not isinstance(failure, Transient):
                    raise failure from None
                if attempt == AGENT_SERVER_RETRY.attempts:
                    raise failure from None
                await asyncio.sleep(AGENT_SERVER_RETRY.delay(attempt, retry_after=failure.retry_after))
        raise AssertionError("unreachable")

    def client(self, card: CardFacts) -> Any:
        if self._client is None:
            from a2a.client import ClientConfig, ClientFactory

            config = ClientConfig(
                httpx_client=self.http(),
                streaming=card.streaming,
                polling=not card.streaming,
                supported_protocol_bindings=[JSONRPC, HTTP_JSON],
            )
            self._client = ClientFactory(config).create(card.card)
        return self._client

    async def infer(self, item: WorkItem) -> Inference:
        context: dict[str, str | None] = {"context_id": None, "task_id": None}
        try:
            card = await self.card()
            inference = await self._converse(item, card=card, context=context)
        except asyncio.CancelledError:
            if context["task_id"]:  # stopped by --timeout (or a signal) with a task open: cancel it
                await asyncio.shield(self._cancel(context["task_id"]))
            raise
        except Transient as error:
            return Inference(
                error=str(error),
                session_id=context["context_id"],
                retryable=True,
                retry_after=error.retry_after,
                served_agent=self._agent(),
            )
        except GateError as error:
            return Inference(error=error.one_line(), session_id=context["context_id"], served_agent=self._agent())
        inference.served_agent = self._agent()
        return inference

    def _agent(self) -> ServedAgent | None:
        return ServedAgent(name=self.served.name, version=self.served.version) if self.served else None

    async def _converse(self, item: WorkItem, *, card: CardFacts, context: dict[str, str | None]) -> Inference:
        turns = user_turns(item)
        events: list[AgentEvent] = []
        timings: dict[str, TurnTiming] = {}
        adk_events: list[Any] = []
        tools_seen = True
        read: TurnRead | None = None
        waiting: str | None = None  # the task that asked for input, answered by the next user turn
        while (message := await turns.next_message(adk_events)) is not None:
            turn_id = f"a2a-{uuid.uuid4().hex[:12]}"
            started = time.monotonic()
            request = _user_message(message, context_id=context["context_id"], task_id=waiting)
            read = await self._turn(request, card=card, turn_id=turn_id, context=context)
            timings[turn_id] = TurnTiming(duration=round(time.monotonic() - started, 3))
            context["context_id"] = read.context_id or context["context_id"]
            tools_seen = tools_seen and read.tools_seen
            events.append(user_event(message, turn_id))
            events.extend(read.events)
            if isinstance(turns, SimulatedTurns):
                adk_events.extend(_adk_events(message, turn_id=turn_id, events=read.events))
            waiting = read.task_id if read.state == "input-required" else None
            if (ended := _ended(read)) is not None:
                return self._inference(
                    events, timings=timings, turns=turns, context=context, error=ended, tools_seen=tools_seen
                )
        error = (
            f"the agent's task ended in state input-required after the case's last user turn: {read.status_text!r}"
            if read is not None and read.state == "input-required"
            else None
        )
        return self._inference(
            events, timings=timings, turns=turns, context=context, error=error, tools_seen=tools_seen
        )

    def _inference(
        self,
        events: list[AgentEvent],
        *,
        timings: dict[str, TurnTiming],
        turns: Any,
        context: dict[str, str | None],
        error: str | None,
        tools_seen: bool,
    ) -> Inference:
        return Inference(
            invocations=to_invocations(events, timings=timings),
            error=error,
            session_id=context["context_id"],
            simulator_calls=turns.calls,
            tools_unseen=None if tools_seen else TOOLS_UNSEEN,
        )

    async def _turn(self, request: Any, *, card: CardFacts, turn_id: str, context: dict[str, str | None]) -> TurnRead:
        """One user turn: the message sent, every answer read until its task ends or waits for the user."""
        from a2a.types import a2a_pb2

        reader = TurnReader(author=card.name)
        what = f"the A2A server at {self.agent_url}"
        try:
            async for response in self.client(card).send_message(a2a_pb2.SendMessageRequest(message=request)):
                reader.add(plain(response))
                context["task_id"] = reader.task_id
            wait = POLL_SECONDS[0]
            while reader.task_id and reader.state not in FINISHED | INTERRUPTED:
                await asyncio.sleep(wait)
                wait = min(wait * 2, POLL_SECONDS[1])
                await self._poll(reader, card=card)
        except Exception as error:  # httpx's, a2a-sdk's (A2AError and its client errors), protobuf's, our refusals
            raise _failure(error, what) from None
        context["task_id"] = None
        return reader.read(turn_id)

    async def _poll(self, reader: TurnReader, *, card: CardFacts) -> None:
        """One ``tasks/get`` of a task that is not done yet."""
        from a2a.types import a2a_pb2

        try:
            task = await self.client(card).get_task(a2a_pb2.GetTaskRequest(id=reader.task_id))
        except Exception as error:
            failure = _failure(error, "tasks/get")
            if isinstance(failure, Transient) or not card.push_notifications:
                raise failure from None
            raise AgentServerError(
                f"the agent's task was still {reader.state} and tasks/get failed ({failure}); the agent card offers "
                "push notifications, which the a2a runner does not support: it needs streaming or tasks/get"
            ) from None
        reader.add({"task": plain(task)})

    async def _cancel(self, task_id: str) -> None:
        from a2a.types import a2a_pb2

        if self.served is None:
            return
        try:
            await asyncio.wait_for(
                self.client(self.served).cancel_task(a2a_pb2.CancelTaskRequest(id=task_id)), CANCEL_SECONDS
            )
        except Exception:  # best effort: the case run is already over
            return

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        self._client = None


def _ended(read: TurnRead) -> str | None:
    """Why the conversation cannot go on after this turn (the agent's own outcome), or None."""
    reason = f": {read.status_text!r}" if read.status_text else ""
    if read.state == "auth-required":
        return f"the agent's task asked for authentication (state auth-required){reason}; the a2a runner cannot give it"
    if read.state in ("failed", "rejected", "canceled"):
        return f"the agent's task ended in state {read.state}{reason}"
    return None


def _adk_events(message: genai_types.Content, *, turn_id: str, events: list[AgentEvent]) -> list[Any]:
    """ADK events for the user simulator (only scenario cases need them, and they need google-adk anyway)."""
    from google.adk.events.event import Event

    return [Event(content=message, author="user", invocation_id=turn_id)] + [
        Event(content=event.content, author=event.author, invocation_id=turn_id) for event in events
    ]

"""The ``http`` runner: drive an agent behind ADK's ``api_server`` protocol (``adk api_server``, Cloud Run, ...).

Per case run: the app is ``session_input.app_name`` or the only app ``GET /list-apps`` names; a session is created
with the case's state (``POST /apps/{app}/users/{user}/sessions``), each user turn is ``POST /run`` (or
``/run_sse`` when the server has no ``/run``), and the returned events become actual invocations with the same
rules as in-process (``runners.invocations``). Timing is the round trip of each turn; app details (instructions,
tool declarations) are not available over HTTP. Idempotent requests are retried on 429, 5xx and lost
connections, honouring ``Retry-After`` (``AGENT_SERVER_RETRY``); a turn that fails that way makes the whole case
run again in a fresh session (``execute.CASE_RUN_RETRY``). Every answer is read within limits
(``http_reading``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from google.genai import types as genai_types

from adk_eval_gate import __version__
from adk_eval_gate.config.settings import Settings
from adk_eval_gate.inputs.agent_sources import AgentChoice
from adk_eval_gate.inputs.plan import WorkItem
from adk_eval_gate.runners.adk import session_identity
from adk_eval_gate.runners.http_headers import parse_headers
from adk_eval_gate.runners.http_reading import AgentServerError, ReadLimits, read_capped, sse_lines, summarized
from adk_eval_gate.runners.invocations import AgentEvent, TurnTiming, from_api_json, to_invocations, user_event
from adk_eval_gate.runners.remote import RemoteRunner, Transient
from adk_eval_gate.runners.runner import Inference, plain_state
from adk_eval_gate.runners.seeded_history import FALLBACK_ROOT_AGENT, api_events, seeded_history
from adk_eval_gate.runners.simulation import SimulatedTurns, UserTurns, user_turns
from adk_eval_gate.support import sanitize
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import GateError
from adk_eval_gate.support.retry import Backoff, retry_after_seconds, transient_status

AGENT_SERVER_RETRY = Backoff(attempts=4, initial=1.0, maximum=10.0, jitter=(0.8, 1.2))


def _detail(response: httpx.Response) -> str:
    try:
        data = response.json()
        text = data.get("detail") or data.get("error") or json.dumps(data) if isinstance(data, dict) else str(data)
    except ValueError:
        text = response.text
    text = " ".join(str(text).split())
    return text[:297] + "..." if len(text) > 300 else text


def _answer(response: httpx.Response, what: str) -> Any:
    """The JSON of an answer, bounded and cleaned like every untrusted document (``sanitize``)."""
    try:
        return sanitize.loads(response.text)
    except sanitize.UnsafeJson as error:
        raise AgentServerError(f"{what} answered JSON that cannot be used: {error}") from None
    except ValueError:
        raise AgentServerError(f"{what} did not answer JSON: {response.text[:100]!r}") from None


AGENT_RAISED = 500  # what ADK's api_server answers a turn whose agent raised (an uncaught error in ``/run``)


def _check(response: httpx.Response, what: str, *, agent_turn: bool = False) -> None:
    """Raises unless the answer is a success: ``Transient`` for a status worth trying again, except a 500 to an
    agent's turn, which is the agent's own failure and never run again into a pass (429, 502, 503, 504 are)."""
    if response.is_success:
        return
    message = f"{what} answered HTTP {response.status_code}: {_detail(response) or response.reason_phrase}"
    if agent_turn and response.status_code == AGENT_RAISED:
        raise AgentServerError(f"{message} (the agent raised while it ran; not run again)")
    if transient_status(response.status_code):
        raise Transient(message, retry_after_seconds(response.headers))
    raise AgentServerError(message)


def _route_missing(response: httpx.Response) -> bool:
    if response.status_code == 405:
        return True
    if response.status_code != 404:
        return False
    try:
        return bool(response.json().get("detail") == "Not Found")
    except (ValueError, AttributeError):
        return True


class HttpRunner(RemoteRunner):
    name = "http"

    def __init__(self, settings: Settings, *, console: Console | None = None) -> None:
        assert settings.agent_url is not None
        self.base_url = settings.agent_url.rstrip("/")
        self.headers = {"User-Agent": f"adk-eval-gate/{__version__}"}
        self.headers.update(parse_headers(settings.agent_headers, env=settings.environment, console=console))
        self.timeout = settings.timeout
        self.parallelism = settings.parallelism
        self.endpoint = "run"
        self.limits = ReadLimits()
        self._client: httpx.AsyncClient | None = None
        self._apps: list[str] | None = None
        self._apps_lock: asyncio.Lock | None = None
        self._root_agents: dict[str, str | None] = {}

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                base_url=self.base_url,
                headers=self.headers,
                timeout=httpx.Timeout(self.timeout, connect=min(30.0, self.timeout)),
                limits=httpx.Limits(max_connections=max(self.parallelism, 1) + 4),
            )
        return self._client

    async def _send(self, method: str, path: str, *, json_body: Any = None) -> httpx.Response:
        """One request; its answer read in full, within ``limits.answer``."""
        async with self.client().stream(method, path, json=json_body) as response:
            return await read_capped(response, what=f"{method} {path}", limit=self.limits.answer)

    async def _request(self, method: str, path: str, *, json_body: Any = None, ok: tuple[int, ...] = ()) -> Any:
        """An idempotent request, retried on 429/5xx and lost connections with backoff."""
        what = f"{method} {path}"
        for attempt in range(1, AGENT_SERVER_RETRY.attempts + 1):
            try:
                response = await self._send(method, path, json_body=json_body)
                if response.status_code in ok:
                    return response
                _check(response, what)
                return response
            except (Transient, httpx.TransportError) as error:
                if attempt == AGENT_SERVER_RETRY.attempts:
                    raise Transient(_transport_message(error, what)) from None
                await asyncio.sleep(AGENT_SERVER_RETRY.delay(attempt, retry_after=getattr(error, "retry_after", None)))
        raise AssertionError("unreachable")

    async def app_name(self, item: WorkItem) -> str:
        if item.case.session_input and item.case.session_input.app_name:
            wanted = item.case.session_input.app_name
            try:
                apps = await self.list_apps()
            except (AgentServerError, Transient, httpx.HTTPError, ValueError):
                return wanted  # a server without a usable /list-apps: let /run say what it thinks
            if wanted not in apps:
                raise AgentServerError(
                    f"{self.base_url} does not serve the app {wanted!r} of session_input.app_name "
                    f"(it serves: {summarized(apps)})"
                )
            return wanted
        apps = await self.list_apps()
        if len(apps) == 1:
            return apps[0]
        found = item.file.agent
        if isinstance(found, AgentChoice) and found.ref.kind == "folder" and Path(found.ref.location).name in apps:
            return Path(found.ref.location).name  # the file's agent folder, as agents-cli's --app-name defaults to it
        if not apps:
            raise AgentServerError(f"{self.base_url}/list-apps names no apps, so there is no agent to run")
        raise AgentServerError(
            f"{self.base_url} serves several apps ({summarized(apps)}) and this case has no session_input.app_name",
            hint="add session_input with app_name to the eval case",
        )

    async def list_apps(self) -> list[str]:
        if self._apps_lock is None:
            self._apps_lock = asyncio.Lock()
        async with self._apps_lock:
            if self._apps is None:
                response = await self._request("GET", "/list-apps")
                data = _answer(response, "GET /list-apps")
                if not isinstance(data, list):
                    raise AgentServerError("GET /list-apps did not answer a list of app names")
                self._apps = [str(app) for app in data]
            return self._apps

    async def infer(self, item: WorkItem) -> Inference:
        session_id: str | None = None
        try:
            app = await self.app_name(item)
            _, user_id, session_id = session_identity(item.case.session_input)
            turns = user_turns(item)
            base = f"/apps/{quote(app, safe='')}/users/{quote(user_id, safe='')}/sessions"
            await self._create_session(base, session_id, item, app=app)
            session = f"{base}/{quote(session_id, safe='')}"
            try:
                events, timings = await self._converse(app=app, user_id=user_id, session_id=session_id, turns=turns)
                final_state = await self._session_state(session)
            finally:
                await self._delete_session(session)
        except Transient as error:
            return Inference(error=str(error), session_id=session_id, retryable=True, retry_after=error.retry_after)
        except httpx.TransportError as error:
            return Inference(error=_transport_message(error, "the agent server"), session_id=session_id, retryable=True)
        except GateError as error:
            return Inference(error=error.one_line(), session_id=session_id)
        return Inference(
            invocations=to_invocations(events, timings=timings),
            session_id=session_id,
            simulator_calls=turns.calls,
            final_session_state=final_state,
        )

    async def _create_session(self, base: str, session_id: str, item: WorkItem, *, app: str) -> None:
        body: dict[str, Any] = {"sessionId": session_id, "state": {}}
        seeded = seeded_history(item.case, root_agent=None)
        if any(author == FALLBACK_ROOT_AGENT for author, _ in seeded.events):  # the root agent's name is asked for
            seeded = seeded_history(item.case, root_agent=await self._root_agent(app))
        body["state"] = seeded.state
        if seeded.events:  # a dataset case's conversation so far, as agents-cli seeds it
            body["events"] = api_events(seeded, invocation_id=f"{session_id}-history")
        response = await self._request("POST", base, json_body=body, ok=(409,))
        if response.status_code == 409:  # a pinned session id left from an earlier run: start it afresh
            await self._request("DELETE", f"{base}/{quote(session_id, safe='')}", ok=(404,))
            await self._request("POST", base, json_body=body)

    async def _root_agent(self, app: str) -> str | None:
        """The root agent's name (``GET /apps/{app}/app-info``, as agents-cli asks it); None when not told."""
        if app not in self._root_agents:
            name = None
            with contextlib.suppress(AgentServerError, Transient, httpx.HTTPError):
                path = f"/apps/{quote(app, safe='')}/app-info"
                data = _answer(await self._request("GET", path), f"GET {path}")
                found = data.get("rootAgentName", data.get("root_agent_name")) if isinstance(data, dict) else None
                name = found if isinstance(found, str) and found else None
            self._root_agents[app] = name
        return self._root_agents[app]

    async def _session_state(self, path: str) -> dict[str, Any] | None:
        """The session's state after the run (``GET`` the session); None when the server does not tell it."""
        try:
            data = _answer(await self._request("GET", path), f"GET {path}")
        except (AgentServerError, Transient, httpx.HTTPError):
            return None
        state = data.get("state") if isinstance(data, dict) else None
        return plain_state(state) if isinstance(state, dict) else None

    async def _delete_session(self, path: str) -> None:
        with contextlib.suppress(httpx.HTTPError, AgentServerError):  # best effort: eval sessions are hidden anyway
            await self._send("DELETE", path)

    async def _converse(
        self, *, app: str, user_id: str, session_id: str, turns: UserTurns
    ) -> tuple[list[AgentEvent], dict[str, TurnTiming]]:
        events: list[AgentEvent] = []
        timings: dict[str, TurnTiming] = {}
        adk_events: list[Any] = []
        while (message := await turns.next_message(adk_events)) is not None:
            started = time.monotonic()
            body = {
                "appName": app,
                "userId": user_id,
                "sessionId": session_id,
                "newMessage": message.model_dump(mode="json", exclude_none=True, by_alias=True),
            }
            raw = await self._run_turn(body)
            if not raw:
                continue  # like ADK: a turn without events leaves no invocation
            turn = [from_api_json(event) for event in raw]
            invocation_id = turn[0].invocation_id
            events.append(user_event(message, invocation_id))
            events.extend(turn)
            timings[invocation_id] = TurnTiming(duration=round(time.monotonic() - started, 3))
            if isinstance(turns, SimulatedTurns):
                adk_events.extend(_adk_events(message, invocation_id=invocation_id, raw=raw))
        return events, timings

    async def _run_turn(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        if self.endpoint == "run":
            response = await self._send("POST", "/run", json_body=body)
            if not _route_missing(response):
                _check(response, "POST /run", agent_turn=True)
                data = _answer(response, "POST /run")
                if not isinstance(data, list):
                    raise AgentServerError("POST /run did not answer a list of events")
                return [event for event in data if isinstance(event, dict)]
            self.endpoint = "run_sse"  # a server without /run: stream instead, for the rest of the run
        return await self._run_sse(body)

    async def _run_sse(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        async with self.client().stream("POST", "/run_sse", json={**body, "streaming": False}) as response:
            if not response.is_success:
                answer = await read_capped(response, what="POST /run_sse", limit=self.limits.answer)
                _check(answer, "POST /run_sse", agent_turn=True)
            async for line in sse_lines(response, what="POST /run_sse", limits=self.limits):
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if not payload:
                    continue
                try:
                    event = sanitize.loads(payload)
                except sanitize.UnsafeJson as error:
                    raise AgentServerError(f"POST /run_sse sent an event that cannot be used: {error}") from None
                except ValueError:
                    raise AgentServerError(f"POST /run_sse sent a line that is not JSON: {payload[:100]}") from None
                if isinstance(event, dict) and "error" in event and "author" not in event:
                    raise AgentServerError(f"the agent failed during POST /run_sse: {event['error']}")
                if isinstance(event, dict) and not event.get("partial"):
                    events.append(event)
        return events

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _transport_message(error: BaseException, what: str) -> str:
    if isinstance(error, Transient):
        return str(error)
    if isinstance(error, httpx.TimeoutException):
        return f"{what} did not answer in time ({type(error).__name__})"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"{what} closed the connection without a complete answer ({error})"
    if isinstance(error, httpx.ConnectError):
        return f"cannot connect to {what} ({error})"
    return f"{what} failed: {type(error).__name__}: {error}"


def _adk_events(message: genai_types.Content, *, invocation_id: str, raw: list[dict[str, Any]]) -> list[Any]:
    """ADK events for the user simulator (only scenario cases need them, and they need google-adk anyway)."""
    from google.adk.events.event import Event

    return [Event(content=message, author="user", invocation_id=invocation_id)] + [
        Event.model_validate(event) for event in raw
    ]

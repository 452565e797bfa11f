"""Real A2A servers on 127.0.0.1 for the a2a runner's tests, each served by uvicorn on a thread for a ``with`` block:
ADK's ``to_a2a`` over an agent, a server written with a2a-sdk's own server classes that is not ADK (a scripted
agent: each user message says what it does), and a raw server that answers what no A2A server should."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served on a free port of 127.0.0.1; yields its base URL. The socket listens before the server
    thread starts, so the first request waits in its backlog instead of failing."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def adk_app(agent: Any, *, url: str = "http://localhost:8000") -> Any:
    """ADK's own A2A server for ``agent`` (its card names ``url``, as a deployment's often names another host)."""
    import warnings

    from google.adk.a2a.utils.agent_to_a2a import to_a2a

    host, port = url.rsplit("//", 1)[1].rsplit(":", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ADK's A2A support says it is experimental
        return to_a2a(agent, host=host, port=int(port))


@dataclass
class Scripted:
    """What the scripted agent was asked to do, seen from the test: the tasks it was told to cancel."""

    cancelled: list[str] = field(default_factory=list)
    remembered: dict[str, str] = field(default_factory=dict)  # context id -> the last thing said in it
    huge_bytes: int = 0


def _executor(script: Scripted) -> Any:
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.tasks import TaskUpdater
    from a2a.types import a2a_pb2

    def text(words: str) -> Any:
        return a2a_pb2.Part(text=words)

    class ScriptedExecutor(AgentExecutor):  # type: ignore[misc]
        async def execute(self, context: Any, event_queue: Any) -> None:
            said = context.get_user_input().strip()
            task_id, context_id = context.task_id, context.context_id
            updater = TaskUpdater(event_queue, task_id, context_id)
            if context.current_task is None:
                await event_queue.enqueue_event(
                    a2a_pb2.Task(
                        id=task_id,
                        context_id=context_id,
                        status=a2a_pb2.TaskStatus(state=a2a_pb2.TaskState.TASK_STATE_SUBMITTED),
                        history=[context.message],
                    )
                )
            await updater.start_work(updater.new_agent_message([text("thinking")]))
            earlier = script.remembered.get(context_id)
            script.remembered[context_id] = said
            verb, _, rest = said.partition(" ")
            if verb == "remember":
                await updater.add_artifact([text(f"noted {rest}")])
                await updater.complete()
            elif verb == "recall":
                await updater.add_artifact([text(f"you said: {earlier}")])
                await updater.complete()
            elif verb == "state":  # what the scripted simulated user asks (tests/runners/scripted_model.py)
                await updater.add_artifact([text(f"{rest} is silver")])
                await updater.complete()
            elif verb == "book":
                await updater.requires_input(updater.new_agent_message([text("For which day?")]))
            elif context.current_task is not None:  # the answer to an input-required question
                await updater.complete(updater.new_agent_message([text(f"booked for {said}")]))
            elif verb == "login":
                await updater.requires_auth(updater.new_agent_message([text("Sign in first.")]))
            elif verb == "fail":
                await updater.failed(updater.new_agent_message([text("the booking tool broke")]))
            elif verb == "reject":
                await updater.reject(updater.new_agent_message([text("I do not book flights")]))
            elif verb == "huge":
                await updater.add_artifact([text("x" * script.huge_bytes)])
                await updater.complete()
            elif verb == "slow":
                await asyncio.Event().wait()  # keeps working until the task is cancelled
            else:
                await updater.add_artifact([text(f"echo {said}")], name="answer")
                await updater.complete(updater.new_agent_message([text("done")]))

        async def cancel(self, context: Any, event_queue: Any) -> None:
            script.cancelled.append(context.task_id)
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()

    return ScriptedExecutor()


def sdk_app(
    script: Scripted,
    *,
    streaming: bool = True,
    binding: str = "JSONRPC",
    push_only: bool = False,
    url: str = "http://127.0.0.1:1",
) -> Any:
    """A non-ADK A2A server on a2a-sdk's server classes. ``push_only``: its card offers push notifications and no
    streaming, and it answers no tasks/get."""
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import a2a_pb2
    from a2a.utils.errors import UnsupportedOperationError

    card = a2a_pb2.AgentCard(
        name="scripted_booker",
        description="Books things, scripted.",
        version="2.1.0",
        supported_interfaces=[a2a_pb2.AgentInterface(url=url, protocol_binding=binding, protocol_version="1.0")],
        capabilities=a2a_pb2.AgentCapabilities(streaming=streaming and not push_only, push_notifications=push_only),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[a2a_pb2.AgentSkill(id="book", name="book", description="books a table", tags=["booking"])],
    )

    class Handler(DefaultRequestHandler):  # type: ignore[misc, valid-type]
        async def on_get_task(self, params: Any, context: Any) -> Any:
            if push_only:
                raise UnsupportedOperationError("tasks are reported by push notification only")
            return await super().on_get_task(params, context)

    handler = Handler(agent_executor=_executor(script), task_store=InMemoryTaskStore(), agent_card=card)
    routes = create_rest_routes(handler) if binding == "HTTP+JSON" else create_jsonrpc_routes(handler, "/")
    return Starlette(routes=[*create_agent_card_routes(card), *routes])


@dataclass
class Raw:
    """A server that speaks just enough A2A to be hostile: what it answers to a message is ``answer``."""

    answer: str = "bad-utf8"
    depth: int = 5000  # how deep the "deep" answer's data part is nested
    redirect_to: str = ""
    card: Any = None  # the JSON answered at the card's address (None: a JSON-RPC card without streaming)
    streaming: bool = False
    seen: list[dict[str, str]] = field(default_factory=list)  # the headers of every request


def _task_result(request_id: Any, text: bytes) -> bytes:
    head = json.dumps({"jsonrpc": "2.0", "id": request_id})[:-1].encode()
    task = b'{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}, '
    return (
        head + b', "result": ' + task + b'"artifacts": [{"artifactId": "a1", "parts": [{"text": "' + text + b'"}]}]}}}'
    )


def _deep_result(request_id: Any, depth: int) -> bytes:
    """A completed task whose artifact holds a text with a NUL and a data part nested ``depth`` levels deep."""
    deep = b'{"a": ' * depth + b"1" + b"}" * depth
    parts = b'[{"text": "NUL\\u0000 here"}, {"data": ' + deep + b"}]"
    task = b'{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": '
    head = json.dumps({"jsonrpc": "2.0", "id": request_id})[:-1].encode()
    return head + b', "result": ' + task + b'[{"artifactId": "a1", "parts": ' + parts + b"}]}}}"


def raw_app(raw: Raw) -> Any:
    async def card(request: Request) -> Response:
        raw.seen.append(dict(request.headers))
        if raw.card is not None:
            return (
                JSONResponse(raw.card) if not isinstance(raw.card, str) else Response(raw.card, media_type="text/html")
            )
        base = str(request.base_url).rstrip("/")
        return JSONResponse(
            {
                "name": "raw",
                "version": "0.1",
                "supportedInterfaces": [{"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
                "capabilities": {"streaming": raw.streaming},
                "skills": [],
            }
        )

    async def rpc(request: Request) -> Response:
        raw.seen.append(dict(request.headers))
        body = await request.json()
        if raw.answer == "redirect":
            return RedirectResponse(raw.redirect_to, status_code=307)
        if raw.answer == "endless":
            return StreamingResponse(_endless(body.get("id")), media_type="text/event-stream")
        if raw.answer == "deep":
            return Response(_deep_result(body.get("id"), raw.depth), media_type="application/json")
        return Response(_task_result(body.get("id"), b"caf\xc3\xa9 \xff\xfe tea"), media_type="application/json")

    return Starlette(routes=[Route("/.well-known/agent-card.json", card), Route("/", rpc, methods=["POST"])])


async def _endless(request_id: Any) -> AsyncIterator[bytes]:
    update = {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}
    line = f"data: {json.dumps({'jsonrpc': '2.0', 'id': request_id, 'result': update})}\n\n".encode()
    while True:
        yield line
        await asyncio.sleep(0)

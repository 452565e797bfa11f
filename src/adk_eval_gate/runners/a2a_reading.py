"""What one A2A turn says, read into the agent events the invocations are made of (``runners.invocations``).

A turn's answer arrives as a task (its status, status messages, history and artifacts), as a stream of status and
artifact updates, or as a single message. ADK's A2A executor (``google.adk.a2a``: ``to_a2a`` servers) sends each
ADK event of the turn as a status message whose parts carry ADK's metadata (``adk_type``: ``function_call``,
``function_response``) and whose update carries the event's (``adk_author``, ``adk_usage_metadata``): those become
the same events the in-process runner sees, tool calls included, and the final artifact (a copy of the last text)
is left out. Any other server's answer is its final status message and artifacts, and its tool calls are not
seen (``TurnRead.tools_seen``).

Each stream response is first turned into plain JSON data (``plain``), cleaned like every untrusted value.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

import pydantic
from google.genai import types as genai_types

from adk_eval_gate.runners.invocations import AgentEvent
from adk_eval_gate.support import sanitize

ADK_PREFIX = "adk_"
_TYPE_KEY = "adk_type"
FINISHED = frozenset({"completed", "failed", "canceled", "rejected"})
INTERRUPTED = frozenset({"input-required", "auth-required"})


def plain(message: Any) -> dict[str, Any]:
    """A protobuf message of a2a-sdk as JSON data (snake_case field names), cleaned (``sanitize.bounded``)."""
    from google.protobuf.json_format import MessageToDict

    data = MessageToDict(message, preserving_proto_field_name=True)
    cleaned, _cut = sanitize.bounded(data, max_depth=sanitize.MAX_VALUE_DEPTH)
    return dict(cleaned)


def state_name(status: dict[str, Any] | None) -> str:
    """``TASK_STATE_INPUT_REQUIRED`` as the protocol writes it: ``input-required``."""
    raw = str((status or {}).get("state") or "TASK_STATE_UNSPECIFIED")
    return raw.removeprefix("TASK_STATE_").lower().replace("_", "-")


def _validated(model: type[pydantic.BaseModel], data: Any) -> Any:
    try:
        return model.model_validate(data, by_alias=True)
    except pydantic.ValidationError:
        return None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def genai_part(part: dict[str, Any]) -> genai_types.Part | None:
    """An A2A part as a genai part, as ADK's ``convert_a2a_part_to_genai_part`` reads it (its function calls and
    responses by the ``adk_type`` metadata); any other data part as its JSON text."""
    metadata = _mapping(part.get("metadata"))
    if isinstance(part.get("text"), str):
        thought = metadata.get(f"{ADK_PREFIX}thought")
        return genai_types.Part(text=part["text"], thought=thought if isinstance(thought, bool) else None)
    if "data" in part:
        data, kind = part["data"], metadata.get(_TYPE_KEY)
        if kind == "function_call" and (call := _validated(genai_types.FunctionCall, data)) is not None:
            return genai_types.Part(function_call=call)
        if kind == "function_response" and (answer := _validated(genai_types.FunctionResponse, data)) is not None:
            return genai_types.Part(function_response=answer)
        return genai_types.Part(text=json.dumps(data, ensure_ascii=False, sort_keys=True))
    mime = str(part.get("media_type") or "") or None
    if isinstance(part.get("url"), str):
        return genai_types.Part(file_data=genai_types.FileData(file_uri=part["url"], mime_type=mime))
    if isinstance(part.get("raw"), str):
        try:
            return genai_types.Part(inline_data=genai_types.Blob(data=base64.b64decode(part["raw"]), mime_type=mime))
        except (binascii.Error, ValueError):
            return None
    return None


def _content(message: dict[str, Any] | None) -> genai_types.Content | None:
    parts = [part for raw in (message or {}).get("parts") or [] if (part := genai_part(raw)) is not None]
    return genai_types.Content(role="model", parts=parts) if parts else None


def _from_adk(metadata: dict[str, Any]) -> bool:
    return any(str(key).startswith(ADK_PREFIX) for key in metadata)


def _part_from_adk(message: dict[str, Any]) -> bool:
    return any(isinstance(p.get("metadata"), dict) and _TYPE_KEY in p["metadata"] for p in message.get("parts") or [])


def _usage(metadata: dict[str, Any]) -> genai_types.GenerateContentResponseUsageMetadata | None:
    found = metadata.get(f"{ADK_PREFIX}usage_metadata")
    if not isinstance(found, dict):
        return None
    counts = {
        key: int(value) if isinstance(value, float) and value.is_integer() else value for key, value in found.items()
    }
    usage: genai_types.GenerateContentResponseUsageMetadata | None = _validated(
        genai_types.GenerateContentResponseUsageMetadata, counts
    )
    return usage


def _text(message: dict[str, Any] | None) -> str:
    texts = [part["text"] for part in (message or {}).get("parts") or [] if isinstance(part.get("text"), str)]
    return " ".join(" ".join(texts).split())


@dataclass
class _Update:
    message: dict[str, Any]
    metadata: dict[str, Any]


@dataclass
class TurnRead:
    """What one turn said: the agent's events, how its task ended, and whether its tool calls could be seen."""

    events: list[AgentEvent]
    state: str
    task_id: str | None
    context_id: str | None
    status_text: str  # the text of the task's last status message (a failure's reason, a question)
    tools_seen: bool


@dataclass
class TurnReader:
    """Collects the stream responses of one turn (``add``), in order; ``read`` says what the turn was."""

    author: str  # the agent card's name: the author of a server's events that do not name one
    state: str = "submitted"
    task_id: str | None = None
    context_id: str | None = None
    status_message: dict[str, Any] | None = None
    updates: list[_Update] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    task_metadata: dict[str, Any] = field(default_factory=dict)
    artifacts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def add(self, response: dict[str, Any]) -> None:
        if isinstance(response.get("task"), dict):
            self._task(response["task"])
        elif isinstance(response.get("message"), dict):
            message = response["message"]
            self.context_id = message.get("context_id") or self.context_id
            self.state, self.status_message = "completed", message
            self.updates.append(_Update(message, dict(message.get("metadata") or {})))
        elif isinstance(response.get("status_update"), dict):
            update = response["status_update"]
            self._ids(update.get("task_id"), update.get("context_id"))
            self._status(update.get("status"), metadata=dict(update.get("metadata") or {}))
        elif isinstance(response.get("artifact_update"), dict):
            update = response["artifact_update"]
            self._ids(update.get("task_id"), update.get("context_id"))
            self._artifact(update.get("artifact") or {}, append=bool(update.get("append")))

    def _ids(self, task_id: Any, context_id: Any) -> None:
        self.task_id = str(task_id) if task_id else self.task_id
        self.context_id = str(context_id) if context_id else self.context_id

    def _status(self, status: Any, *, metadata: dict[str, Any]) -> None:
        status = status if isinstance(status, dict) else {}
        self.state = state_name(status)
        message = status.get("message")
        self.status_message = message if isinstance(message, dict) else None  # the status's own, or none
        if isinstance(message, dict) and message.get("role") != "ROLE_USER":
            self.updates.append(_Update(message, metadata))

    def _artifact(self, artifact: dict[str, Any], *, append: bool) -> None:
        key = str(artifact.get("artifact_id") or len(self.artifacts))
        parts = [part for part in artifact.get("parts") or [] if isinstance(part, dict)]
        self.artifacts[key] = [*self.artifacts.get(key, []), *parts] if append else parts

    def _task(self, task: dict[str, Any]) -> None:
        """A whole task (the first of a stream, message/send's answer, tasks/get's): its history and artifacts
        replace what was read of them before."""
        self._ids(task.get("id"), task.get("context_id"))
        status = _mapping(task.get("status"))
        self.state = state_name(status)
        self.status_message = status["message"] if isinstance(status.get("message"), dict) else None
        self.history = [message for message in task.get("history") or [] if isinstance(message, dict)]
        self.task_metadata = dict(task.get("metadata") or {})
        self.artifacts = {}
        for artifact in task.get("artifacts") or []:
            if isinstance(artifact, dict):
                self._artifact(artifact, append=False)

    def _answered(self) -> list[_Update]:
        """The agent's messages of the turn: the streamed status messages, else the task's history after the last
        user message (with the task's metadata on the last of them, as ADK's executor leaves it)."""
        if self.updates:
            return self.updates
        users = [i for i, message in enumerate(self.history) if message.get("role") == "ROLE_USER"]
        answered = self.history[users[-1] + 1 :] if users else self.history
        updates = [_Update(message, {}) for message in answered]
        if updates:
            updates[-1].metadata = self.task_metadata
        return updates

    def read(self, invocation_id: str) -> TurnRead:
        answered = self._answered()
        from_adk = any(_from_adk(update.metadata) or _part_from_adk(update.message) for update in answered)
        events = (
            [self._event(update, invocation_id) for update in answered]
            if from_adk
            else self._final_events(invocation_id)
        )
        return TurnRead(
            events=[event for event in events if event.content is not None],
            state=self.state,
            task_id=self.task_id,
            context_id=self.context_id,
            status_text=_text(self.status_message),
            tools_seen=from_adk,
        )

    def _event(self, update: _Update, invocation_id: str) -> AgentEvent:
        author = update.metadata.get(f"{ADK_PREFIX}author")
        return AgentEvent(
            author=author if isinstance(author, str) and author else self.author,
            invocation_id=invocation_id,
            content=_content(update.message),
            usage_metadata=_usage(update.metadata),
        )

    def _final_events(self, invocation_id: str) -> list[AgentEvent]:
        """A server that is not ADK's: its answer is the final status message's parts and the artifacts' parts."""
        message = self.status_message if self.state in FINISHED | INTERRUPTED else None
        if message is not None and message.get("role") == "ROLE_USER":
            message = None
        if message is None and not self.artifacts and self.state in FINISHED:
            said = [update.message for update in self._answered() if update.message.get("role") != "ROLE_USER"]
            message = said[-1] if said else None
        parts = [*((message or {}).get("parts") or []), *(p for parts in self.artifacts.values() for p in parts)]
        return [AgentEvent(author=self.author, invocation_id=invocation_id, content=_content({"parts": parts}))]

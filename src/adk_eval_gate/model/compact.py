"""The compact form of an ADK invocation: how a turn travels from a worker process, lives in memory and is written
in results.json.

ADK's own form (``Invocation.model_dump``) spells every text and tool call out in nested objects (a call is
``{"parts": [{"function_call": {"id": ..., "args": ..., "name": ...}}], "role": "model"}``) and repeats the
user's message and each agent's instructions and tool declarations in every turn. The compact form keeps the same
data, losslessly (``expand(compact(turn)) == turn``), with these rules:

- ``id``, ``at`` (creation timestamp), ``time`` (``[duration, model, tool]`` seconds), each left out at its default;
- ``in``: the user content, left out when it is the record's ``user`` text as one part of role ``user``;
- ``out``: the final response; ``events``: ADK's invocation events ``{"by": author, "c": content, "use": usage,
  "model": version, "ground": grounding metadata}`` (``by`` left out when it is the author of the event before),
  or ``tools``: the hand-written form's ``calls``, ``replies`` and ``said`` (``tool_uses``, ``tool_responses``,
  ``intermediate_responses``);
- a content of its usual role (``user`` for ``in``, ``model`` otherwise) is its list of parts, or its only text;
  otherwise ``{"role": ..., "parts": [...]}``; a text part is its text, a call ``{"call": [name, args, id]}`` (the
  id only when there is one), a tool's answer ``{"reply": [name, response, id]}`` (``[name, response]`` in an
  event when its id is that of the first call of that name still waiting for its answer; ``null`` for no id),
  any other part ``{"part": <ADK's part>}``; usage with only the three usual counts is
  ``[prompt, candidates, total]``;
- ``app``: the key of the turn's app details (instructions and tool declarations) in ``AppTable``, which holds
  each distinct one once;
- ``rubrics``: as ADK writes them.

The readers at the end (``answer_text``, ``tool_calls``, ...) read a compact turn that may come from an untrusted
file: they never raise, and return None for what they cannot read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

Turn = dict[str, Any]  # a compact invocation
JSONDict = dict[str, Any]

_USAGE_KEYS = ("prompt_token_count", "candidates_token_count", "total_token_count")
_TOOL_KEYS = (("tool_uses", "calls"), ("tool_responses", "replies"), ("intermediate_responses", "said"))


def compact(invocation: JSONDict, *, user: str | None = None, apps: AppTable | None = None) -> Turn:
    """The compact form of ``invocation`` (ADK's JSON form, as ``model.evalset.dump_invocation`` makes it).

    ``user``: the record's text of the user's message (``in`` is left out when it says all); ``apps``: where the
    app details go (kept in the turn when None).
    """
    turn: Turn = {}
    if invocation.get("invocation_id", ""):
        turn["id"] = invocation["invocation_id"]
    if invocation.get("creation_timestamp", 0.0):
        turn["at"] = invocation["creation_timestamp"]
    times = [invocation.get(key) for key in ("duration", "model_duration", "tool_duration")]
    if any(value is not None for value in times):
        turn["time"] = times
    user_content = invocation.get("user_content")
    if user_content != _plain_user(user):
        turn["in"] = _content(user_content, "user")
    if "final_response" in invocation:
        turn["out"] = _content(invocation["final_response"], "model")
    data = invocation.get("intermediate_data")
    if isinstance(data, dict) and "invocation_events" in data:
        calls: OpenCalls = []
        turn["events"] = _events(data["invocation_events"], calls)
    elif isinstance(data, dict):
        turn["tools"] = _tools(data)
    if "rubrics" in invocation:
        turn["rubrics"] = invocation["rubrics"]
    if "app_details" in invocation:
        turn["app"] = apps.key(invocation["app_details"]) if apps is not None else invocation["app_details"]
    return turn


def expand(turn: Turn, *, user: str | None = None, apps: dict[str, JSONDict] | None = None) -> JSONDict:
    """ADK's JSON form of a compact turn (``compact``'s inverse). A key of ``app`` not in ``apps`` leaves the app
    details out."""
    invocation: JSONDict = {"invocation_id": turn.get("id", "")}
    invocation["user_content"] = _expand_content(turn["in"], "user") if "in" in turn else _plain_user(user or "")
    if "out" in turn:
        invocation["final_response"] = _expand_content(turn["out"], "model")
    if "events" in turn:
        calls: OpenCalls = []
        invocation["intermediate_data"] = {"invocation_events": _expand_events(turn["events"], calls)}
    elif "tools" in turn:
        invocation["intermediate_data"] = _expand_tools(turn["tools"])
    invocation["creation_timestamp"] = turn.get("at", 0.0)
    for key, value in zip(("duration", "model_duration", "tool_duration"), turn.get("time") or (), strict=False):
        if value is not None:
            invocation[key] = value
    if "rubrics" in turn:
        invocation["rubrics"] = turn["rubrics"]
    app = turn.get("app")
    if isinstance(app, str):
        app = (apps or {}).get(app)
    if app is not None:
        invocation["app_details"] = app
    return invocation


def compact_untrusted(invocation: Any, *, user: Any = None) -> Turn | None:
    """``compact`` of an invocation read from a file of an earlier version; None when it is not one."""
    if not isinstance(invocation, dict):
        return None
    try:
        return compact(invocation, user=user if isinstance(user, str) else None)
    except (TypeError, AttributeError, KeyError, IndexError):
        return None


def expanded(turn: Any, *, user: str | None = None, apps: dict[str, JSONDict] | None = None) -> Any:
    """``expand`` of a turn that may come from a file: what cannot be expanded is returned as it is (validating
    it as an Invocation then says what is wrong)."""
    try:
        return expand(turn, user=user, apps=apps)
    except (TypeError, AttributeError, KeyError, IndexError, ValueError):
        return turn


def _plain_user(text: str | None) -> JSONDict | None:
    return None if text is None else {"parts": [{"text": text}], "role": "user"}


OpenCalls = list[tuple[Any, Any]]  # (name, id) of the turn's calls whose answer has not come yet, in order


def _content(content: Any, role: str, calls: OpenCalls | None = None) -> Any:
    if not isinstance(content, dict):
        return {"content": content}  # not a content at all: kept as it is
    parts = content.get("parts")
    if content.get("role") == role and isinstance(parts, list) and content.keys() == {"parts", "role"}:
        compacted = [_part(part, calls) for part in parts]
        return compacted[0] if len(compacted) == 1 and isinstance(compacted[0], str) else compacted
    shown = dict(content)
    if isinstance(parts, list):
        shown["parts"] = [_part(part, calls) for part in parts]
    return shown


def _expand_content(value: Any, role: str, calls: OpenCalls | None = None) -> Any:
    if isinstance(value, str):
        return {"parts": [{"text": value}], "role": role}
    if isinstance(value, list):
        return {"parts": [_expand_part(part, calls) for part in value], "role": role}
    if isinstance(value, dict) and value.keys() == {"content"}:
        return value["content"]
    content = dict(value)
    if isinstance(content.get("parts"), list):
        content["parts"] = [_expand_part(part, calls) for part in content["parts"]]
    return content


def _part(part: Any, calls: OpenCalls | None) -> Any:
    if isinstance(part, dict) and part.keys() == {"text"} and isinstance(part["text"], str):
        return part["text"]
    if isinstance(part, dict) and part.keys() == {"function_call"}:
        call = part["function_call"]
        if calls is not None and isinstance(call, dict) and "id" in call:
            calls.append((call.get("name"), call["id"]))
        return {"call": _call(call, "args")}
    if isinstance(part, dict) and part.keys() == {"function_response"}:
        return {"reply": _reply(part["function_response"], calls)}
    return {"part": part}


def _expand_part(value: Any, calls: OpenCalls | None) -> Any:
    if isinstance(value, str):
        return {"text": value}
    if "call" in value:
        call = _expand_call(value["call"], "args")
        if calls is not None and isinstance(call, dict) and "id" in call:
            calls.append((call.get("name"), call["id"]))
        return {"function_call": call}
    if "reply" in value:
        return {"function_response": _expand_reply(value["reply"], calls)}
    return value["part"]


def _answered(calls: OpenCalls | None, name: Any) -> int | None:
    """The place of the first call of ``name`` still waiting for its answer."""
    return next((index for index, (called, _) in enumerate(calls or []) if called == name), None)


def _reply(reply: Any, calls: OpenCalls | None) -> Any:
    """A tool's answer: ``[name, response]`` when its id is the id of the first call of that name still waiting
    (in an event), else ``[name, response, id or None]``."""
    short = _call(reply, "response")
    if not isinstance(short, list):
        return short
    waiting = _answered(calls, short[0])
    if calls is not None and waiting is not None and len(short) == 3 and calls[waiting][1] == short[2]:
        del calls[waiting]
        return short[:2]
    return short if len(short) == 3 else [*short, None]


def _expand_reply(short: Any, calls: OpenCalls | None) -> Any:
    if not isinstance(short, list):
        return short
    if len(short) == 2:
        waiting = _answered(calls, short[0])
        identifier = calls.pop(waiting)[1] if calls is not None and waiting is not None else None
        short = [*short, identifier]
    return _expand_call(short if short[2] is not None else short[:2], "response")


def _call(call: Any, payload: str) -> Any:
    """``[name, payload, id]`` (the id only when there is one); a call with more fields stays as it is."""
    if not isinstance(call, dict) or "name" not in call or not call.keys() <= {"id", "name", payload}:
        return call
    short = [call["name"], call.get(payload)]
    return [*short, call["id"]] if "id" in call else short


def _expand_call(short: Any, payload: str) -> Any:
    if not isinstance(short, list):
        return short
    call: JSONDict = {"name": short[0]}
    if short[1] is not None:
        call[payload] = short[1]
    if len(short) > 2:
        call["id"] = short[2]
    return call


def _events(events: list[JSONDict], calls: OpenCalls) -> list[JSONDict]:
    """The events, each without its author when it is the author of the event before it."""
    shorts = []
    for number, event in enumerate(events):
        short = _event(event, calls)
        if number and events[number - 1].get("author") == short["by"] and "author" in event:
            del short["by"]
        shorts.append(short)
    return shorts


def _expand_events(shorts: list[JSONDict], calls: OpenCalls) -> list[JSONDict]:
    events: list[JSONDict] = []
    for short in shorts:
        event = _expand_event(short, calls)
        if "by" not in short and events:
            event["author"] = events[-1]["author"]
        events.append(event)
    return events


def _event(event: JSONDict, calls: OpenCalls) -> JSONDict:
    short: JSONDict = {"by": event.get("author")}
    if "content" in event:
        short["c"] = _content(event["content"], "model", calls)
    usage = event.get("usage_metadata")
    if usage is not None:
        short["use"] = [usage[key] for key in _USAGE_KEYS] if usage.keys() == set(_USAGE_KEYS) else usage
    for key, name in (("model_version", "model"), ("grounding_metadata", "ground")):
        if key in event:
            short[name] = event[key]
    return short


def _expand_event(short: JSONDict, calls: OpenCalls) -> JSONDict:
    event: JSONDict = {"author": short.get("by")}
    if "c" in short:
        event["content"] = _expand_content(short["c"], "model", calls)
    if "ground" in short:
        event["grounding_metadata"] = short["ground"]
    usage = short.get("use")
    if usage is not None:
        event["usage_metadata"] = dict(zip(_USAGE_KEYS, usage, strict=True)) if isinstance(usage, list) else usage
    if "model" in short:
        event["model_version"] = short["model"]
    return event


def _tools(data: JSONDict) -> JSONDict:
    tools: JSONDict = {}
    for key, name in _TOOL_KEYS:
        values = data.get(key)
        if values:
            payload = "args" if key == "tool_uses" else "response"
            tools[name] = values if key == "intermediate_responses" else [_call(value, payload) for value in values]
    return tools


def _expand_tools(tools: JSONDict) -> JSONDict:
    data: JSONDict = {}
    for key, name in _TOOL_KEYS:
        values = tools.get(name) or []
        payload = "args" if key == "tool_uses" else "response"
        data[key] = values if key == "intermediate_responses" else [_expand_call(value, payload) for value in values]
    return data


class AppTable:
    """Each distinct app details (agents' instructions and tool declarations) once, by a key made of its content:
    the same agent gives the same key in every process and every run."""

    def __init__(self, table: dict[str, JSONDict] | None = None) -> None:
        self.table: dict[str, JSONDict] = dict(table or {})

    def key(self, app: JSONDict) -> str:
        text = json.dumps(app, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        self.table.setdefault(key, app)
        return key


# ---------------------------------------------------------------------------------------------------------
# Readers for the renderers: a compact turn from a results file is untrusted; nothing here raises.


def _parts(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return content
    if isinstance(content, dict):
        inner = content.get("content", content)
        parts = inner.get("parts") if isinstance(inner, dict) else None
        return parts if isinstance(parts, list) else []
    return []


def _text_of(part: Any) -> str | None:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        full = part.get("part", part)
        text = full.get("text") if isinstance(full, dict) else None
        return text if isinstance(text, str) else None
    return None


def user_text(turn: Any) -> str:
    """The text of the turn's user message, when the turn holds it (``in``)."""
    if not isinstance(turn, dict) or "in" not in turn:
        return ""
    return "\n".join(text for part in _parts(turn["in"]) if (text := _text_of(part)))


def answer_text(turn: Any) -> str | None:
    """The final response's text (its text parts joined by newlines, as ADK reads it; empty without one); None
    when the turn is unknown."""
    if not isinstance(turn, dict):
        return None
    if "out" not in turn:
        return ""
    return "\n".join(text for part in _parts(turn["out"]) if (text := _text_of(part)))


def _calls_in(parts: list[Any]) -> Iterator[tuple[str, Any]]:
    for part in parts:
        call = part.get("call") if isinstance(part, dict) else None
        if call is None and isinstance(part, dict) and isinstance(part.get("part"), dict):
            call = part["part"].get("function_call")
        if isinstance(call, list) and call:
            yield str(call[0]), call[1] if len(call) > 1 else None
        elif isinstance(call, dict):
            yield str(call.get("name") or "?"), call.get("args")


def tool_calls(turn: Any) -> list[tuple[str, Any]] | None:
    """The turn's tool calls as (name, arguments), in order; None when the turn is unknown."""
    if not isinstance(turn, dict):
        return None
    if isinstance(turn.get("events"), list):
        return [
            call for event in turn["events"] if isinstance(event, dict) for call in _calls_in(_parts(event.get("c")))
        ]
    tools = turn.get("tools")
    calls = tools.get("calls") if isinstance(tools, dict) else None
    return list(_calls_in([{"call": call} for call in calls])) if isinstance(calls, list) else []


def timing(turn: Any) -> tuple[float | None, float | None, float | None]:
    """The turn's (duration, model, tool) seconds, as recorded."""
    times = turn.get("time") if isinstance(turn, dict) else None
    listed = times[:3] if isinstance(times, list) else []
    values = [value if isinstance(value, int | float) and not isinstance(value, bool) else None for value in listed]
    values += [None] * (3 - len(values))
    return values[0], values[1], values[2]


def usages(turn: Any) -> list[JSONDict]:
    """The usage metadata of the turn's events (ADK's JSON form)."""
    found = []
    events = turn.get("events") if isinstance(turn, dict) else None
    for event in events if isinstance(events, list) else []:
        usage = event.get("use") if isinstance(event, dict) else None
        if isinstance(usage, list) and len(usage) == len(_USAGE_KEYS):
            found.append(dict(zip(_USAGE_KEYS, usage, strict=True)))
        elif isinstance(usage, dict):
            found.append(usage)
    return found

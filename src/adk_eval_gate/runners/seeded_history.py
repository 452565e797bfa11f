"""The conversation so far of an Agent Platform dataset case (the events of ``agent_data.turns`` before its last user
message), put into the session before the agent answers, as ``agents-cli eval generate`` seeds it: events authored
``model`` become the root agent's, as agents-cli's ``rewrite_model_author_events`` makes them.

State deltas on those events become the session's initial state (applied in order): ``adk api_server`` refuses
seeded events that carry actions, and the state the agent starts from is the same either way. Events without
content carry nothing else, so they are not seeded.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from google.genai import types as genai_types

from adk_eval_gate.model.evalset import EvalCase
from adk_eval_gate.model.platform_cases import history_of

MODEL_AUTHOR = "model"
FALLBACK_ROOT_AGENT = "root_agent"  # agents-cli's, when the root agent's name is not known


@dataclass
class SeededHistory:
    """What the session starts with: its state, and the events to append, each (author, content)."""

    state: dict[str, Any] = field(default_factory=dict)
    events: list[tuple[str, genai_types.Content]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.state or self.events)


def seeded_history(case: EvalCase, *, root_agent: str | None) -> SeededHistory:
    """The case's initial state (its ``session_input``'s, with the history's state deltas) and history events."""
    seeded = SeededHistory(state=copy.deepcopy(case.session_input.state) if case.session_input else {})
    for event in history_of(case):
        if event.state_delta:
            seeded.state.update(copy.deepcopy(event.state_delta))
        if event.content is None:
            continue
        author = event.author or MODEL_AUTHOR
        if author == MODEL_AUTHOR:
            author = root_agent or FALLBACK_ROOT_AGENT
        seeded.events.append((author, event.content))
    return seeded


def adk_events(seeded: SeededHistory, *, invocation_id: str) -> list[Any]:
    """The history as ADK ``Event`` objects (imports google-adk)."""
    from google.adk.events.event import Event

    return [Event(author=author, content=content, invocation_id=invocation_id) for author, content in seeded.events]


def api_events(seeded: SeededHistory, *, invocation_id: str) -> list[dict[str, Any]]:
    """The history as ``adk api_server``'s create-session request takes it (ADK's ``Event`` JSON, camelCase)."""
    return [
        {
            "author": author,
            "invocationId": invocation_id,
            "content": content.model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        for author, content in seeded.events
    ]

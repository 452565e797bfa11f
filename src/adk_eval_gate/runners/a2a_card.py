"""The agent card of an A2A server, fetched once and checked before any case runs: its name, version, skills,
capabilities and the transports it offers. A document that is not an A2A agent card is one clear error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from adk_eval_gate.runners.a2a_transport import same_origin
from adk_eval_gate.runners.http_reading import AgentServerError
from adk_eval_gate.support import sanitize

CARD_PATH = "/.well-known/agent-card.json"
JSONRPC = "JSONRPC"
HTTP_JSON = "HTTP+JSON"
GRPC = "GRPC"
SUPPORTED_BINDINGS = (JSONRPC, HTTP_JSON)


class NotAnAgentCard(AgentServerError):
    """What the server answered at the agent card's address is not an A2A agent card."""


@dataclass(frozen=True)
class CardFacts:
    """What the runner and results.json take from a card (the SDK's ``AgentCard`` kept for its client)."""

    name: str
    version: str | None
    streaming: bool
    push_notifications: bool
    bindings: tuple[str, ...]
    skills: tuple[str, ...]
    card: Any  # a2a.types.AgentCard


def _not_a_card(url: str, why: str) -> NotAnAgentCard:
    return NotAnAgentCard(
        f"{url} is not an A2A agent card: {why}",
        hint="point --agent-url at the A2A server's base URL (its card is at /.well-known/agent-card.json)",
    )


def _no_transport_spoken(url: str, bindings: tuple[str, ...]) -> AgentServerError:
    # gRPC would bypass the guarded HTTP client (its limits, origin and redirect rules): not supported (docs/a2a.md)
    if set(bindings) == {GRPC}:
        return AgentServerError(
            f"the agent card at {url} offers only gRPC, which the a2a runner does not support; serve "
            f"{' or '.join(SUPPORTED_BINDINGS)} as well (a2a-sdk's servers offer them beside gRPC)"
        )
    return AgentServerError(
        f"the agent card at {url} offers the transports {', '.join(bindings) or 'none'}; the a2a runner speaks "
        f"{' and '.join(SUPPORTED_BINDINGS)}"
    )


def card_facts(data: Any, *, url: str, agent_url: str) -> CardFacts:
    """The card of ``data`` (its JSON, as read), checked; its interfaces moved onto ``agent_url``'s origin."""
    from a2a.client.card_resolver import parse_agent_card
    from google.protobuf.json_format import ParseError

    if not isinstance(data, dict):
        raise _not_a_card(url, f"it is JSON {type(data).__name__}, not an object")
    if not isinstance(data.get("name"), str) or not data["name"].strip():
        raise _not_a_card(url, "it has no name")
    if not any(key in data for key in ("supportedInterfaces", "url")):
        raise _not_a_card(url, "it names no interface to reach the agent (supportedInterfaces or url)")
    try:
        card = parse_agent_card(dict(data))
    except (ParseError, ValueError, TypeError) as error:
        raise _not_a_card(url, " ".join(str(error).split())[:200]) from None
    bindings = tuple(interface.protocol_binding for interface in card.supported_interfaces)
    usable = [binding for binding in bindings if binding in SUPPORTED_BINDINGS]
    if not usable:
        raise _no_transport_spoken(url, bindings)
    for interface in card.supported_interfaces:
        interface.url = same_origin(interface.url, base=agent_url)
    return CardFacts(
        name=card.name,
        version=card.version or None,
        streaming=bool(card.capabilities.streaming),
        push_notifications=bool(card.capabilities.push_notifications),
        bindings=bindings,
        skills=tuple(skill.name or skill.id for skill in card.skills),
        card=card,
    )


async def fetch_card(client: httpx.AsyncClient, *, agent_url: str) -> CardFacts:
    """The card at ``agent_url``'s well-known address, read within the client's limits and checked."""
    url = agent_url.rstrip("/") + CARD_PATH
    response = await client.get(url)
    if response.status_code == 404:
        raise _not_a_card(url, "the server answered 404 Not Found")
    response.raise_for_status()
    try:
        data = sanitize.loads(response.text)
    except sanitize.UnsafeJson as error:
        raise _not_a_card(url, f"its JSON cannot be used ({error})") from None
    except ValueError:
        raise _not_a_card(url, f"it is not JSON ({response.text[:60]!r})") from None
    return card_facts(data, url=url, agent_url=agent_url)

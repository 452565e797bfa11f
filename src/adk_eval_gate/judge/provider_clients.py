"""ADK's model class for a judge model, made as ADK makes it (``resolved_class(model=judge_model)``), with the
provider SDK's client made by us: its own retries off (ours are the only ones, counted and honouring the server's
hints) and its HTTP client the judge's (``judge.http_guard``: no redirect to another host, answers within a size
and of the API's shape).

- ADK's OpenAI integration (``gpt-*``): ``AsyncOpenAI``, reading ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` as ADK's
  default client does.
- ADK's Anthropic classes: ``AsyncAnthropic`` for ``AnthropicLlm`` (a class the agent registers), and for ``Claude``
  (``claude-*``) ``AsyncAnthropicVertex`` with the project and region ADK's class reads.
- LiteLLM (``provider/model``): for its ``openai`` provider the ``AsyncOpenAI`` client it would make (the key and base
  URL LiteLLM reads: ``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` or ``OPENAI_API_BASE``), for ``anthropic`` LiteLLM's own
  ``AsyncHTTPHandler`` over the judge's client. LiteLLM's other providers each take a client of their own kind, and
  keep the one LiteLLM makes (``num_retries=0`` still turns its retries off).
- Any other class (one the agent registers) is made as ADK makes it: its client is its own.
"""

from __future__ import annotations

import os
import re
from typing import Any

from adk_eval_gate.judge.http_guard import judge_http_client
from adk_eval_gate.judge.model_classes import ModelRoute

_LITELLM_OPENAI_BASE = "https://api.openai.com/v1"


class _Made:
    """The HTTP clients made for one model, to close with it."""

    def __init__(self) -> None:
        self.clients: list[Any] = []

    def http_client(self, api: str, *, timeout: float, httpx2: bool = False) -> Any:
        client = judge_http_client(api=api, timeout=timeout, httpx2=httpx2)
        self.clients.append(client)
        return client


def _vertex_claude(name: str, *, timeout: float, made: _Made) -> Any:
    """The client ADK's ``Claude`` makes (``Claude._anthropic_client``), or None where it would refuse (it says why)."""
    project, location = os.environ.get("GOOGLE_CLOUD_PROJECT"), os.environ.get("GOOGLE_CLOUD_LOCATION")
    if name.startswith("projects/") and (match := re.search(r"projects/([^/]+)/locations/([^/]+)/", name)):
        project, location = match.group(1), match.group(2)
    if not project or not location:
        return None
    from anthropic import AsyncAnthropicVertex
    from google.adk.utils._google_client_headers import get_tracking_headers

    return AsyncAnthropicVertex(
        project_id=project,
        region=location,
        default_headers=get_tracking_headers(),
        max_retries=0,
        timeout=timeout,
        http_client=made.http_client("Anthropic", timeout=timeout, httpx2=True),
    )


def _litellm_handler(made: _Made) -> Any:
    """LiteLLM's ``AsyncHTTPHandler`` (what its ``anthropic`` provider takes as ``client``) over the judge's client."""
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler

    class JudgeHandler(AsyncHTTPHandler):
        def create_client(
            self, timeout: Any, event_hooks: Any, ssl_verify: Any = None, shared_session: Any = None
        ) -> Any:
            return made.http_client("Anthropic", timeout=timeout)

    return JudgeHandler


def _litellm_client(name: str, *, timeout: float, made: _Made) -> Any:
    provider = name.split("/", 1)[0]
    if provider == "openai":
        from openai import AsyncOpenAI

        return AsyncOpenAI(
            api_key=os.environ.get("OPENAI_API_KEY"),
            base_url=os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or _LITELLM_OPENAI_BASE,
            organization=os.environ.get("OPENAI_ORGANIZATION") or None,
            max_retries=0,
            timeout=timeout,
            http_client=made.http_client("OpenAI", timeout=timeout),
        )
    if provider == "anthropic":
        return _litellm_handler(made)(timeout=timeout)
    return None


def make_model(route: ModelRoute, *, timeout_seconds: float) -> tuple[Any, list[Any]]:
    """``route.llm_class(model=name)`` as ADK makes it, with the provider SDK's client made by us where we can; and
    the HTTP clients made for it (the caller closes them)."""
    cls, name, timeout, made = route.llm_class, route.name, timeout_seconds, _Made()
    if route.provider == "LiteLlm":
        import litellm

        litellm.suppress_debug_info = True  # else each failed call prints LiteLLM's help banner
        client = _litellm_client(name, timeout=timeout, made=made)
        extra = {} if client is None else {"client": client}
        return cls(model=name, num_retries=0, max_retries=0, timeout=timeout, **extra), made.clients
    if route.provider == "OpenAILlm":
        from openai import AsyncOpenAI  # the same environment (OPENAI_API_KEY, OPENAI_BASE_URL) as ADK's default

        http_client = made.http_client("OpenAI", timeout=timeout)
        return cls(
            model=name, client=AsyncOpenAI(max_retries=0, timeout=timeout, http_client=http_client)
        ), made.clients
    if route.provider == "AnthropicLlm":
        from anthropic import AsyncAnthropic

        http_client = made.http_client("Anthropic", timeout=timeout, httpx2=True)
        client = AsyncAnthropic(max_retries=0, timeout=timeout, http_client=http_client)
        return cls(model=name, client=client), made.clients
    if route.provider == "Claude" and (client := _vertex_claude(name, timeout=timeout, made=made)) is not None:
        return cls(model=name, client=client), made.clients
    return cls(model=name), made.clients

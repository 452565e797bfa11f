"""The HTTP client under every judge, whichever SDK asks through it (google-genai, OpenAI's, Anthropic's, LiteLLM):
what a judge takes from a provider's server.

A judge's request carries the provider's key (``x-goog-api-key``, ``x-api-key``, ``Authorization``) and the prompt,
which holds the agent's answers. So:

- a redirect to another origin (scheme, host and port) is never followed: the SDKs follow redirects, and only
  ``Authorization`` is dropped on the way (``x-api-key`` and ``x-goog-api-key`` went along, with the prompt);
- an answer is read up to ``MAX_ANSWER_BYTES`` (as decoded) and no further (``support.http_body``, the http runner's
  reading): an endless answer once grew the gate past 5 GB;
- a successful answer must be JSON of the provider's shape: an HTML page from a proxy or a captive portal otherwise
  surfaced as ``'str' object has no attribute 'choices'`` from deep inside an SDK.

Each refusal is a ``JudgeAnswerRefused`` whose message says what the server did and which server did it (its host,
never the path or query, which can hold a key). The SDKs wrap what their HTTP client raises in errors of their own
(``APIConnectionError``, LiteLLM's mapped errors, which they would count as worth a retry), so the judge surfaces the
refusal itself with ``surfacing_refusals``.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import json
from collections.abc import Iterator
from typing import Any

from adk_eval_gate.support import http_body, sanitize
from adk_eval_gate.support.http_body import MIB

# A judge's answer is a few KB (tens of thousands of tokens at most), and the cache keeps entries of up to 8 MiB
# (``judge.cache.MAX_ENTRY_BYTES``): a larger answer could not even be reused.
MAX_ANSWER_BYTES = 8 * MIB
# What a successful answer of each API has at its top level (None: any JSON object)
_ANSWER_FIELDS = {"OpenAI": "choices", "Anthropic": "content", "Gemini": None}
_SNIFFED = 512  # bytes of a body looked at to say what it is


class JudgeAnswerRefused(Exception):
    """A provider's server answered something a judge does not take; the message says what, and which server."""


_REFUSALS: contextvars.ContextVar[list[JudgeAnswerRefused] | None] = contextvars.ContextVar(
    "judge_refusals", default=None
)


@contextlib.contextmanager
def surfacing_refusals() -> Iterator[None]:
    """Within it, a call that fails after the judge's HTTP client refused an answer raises that refusal, however
    the SDK wrapped it."""
    refused: list[JudgeAnswerRefused] = []
    token = _REFUSALS.set(refused)
    try:
        yield
    except Exception as error:
        if refused and refused[-1] is not error:
            raise refused[-1] from None
        raise
    finally:
        _REFUSALS.reset(token)


def _refuse(message: str) -> JudgeAnswerRefused:
    refusal = JudgeAnswerRefused(message)
    refused = _REFUSALS.get()
    if refused is not None:
        refused.append(refusal)
    return refusal


def where(url: Any) -> str:
    """A server as a message names it: its host, and its port when not the scheme's default."""
    host = str(url.host)
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{url.port}" if url.port is not None else host


def _origin(url: Any) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, str(url.host).lower(), url.port if url.port is not None else default


def _article(api: str) -> str:
    return "an" if api[:1].lower() in "aeiou" else "a"


class _NotANumber(ValueError):
    pass


def _finite(literal: str) -> float:
    """A JSON number with a fraction or an exponent; ``1e400`` would reach the SDKs as infinity, a token count as one.
    (A huge integer is a number: its count is clamped later.)"""
    value = float(literal)
    if not sanitize.is_finite_number(value):
        raise _NotANumber(f"{literal[:24]} is too large for a number")
    return value


def _not_a_number(name: str) -> Any:
    raise _NotANumber(f"{name} is not a number")


def _not_an_answer(body: bytes, api: str) -> str | None:
    """What ``body`` is when it is not a successful answer of ``api`` (``HTML``, ``empty``, ...); None when it is."""
    head = body[:_SNIFFED].lstrip()
    if not head:
        return "empty"
    if head.startswith(b"<"):
        return "HTML" if b"html" in head.lower() else "markup"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "bytes that are not UTF-8 text"
    try:
        data = json.loads(text, parse_constant=_not_a_number, parse_float=_finite)
    except _NotANumber as number:
        return f"JSON: {number}"
    except RecursionError:
        return "JSON nested too deep to read"
    except ValueError:
        return "text that is not JSON"
    field = _ANSWER_FIELDS.get(api)
    if not isinstance(data, dict):
        return f"JSON {type(data).__name__}, not an object" if api in _ANSWER_FIELDS else None
    if field is not None and field not in data:
        return f"JSON without {field!r}"
    return None


def _readable(response: Any) -> Any:
    """An error answer whose body is not UTF-8, with each byte that is not replaced (U+FFFD): every SDK then reads
    its status and text (google-genai took such a body for UTF-16 and failed on it, status unsaid)."""
    try:
        response.content.decode("utf-8")
    except UnicodeDecodeError:
        text = response.content.decode("utf-8", "replace").encode("utf-8")
        headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() != "content-length"]
        return type(response)(
            response.status_code, headers=headers, content=text, request=response.request, history=response.history
        )
    return response


class _Guard:
    """What every judge client does on top of its HTTP library's ``send`` (mixed into httpx's and httpx2's)."""

    api = ""  # the API's name for messages: "OpenAI", "Anthropic", "Gemini", or LiteLLM's provider
    limit = MAX_ANSWER_BYTES

    async def _refuse_redirect(self, response: Any) -> None:
        """The response hook: called for every response, before the client would follow a redirect."""
        if not response.has_redirect_location:
            return
        origin = response.request.url
        try:
            target = origin.join(response.headers["Location"])
        except Exception:  # a Location the URL parser refuses: a redirect to nowhere it could name
            target = None
        if target is not None and _origin(target) == _origin(origin):
            return
        shown = where(target) if target is not None and target.host else "an address that cannot be read"
        raise _refuse(
            f"the judge at {where(origin)} answered {response.status_code} with a redirect to {shown}, another "
            "host: not followed, as the request carries the provider's key"
        )

    async def send(self, request: Any, *, stream: bool = False, **kwargs: Any) -> Any:
        response = await super().send(request, stream=True, **kwargs)  # type: ignore[misc]
        try:
            read = await http_body.read_capped(
                response,
                limit=self.limit,
                too_large=lambda: _refuse(
                    f"the judge at {where(request.url)} sent an answer larger than "
                    f"{http_body.size_text(self.limit)}, the judge's limit; the rest was not read"
                ),
            )
        finally:
            await response.aclose()
        if not read.is_success:
            read = _readable(read)
        read.elapsed = response.elapsed
        if not read.is_success:
            return read
        event_stream = "text/event-stream" in read.headers.get("content-type", "")
        if not event_stream and (kind := _not_an_answer(read.content, self.api)) is not None:
            raise _refuse(
                f"the judge at {where(request.url)} answered {read.status_code} with a body that is not "
                f"{_article(self.api)} {self.api} answer ({kind})"
            )
        return read


@functools.cache
def _client_class(library: Any) -> Any:
    class JudgeClient(_Guard, library.AsyncClient):  # type: ignore[misc]
        pass

    return JudgeClient


@functools.cache
def tls_context(library: Any = None) -> Any:
    """One TLS context per process for every judge client, as each library (httpx by default) would make it
    (SSL_CERT_FILE, or certifi's bundle): loading the CA bundle for every client would cost each of them tens of
    milliseconds."""
    return (library or importlib.import_module("httpx")).create_ssl_context()


def judge_http_client(*, api: str, timeout: float, httpx2: bool = False) -> Any:
    """An ``AsyncClient`` of httpx (or httpx2, for the Anthropic SDK) that guards ``api``'s answers."""
    library: Any = importlib.import_module("httpx2" if httpx2 else "httpx")
    client = _client_class(library)(timeout=timeout, verify=tls_context(library), follow_redirects=True)
    client.api = api
    client.event_hooks = {"request": [], "response": [client._refuse_redirect]}
    return client

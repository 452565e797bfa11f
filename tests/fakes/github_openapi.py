"""GitHub's OpenAPI description (the subset we use) for the fake GitHub server: loading, checking, examples.

``github-rest-subset.openapi.json`` is a verbatim copy of the endpoints this tool calls, from GitHub's public
``github/rest-api-description``. The subset has no ``GET /user``; the tool calls it to learn which login a
personal access token posts as, so ``USER_OVERLAY`` adds that operation here, its 200 answer checked against
the subset's ``simple-user`` schema (GitHub answers ``private-user`` or ``public-user``, whose required fields
include all of ``simple-user``'s), and its 401/403 answers against ``basic-error``.

One departure from the description, as GitHub answers: a workflow run whose head repository (a fork) was deleted
has ``"head_repository": null``, which the description does not allow; ``spec_dict`` allows it.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openapi_core import OpenAPI
from openapi_core.templating.responses.exceptions import ResponseNotFound
from openapi_core.testing import MockRequest, MockResponse

SPEC_FILE = Path(__file__).with_name("github-rest-subset.openapi.json")
SERVER = "https://api.github.com"

_ERROR = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/basic-error"}}}}
USER_OVERLAY: dict[str, Any] = {
    "/user": {
        "get": {
            "summary": "Get the authenticated user (added: not in the subset)",
            "operationId": "users/get-authenticated",
            "responses": {
                "200": {
                    "description": "Response",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/simple-user"}}},
                },
                "401": {"description": "Requires authentication", **_ERROR},
                "403": {"description": "Forbidden", **_ERROR},
            },
        }
    }
}


@functools.lru_cache(maxsize=1)
def spec_dict() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(SPEC_FILE.read_text(encoding="utf-8"))
    spec["paths"].update(copy.deepcopy(USER_OVERLAY))
    schemas = spec["components"]["schemas"]
    schemas["workflow-run"]["properties"]["head_repository"] = {**schemas["minimal-repository"], "nullable": True}
    return spec


@functools.lru_cache(maxsize=1)
def openapi() -> OpenAPI:
    return OpenAPI.from_dict(spec_dict())


@dataclass(frozen=True)
class Exchange:
    """One request and the answer the fake gave, in the form the checks need."""

    method: str
    path: str
    query: dict[str, str]
    body: bytes
    status: int
    response_body: bytes
    response_headers: dict[str, str]
    off_description: bool = False  # a platform answer (gateway error, rate limit) GitHub gives on any endpoint


def _request(method: str, path: str, query: dict[str, str], body: bytes) -> MockRequest:
    return MockRequest(SERVER, method, path, args=query, data=body or None, content_type="application/json")


def request_errors(exchange: Exchange) -> list[str]:
    """A request checked once is not checked again: openapi-core takes about 8 ms a request, and five in six of the
    fast tier's requests repeat one already made (the same method, path, query and body)."""
    query = tuple(sorted(exchange.query.items()))
    return list(_checked_request(exchange.method, exchange.path, query, exchange.body))


@functools.lru_cache(maxsize=4096)
def _checked_request(method: str, path: str, query: tuple[tuple[str, str], ...], body: bytes) -> tuple[str, ...]:
    try:
        openapi().validate_request(_request(method, path, dict(query), body))
    except Exception as error:  # openapi-core raises several types; each is a mismatch
        return (f"request {method} {path}: {_describe(error)}",)
    return ()


def response_errors(exchange: Exchange) -> list[str]:
    content_type = "application/json" if exchange.response_body else ""
    response = MockResponse(
        exchange.response_body,
        status_code=exchange.status,
        headers=exchange.response_headers,
        content_type=content_type,
    )
    try:
        openapi().validate_response(_request(exchange.method, exchange.path, exchange.query, exchange.body), response)
    except ResponseNotFound:
        if exchange.off_description:
            return []
        return [f"response {exchange.status} to {exchange.method} {exchange.path} is not in the description"]
    except Exception as error:
        return [f"response {exchange.status} to {exchange.method} {exchange.path}: {_describe(error)}"]
    return []


def _describe(error: Exception) -> str:
    messages = [str(error)]
    inner = error.__cause__
    while inner is not None:
        messages += [str(getattr(sub, "message", sub)) for sub in getattr(inner, "schema_errors", ()) or ()]
        inner = inner.__cause__
    unique = list(dict.fromkeys(m for m in messages if m))
    return "; ".join(unique)[:2000]


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec_dict()["components"]["schemas"][name]
    return schema


def _scalar(schema: dict[str, Any], name: str) -> Any:
    if "enum" in schema:
        return next(v for v in schema["enum"] if v is not None)
    kind = schema.get("type")
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return False
    fmt = schema.get("format")
    if fmt == "date-time":
        return "2026-01-01T00:00:00Z"
    if fmt == "uri":
        return f"https://api.github.com/example/{name}"
    if fmt == "email":
        return "octocat@example.com"
    return name or "x"


def example(schema: dict[str, Any] | str, *, name: str = "") -> Any:
    """A small instance that satisfies ``schema``: the required properties only, filled with plain values."""
    if isinstance(schema, str):
        schema = {"$ref": f"#/components/schemas/{schema}"}
    schema = _resolve(schema)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = example(part, name=name)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return example(schema[key][0], name=name)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {key: example(properties.get(key, {}), name=key) for key in schema.get("required", [])}
    if kind == "array":
        return []
    return _scalar(schema, name)

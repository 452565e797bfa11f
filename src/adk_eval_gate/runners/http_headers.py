"""The headers a remote runner sends with every request (``--agent-header``): ``Name: value`` lines whose
``$VAR``/``${VAR}`` are read from the environment; a secret value is masked wherever the gate prints it."""

from __future__ import annotations

import re
from collections.abc import Mapping

from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_SENSITIVE = re.compile(r"auth|token|key|secret|cookie|password|credential", re.IGNORECASE)


def parse_headers(lines: list[str], *, env: Mapping[str, str], console: Console | None = None) -> dict[str, str]:
    """``Name: value`` lines, ``$VAR``/``${VAR}`` read from ``env``; secret values are registered for masking."""
    headers: dict[str, str] = {}
    for line in lines:
        name, colon, raw = line.partition(":")
        name = name.strip()
        if not colon or not _HEADER_NAME.match(name):
            raise UsageError(
                f"{line.split(':')[0].strip()!r} is not a header; write 'Name: value'", field="--agent-header"
            )
        missing = [m.group(1) or m.group(2) for m in _VARIABLE.finditer(raw) if (m.group(1) or m.group(2)) not in env]
        if missing:
            raise UsageError(
                f"environment variable {missing[0]} (used in header {name}) is not set",
                field="--agent-header",
                hint="set it in the step's env, e.g. a Cloud Run identity token",
            )
        value = _VARIABLE.sub(lambda m: env[m.group(1) or m.group(2)], raw).strip()
        if "\n" in value or "\r" in value:
            raise UsageError(
                f"the value of header {name} holds a line break (from the environment variables it names)",
                field="--agent-header",
                hint="a header value is one line: check the variable's value, e.g. strip a trailing newline",
            )
        if console is not None:
            expanded = value != raw.strip()
            for match in _VARIABLE.finditer(raw):
                console.add_secret(env[match.group(1) or match.group(2)])
            if expanded or _SENSITIVE.search(name):
                console.add_secret(value)
                console.add_secret(value.split(" ", 1)[-1])  # the token of "Bearer <token>"
        headers[name] = value
    return headers

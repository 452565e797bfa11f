"""The http runner's ``--agent-header`` lines: variables from the settings' environment, secrets masked, clear
errors for what cannot be a header."""

from __future__ import annotations

import io
import re

import pytest

from adk_eval_gate.runners.http_headers import parse_headers
from adk_eval_gate.support.console import Console
from adk_eval_gate.support.errors import UsageError


def test_variables_are_expanded_and_their_values_masked() -> None:
    out = io.StringIO()
    console = Console(in_actions=False, stream=out)
    headers = parse_headers(
        ["Authorization: Bearer ${ID_TOKEN}", "X-Team: evals"], env={"ID_TOKEN": "tok-123456"}, console=console
    )
    assert headers == {"Authorization": "Bearer tok-123456", "X-Team": "evals"}
    console.line("sent Bearer tok-123456")
    assert "tok-123456" not in out.getvalue()


@pytest.mark.parametrize(
    ("line", "env", "message"),
    [
        ("no colon here", {}, "'no colon here' is not a header"),
        ("Authorization: Bearer $MISSING", {}, "environment variable MISSING (used in header Authorization)"),
        ("Authorization: Bearer $TOKEN", {"TOKEN": "a\nInjected: yes"}, "holds a line break"),
    ],
)
def test_what_cannot_be_a_header_is_a_usage_error(line: str, env: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)) as caught:
        parse_headers([line], env=env)
    assert caught.value.field == "--agent-header"

"""The GitHub client of a command: made once from the settings (none without a token or a repository), its token
masked on the console, closed at the end."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from adk_eval_gate.config.settings import Settings
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.support.console import Console


@contextlib.contextmanager
def github_session(settings: Settings, console: Console) -> Iterator[GitHubClient | None]:
    """The GitHub client of this command, or None without a token or repository; closed at the end."""
    token = settings.token()
    if not token or not settings.github.repository:
        yield None
        return
    console.add_secret(token)
    client = GitHubClient(api_url=settings.github.api_url, token=token)
    try:
        yield client
    finally:
        client.close()

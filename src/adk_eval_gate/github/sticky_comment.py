"""Posting the sticky pull-request comment: exactly one per pull request and gate id, created once, edited after.

Our comment is the one whose body STARTS with our marker for this gate id AND whose author is the token's
own identity. GitHub lets a token with write access edit anybody's comment, so the author check is what keeps
us from touching a comment someone else wrote (or one that quotes our marker).

Identity: the workflow's ``GITHUB_TOKEN`` (an installation token, ``ghs_...``) posts as ``github-actions[bot]``
and may not call ``GET /user``; any other token (a personal access token) is asked ``GET /user``.

``comment-mode``: ``always`` creates or updates; ``on-change`` edits only when the digest in the marker differs
(the verdict, a case status, a score or the comparison changed); ``on-failure`` creates a comment only when
the gate fails, but always updates an existing one so it never shows a stale failure; ``off`` posts nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from adk_eval_gate.github.api_models import IssueComment, User
from adk_eval_gate.github.client import GitHubClient, GitHubPermissionError
from adk_eval_gate.report.comment import parse_marker, safe_gate_id

BOT_LOGIN = "github-actions[bot]"
PULL_REQUESTS_WRITE = "pull-requests: write"
Action = Literal["created", "updated", "unchanged", "skipped"]


@dataclass(frozen=True)
class CommentResult:
    action: Action
    url: str | None = None
    reason: str | None = None


def identity(client: GitHubClient, token: str) -> str:
    if token.startswith("ghs_"):
        return BOT_LOGIN
    try:
        user = client.get("/user", User)
    except GitHubPermissionError:
        return BOT_LOGIN  # an installation token of another kind: GitHub answers 403
    return user.login or BOT_LOGIN


def _find_own_comment(
    client: GitHubClient, *, repository: str, pull_number: int, gate_id: str, login: str
) -> IssueComment | None:
    wanted = safe_gate_id(gate_id)
    for comment in client.paginate(
        f"/repos/{repository}/issues/{pull_number}/comments",
        IssueComment,
        permission=PULL_REQUESTS_WRITE,
        max_pages=100,
    ):
        parsed = parse_marker(comment.body or "")
        author = comment.user.login if comment.user else None
        if parsed and parsed[0] == wanted and author and author.lower() == login.lower():
            return comment
    return None


def post(  # parameters: the comment, where it goes and how it is kept, each keyword-only
    client: GitHubClient,
    *,
    token: str,
    repository: str,
    pull_number: int,
    body: str,
    gate_id: str,
    mode: str,
    failing: bool,
) -> CommentResult:
    """Creates or edits our comment per ``mode``. Raises ``GitHubError`` (e.g. 403 on a fork's token)."""
    if mode == "off":
        return CommentResult("skipped", reason="comment-mode is off")
    login = identity(client, token)
    existing = _find_own_comment(client, repository=repository, pull_number=pull_number, gate_id=gate_id, login=login)
    if existing is None:
        if mode == "on-failure" and not failing:
            return CommentResult("skipped", reason="the gate passed and comment-mode is on-failure")
        created = client.post(
            f"/repos/{repository}/issues/{pull_number}/comments",
            IssueComment,
            json={"body": body},
            permission=PULL_REQUESTS_WRITE,
        )
        return CommentResult("created", url=created.html_url)
    old_body = existing.body or ""
    old_marker, new_marker = parse_marker(old_body), parse_marker(body)
    same_digest = bool(old_marker and new_marker and old_marker[1] == new_marker[1])
    if old_body == body or (mode == "on-change" and same_digest):
        return CommentResult("unchanged", url=existing.html_url, reason="nothing changed since the comment was posted")
    updated = client.patch(
        f"/repos/{repository}/issues/comments/{existing.id}",
        IssueComment,
        json={"body": body},
        permission=PULL_REQUESTS_WRITE,
    )
    return CommentResult("updated", url=updated.html_url or existing.html_url)

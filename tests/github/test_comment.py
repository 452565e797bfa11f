"""The sticky comment against the fake GitHub: one per pull request and gate id, never anybody else's."""

from __future__ import annotations

import pytest

from adk_eval_gate.github import sticky_comment
from adk_eval_gate.github.client import GitHubClient, GitHubPermissionError
from adk_eval_gate.report.comment import marker
from adk_eval_gate.support.retry import Backoff
from tests.fakes.github_server import FakeGitHub

FAST = Backoff(attempts=4, initial=0.01, maximum=0.01)

BOT_TOKEN = "ghs_installation_token"
PAT = "github_pat_personal_token"


def post(fake: FakeGitHub, body: str, *, token: str = BOT_TOKEN, mode: str = "always", failing: bool = True,
         gate_id: str = "default") -> sticky_comment.CommentResult:  # fmt: skip
    client = GitHubClient(api_url=fake.url, token=token, retry=FAST)
    return sticky_comment.post(
        client,
        token=token,
        repository="octo/repo",
        pull_number=7,
        body=body,
        gate_id=gate_id,
        mode=mode,
        failing=failing,
    )


def body(text: str, digest: str = "aaaa", gate_id: str = "default") -> str:
    return f"{marker(gate_id, digest)}\n\n{text}\n"


def test_first_run_creates_second_run_edits_the_same_comment(fake_github: FakeGitHub) -> None:
    first = post(fake_github, body("first", "d1"))
    assert first.action == "created" and first.url and "#issuecomment-" in first.url
    second = post(fake_github, body("second", "d2"))
    assert second.action == "updated" and second.url == first.url
    [only] = fake_github.comments_on(7)
    assert only.body == body("second", "d2") and only.login == "github-actions[bot]"
    assert len(fake_github.calls("POST")) == 1 and len(fake_github.calls("PATCH")) == 1
    assert fake_github.calls("GET", "/user") == []  # an installation token is github-actions[bot]


def test_a_comment_by_another_user_with_our_marker_is_left_alone(fake_github: FakeGitHub) -> None:
    spoofed = fake_github.add_comment(body("I am not the bot"), login="mallory")
    quoted = fake_github.add_comment("quoting: " + body("x"), login="github-actions[bot]")
    result = post(fake_github, body("ours"))
    assert result.action == "created"
    assert fake_github.comments[spoofed].body == body("I am not the bot")
    assert fake_github.comments[quoted].body == "quoting: " + body("x")
    assert fake_github.calls("PATCH") == []
    post(fake_github, body("ours again", "d2"))
    [patched] = fake_github.calls("PATCH")
    assert patched.path.endswith(f"/comments/{result.url.rsplit('-', 1)[-1]}")  # type: ignore[union-attr]


def test_gate_ids_have_their_own_comments(fake_github: FakeGitHub) -> None:
    post(fake_github, body("unit", gate_id="unit"), gate_id="unit")
    post(fake_github, body("e2e", gate_id="e2e"), gate_id="e2e")
    post(fake_github, body("unit 2", "d2", gate_id="unit"), gate_id="unit")
    assert sorted(c.body.split("\n\n")[1].strip() for c in fake_github.comments_on(7)) == ["e2e", "unit 2"]


def test_on_change_edits_only_when_the_digest_changes(fake_github: FakeGitHub) -> None:
    post(fake_github, body("first", "5a3e"), mode="on-change")
    unchanged = post(fake_github, body("new run link", "5a3e"), mode="on-change")
    assert unchanged.action == "unchanged" and unchanged.url
    assert fake_github.calls("PATCH") == []
    changed = post(fake_github, body("scores moved", "0f0f"), mode="on-change")
    assert changed.action == "updated"


def test_on_failure_creates_only_when_failing_but_always_updates(fake_github: FakeGitHub) -> None:
    skipped = post(fake_github, body("green"), mode="on-failure", failing=False)
    assert skipped.action == "skipped" and fake_github.calls("POST") == []
    assert post(fake_github, body("red", "d2"), mode="on-failure", failing=True).action == "created"
    assert post(fake_github, body("green again", "d3"), mode="on-failure", failing=False).action == "updated"
    assert [c.body for c in fake_github.comments_on(7)] == [body("green again", "d3")]


def test_off_makes_no_request(fake_github: FakeGitHub) -> None:
    assert post(fake_github, body("x"), mode="off").action == "skipped"
    assert fake_github.requests == []


def test_a_personal_access_token_is_asked_who_it_is(fake_github: FakeGitHub) -> None:
    bot_comment = fake_github.add_comment(body("the bot's"), login="github-actions[bot]")
    result = post(fake_github, body("as octocat"), token=PAT)
    assert result.action == "created"
    assert len(fake_github.calls("GET", "^/user$")) == 1
    assert fake_github.comments[bot_comment].body == body("the bot's")
    assert {c.login for c in fake_github.comments_on(7)} == {"github-actions[bot]", "octocat"}


def test_a_forks_read_only_token_gets_a_permission_error(fake_github: FakeGitHub) -> None:
    fake_github.writable = False
    with pytest.raises(GitHubPermissionError, match="pull-requests: write"):
        post(fake_github, body("x"))
    assert fake_github.comments_on(7) == []

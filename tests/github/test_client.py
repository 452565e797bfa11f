"""The REST client against the fake GitHub over real HTTP: retries, rate limits, pagination, clear errors."""

from __future__ import annotations

import pytest

from adk_eval_gate.github.api_models import Artifact, IssueComment, PullRequest, User
from adk_eval_gate.github.client import GitHubClient, GitHubError, GitHubNotFound, GitHubPermissionError, RateLimited
from adk_eval_gate.support.retry import Backoff
from tests.fakes.github_server import FakeGitHub

FAST = Backoff(attempts=4, initial=0.01, maximum=0.01)

COMMENTS = "/repos/octo/repo/issues/7/comments"
SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}


class CommentWithApiUrl(IssueComment):
    url: str


def client_for(fake: FakeGitHub, **options: object) -> GitHubClient:
    settings = {"retry": FAST, "max_wait": 30.0, **options}
    return GitHubClient(api_url=fake.url, token="ghs_0123456789secret", **settings)  # type: ignore[arg-type]


def test_a_502_then_success_is_retried(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", COMMENTS + "$", 502)
    fake_github.add_comment("hello", login="someone")
    assert [c.body for c in client_for(fake_github).paginate(COMMENTS, IssueComment)] == ["hello"]
    assert [call.status for call in fake_github.calls("GET", COMMENTS)] == [502, 200]


def test_repeated_5xx_gives_up_with_one_line(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", COMMENTS + "$", 503, times=10)
    with pytest.raises(GitHubError, match="GitHub answered 503") as caught:
        list(
            client_for(fake_github, retry=Backoff(attempts=3, initial=0.01, maximum=0.01)).paginate(
                COMMENTS, IssueComment
            )
        )
    assert "secret" not in str(caught.value)
    assert len(fake_github.calls("GET", COMMENTS)) == 3


def test_a_secondary_rate_limit_is_waited_out(fake_github: FakeGitHub) -> None:
    fake_github.fail("POST", COMMENTS, 403, headers={"Retry-After": "1"}, body=SECONDARY)
    slept: list[float] = []
    client = client_for(fake_github, sleep=slept.append)
    created = client.post(COMMENTS, IssueComment, json={"body": "after the wait"})
    assert slept == [1.0]  # the wait GitHub asked for, before the request was sent again
    assert created.body == "after the wait"
    assert client.waited == 1.0
    assert [c.body for c in fake_github.comments_on(7)] == ["after the wait"]


def test_a_secondary_rate_limit_without_retry_after_waits_a_minute_within_the_cap(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", COMMENTS, 429, body=SECONDARY)
    with pytest.raises(RateLimited, match="did not clear within 5 s"):
        list(client_for(fake_github, max_wait=5).paginate(COMMENTS, IssueComment))


def test_the_primary_rate_limit_waits_until_reset(fake_github: FakeGitHub) -> None:
    now = 1_700_000_000.0
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now) + 2), "x-ratelimit-limit": "5000"}
    fake_github.fail("GET", COMMENTS, 403, headers=headers, body={"message": "API rate limit exceeded"})
    slept: list[float] = []
    client = client_for(fake_github, sleep=slept.append, clock=lambda: now)
    assert list(client.paginate(COMMENTS, IssueComment)) == []
    assert slept == [3.0]  # until the reset, and a second more
    assert client.waited == 3.0


def test_a_rate_limit_longer_than_the_cap_fails_at_once(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", COMMENTS, 403, headers={"Retry-After": "3600"}, body=SECONDARY)
    slept: list[float] = []
    with pytest.raises(RateLimited, match="rate limit") as caught:
        list(client_for(fake_github, max_wait=60, sleep=slept.append).paginate(COMMENTS, IssueComment))
    assert slept == []  # no wait at all
    assert len(fake_github.calls("GET", COMMENTS)) == 1
    assert "retry later" in caught.value.one_line()


def test_403_and_404_name_the_permission_the_workflow_needs(fake_github: FakeGitHub) -> None:
    fake_github.writable = False
    client = client_for(fake_github)
    with pytest.raises(GitHubPermissionError) as refused:
        client.post(COMMENTS, IssueComment, json={"body": "x"}, permission="pull-requests: write")
    line = refused.value.one_line()
    assert "403" in line and "Resource not accessible by integration" in line
    assert "permissions: pull-requests: write" in line
    with pytest.raises(GitHubNotFound) as missing:
        client.redirect_location("/repos/octo/repo/actions/artifacts/999/zip", permission="actions: read")
    assert "404" in missing.value.one_line() and "permissions: actions: read" in missing.value.one_line()


def test_401_says_the_token_is_missing_or_invalid(fake_github: FakeGitHub) -> None:
    fake_github.fail("GET", COMMENTS, 401, body={"message": "Bad credentials"})
    with pytest.raises(GitHubPermissionError, match="token is missing, expired or invalid"):
        list(client_for(fake_github).paginate(COMMENTS, IssueComment))


@pytest.mark.slow  # 230 comments over three pages of the fake GitHub, each answer checked against its description
def test_pagination_follows_link_headers(fake_github: FakeGitHub) -> None:
    for number in range(230):
        fake_github.add_comment(f"c{number}", login="someone")
    bodies = [c.body for c in client_for(fake_github).paginate(COMMENTS, IssueComment)]
    assert bodies == [f"c{n}" for n in range(230)]
    pages = fake_github.calls("GET", COMMENTS)
    assert [call.query.get("page") for call in pages] == [None, "2", "3"]
    assert all(call.query["per_page"] == "100" for call in pages)


def test_the_token_goes_only_to_the_api(fake_github: FakeGitHub) -> None:
    client = client_for(fake_github)
    with pytest.raises(GitHubError, match="refusing to send the token"):
        client.get(fake_github.storage_url + "/blobs/1.zip", User)
    assert fake_github.storage_requests == []
    assert all(call.authorization == "Bearer ghs_0123456789secret" for call in fake_github.requests)


def test_github_enterprise_server_api_prefix() -> None:
    with FakeGitHub(base_path="/api/v3") as fake:
        client = GitHubClient(api_url=fake.url, token="ghs_x", retry=FAST)
        created = client.post(COMMENTS, CommentWithApiUrl, json={"body": "on GHES"})
        assert created.url.startswith(fake.url)
        assert [c.body for c in client.paginate(COMMENTS, IssueComment)] == ["on GHES"]
        fake.assert_clean()


def test_an_unreachable_api_fails_with_one_line() -> None:
    with FakeGitHub() as fake:
        url = fake.url
    client = GitHubClient(api_url=url, token="ghs_x", retry=Backoff(attempts=2, initial=0.01, maximum=0.01), timeout=2)
    with pytest.raises(GitHubError, match="cannot reach GitHub"):
        client.get("/user", User)


def test_an_answer_of_another_shape_is_one_clear_error_and_odd_list_items_are_skipped(fake_github: FakeGitHub) -> None:
    fake_github.add_comment("kept", login="someone")
    client = client_for(fake_github)
    with pytest.raises(GitHubError, match="unexpected shape"):
        client.get(COMMENTS, PullRequest)  # a list where an object was expected
    assert [c.body for c in client.paginate(COMMENTS, CommentWithApiUrl)] == ["kept"]
    assert list(client.paginate(COMMENTS, Artifact)) == []  # no comment has an artifact's name: all skipped

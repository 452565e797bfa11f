"""Which pull request the workflow_run workflow comments on, and the check that it is the evaluated one."""

from __future__ import annotations

from adk_eval_gate.config.github_context import GitHubContext
from adk_eval_gate.github import pull_request
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.support.retry import Backoff
from tests.fakes.github_server import FakeGitHub

FAST = Backoff(attempts=4, initial=0.01, maximum=0.01)

HEAD = "c0ffee" * 6 + "c0ff"  # the fake's pull request #7


def workflow_run_context(head_sha: str, listed: list[int] | None = None) -> GitHubContext:
    run = {"id": 9, "head_sha": head_sha, "pull_requests": [{"number": n} for n in listed or []]}
    return GitHubContext(event_name="workflow_run", repository="octo/repo", event={"workflow_run": run})


def resolve(fake: FakeGitHub, context: GitHubContext, *, explicit: int | None = None, recorded: int | None = None):  # type: ignore[no-untyped-def]
    client = GitHubClient(api_url=fake.url, token="ghs_x", retry=FAST)
    return pull_request.resolve(client, context=context, explicit=explicit, recorded=recorded)


def test_the_recorded_number_is_used_when_the_head_matches(fake_github: FakeGitHub) -> None:
    resolved = resolve(fake_github, workflow_run_context(HEAD), recorded=7)
    assert resolved == pull_request.Resolved(7)
    assert len(fake_github.calls("GET", "/pulls/7")) == 1


def test_a_number_pointing_at_another_pull_request_is_refused(fake_github: FakeGitHub) -> None:
    fake_github.add_pull_request(8, head_sha="de" * 20)
    resolved = resolve(fake_github, workflow_run_context(HEAD), recorded=8)
    assert resolved.number is None
    assert (
        resolved.problem is not None
        and "pull request #8 is not the one the triggering run evaluated" in resolved.problem
    )


def test_the_events_list_comes_before_the_recorded_number(fake_github: FakeGitHub) -> None:
    assert resolve(fake_github, workflow_run_context(HEAD, listed=[7]), recorded=8).number == 7


def test_a_pull_request_event_needs_no_lookup(fake_github: FakeGitHub) -> None:
    context = GitHubContext(event_name="pull_request", repository="octo/repo", event={"number": 7})
    assert resolve(fake_github, context).number == 7
    assert fake_github.requests == []


def test_no_number_at_all(fake_github: FakeGitHub) -> None:
    context = GitHubContext(event_name="workflow_run", repository="octo/repo", event={"workflow_run": {"id": 9}})
    resolved = resolve(fake_github, context)
    assert resolved.number is None and resolved.problem is not None and "--pr" in resolved.problem


def test_a_push_has_nothing_to_comment_on_and_nothing_to_warn_about(fake_github: FakeGitHub) -> None:
    # e.g. the sharded workflow's merge job on the default branch, which only uploads the baseline
    resolved = resolve(fake_github, GitHubContext(event_name="push", repository="octo/repo"))
    assert resolved == pull_request.Resolved(None)
    assert fake_github.requests == []

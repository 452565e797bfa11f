"""The GitHub context read from the runner's environment, for each event the tool supports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adk_eval_gate.config.github_context import GitHubContext, read_context

SHA = "c0ffee" * 6 + "c0ff"


def env_for(tmp_path: Path, event_name: str, payload: dict[str, object], **extra: str) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_WORKFLOW_REF": "octo/repo/.github/workflows/agent-evals.yml@refs/heads/main",
        "GITHUB_SHA": "merge" + "0" * 35,
        **extra,
    }


def test_pull_request(tmp_path: Path) -> None:
    payload = {
        "number": 7,
        "pull_request": {
            "number": 7,
            "head": {"sha": SHA, "repo": {"full_name": "contributor/repo"}},
            "base": {"ref": "develop"},
        },
        "repository": {"default_branch": "main"},
    }
    context = read_context(env_for(tmp_path, "pull_request", payload))
    assert context.pull_request_number == 7
    assert context.base_branch == "develop"  # from the payload when GITHUB_BASE_REF is not set
    assert context.head_sha == SHA  # the PR's head, not the merge commit
    assert context.is_fork_pull_request
    assert context.workflow_file == "agent-evals.yml"
    assert context.workflow_run == {} and context.workflow_run_pull_requests == []


def test_push_and_workflow_dispatch(tmp_path: Path) -> None:
    for event in ("push", "workflow_dispatch"):
        context = read_context(env_for(tmp_path, event, {"ref": "refs/heads/main"}, GITHUB_SHA=SHA))
        assert context.pull_request_number is None
        assert context.base_branch is None and context.head_sha == SHA


def test_pull_request_target_uses_base_ref(tmp_path: Path) -> None:
    payload = {"number": 9, "pull_request": {"number": 9, "head": {"sha": SHA}, "base": {"ref": "main"}}}
    context = read_context(env_for(tmp_path, "pull_request_target", payload, GITHUB_BASE_REF="main"))
    assert context.pull_request_number == 9 and context.base_branch == "main"


def test_workflow_run(tmp_path: Path) -> None:
    payload = {
        "workflow_run": {
            "id": 555,
            "head_sha": SHA,
            "html_url": "https://github.com/octo/repo/actions/runs/555",
            "pull_requests": [{"number": 12, "head": {"sha": SHA}}],
        }
    }
    context = read_context(env_for(tmp_path, "workflow_run", payload))
    assert context.pull_request_number is None  # resolved (and checked) by github.pull_request
    assert context.workflow_run_pull_requests == [12]
    assert context.head_sha == SHA


def test_enterprise_server_urls(tmp_path: Path) -> None:
    context = read_context(
        env_for(
            tmp_path,
            "push",
            {},
            GITHUB_API_URL="https://ghe.example.com/api/v3",
            GITHUB_SERVER_URL="https://ghe.example.com",
            GITHUB_RUN_ID="42",
        )
    )
    assert context.api_url == "https://ghe.example.com/api/v3"
    assert context.run_url == "https://ghe.example.com/octo/repo/actions/runs/42"


@pytest.mark.parametrize(
    ("workflow_ref", "path"),
    [
        ("octo/repo/.github/workflows/agent-evals.yml@refs/pull/7/merge", ".github/workflows/agent-evals.yml"),
        ("octo/repo@refs/heads/main", None),
        ("", None),
    ],
)
def test_the_workflow_path_is_the_file_in_the_repository_as_a_run_names_it(workflow_ref: str, path: str | None) -> None:
    assert GitHubContext(workflow_ref=workflow_ref or None).workflow_path == path

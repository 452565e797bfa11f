"""GitHub REST objects for the fake server: the fake's state, and answers built from it that satisfy the
OpenAPI schemas (``example`` fills the required fields; the fields the tool reads are set from the state)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.fakes.github_openapi import example

BOT_LOGIN = "github-actions[bot]"
BOT_ID = 41898282
_TIME = "2026-01-{day:02d}T{hour:02d}:{minute:02d}:00Z"


def timestamp(step: int) -> str:
    day, rest = divmod(step, 24 * 60)
    hour, minute = divmod(rest, 60)
    return _TIME.format(day=1 + day % 28, hour=hour, minute=minute)


def deep_update(target: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            deep_update(target[key], value)
        else:
            target[key] = value
    return target


@dataclass
class Pull:
    number: int
    base_ref: str
    head_sha: str
    head_repo: str


@dataclass
class Comment:
    id: int
    issue: int
    body: str
    login: str
    created: int
    updated: int


@dataclass
class Artifact:
    id: int
    run_id: int
    name: str
    data: bytes
    declared_size: int
    expired: bool = False
    endless: bool = False  # the storage host sends its zip a few bytes at a time, without end


@dataclass
class WorkflowRun:
    id: int
    workflow: str
    branch: str
    event: str
    conclusion: str | None
    head_sha: str
    created: int
    status: str = "completed"
    pull_requests: list[int] = field(default_factory=list)
    head_repository: str | None = None  # None: the repository itself
    head_repository_deleted: bool = False  # a fork deleted since: GitHub answers ``"head_repository": null``


def user(login: str) -> dict[str, Any]:
    user_id = BOT_ID if login == BOT_LOGIN else 1000 + sum(map(ord, login))
    kind = "Bot" if login.endswith("[bot]") else "User"
    return deep_update(example("simple-user"), {"login": login, "id": user_id, "type": kind, "node_id": f"U_{user_id}"})


def comment(item: Comment, *, repository: str, api: str) -> dict[str, Any]:
    return deep_update(
        example("issue-comment"),
        {
            "id": item.id,
            "node_id": f"IC_{item.id}",
            "body": item.body,
            "user": user(item.login),
            "url": f"{api}/repos/{repository}/issues/comments/{item.id}",
            "html_url": f"https://github.com/{repository}/pull/{item.issue}#issuecomment-{item.id}",
            "issue_url": f"{api}/repos/{repository}/issues/{item.issue}",
            "created_at": timestamp(item.created),
            "updated_at": timestamp(item.updated),
            "author_association": "NONE" if item.login.endswith("[bot]") else "MEMBER",
        },
    )


def pull_request(pull: Pull, *, repository: str, api: str) -> dict[str, Any]:
    owner, name = repository.split("/")
    head_owner, head_name = pull.head_repo.split("/")
    return deep_update(
        example("pull-request"),
        {
            "number": pull.number,
            "state": "open",
            "url": f"{api}/repos/{repository}/pulls/{pull.number}",
            "html_url": f"https://github.com/{repository}/pull/{pull.number}",
            "head": {
                "sha": pull.head_sha,
                "ref": "feature",
                "label": f"{head_owner}:feature",
                "repo": {"full_name": pull.head_repo, "name": head_name, "fork": pull.head_repo != repository},
            },
            "base": {
                "ref": pull.base_ref,
                "label": f"{owner}:{pull.base_ref}",
                "repo": {"full_name": repository, "name": name},
            },
        },
    )


def _pull_minimal(pull: Pull, *, repository: str, api: str) -> dict[str, Any]:
    repo = {"id": 1, "url": f"{api}/repos/{repository}", "name": repository.split("/")[1]}
    return {
        "id": pull.number,
        "number": pull.number,
        "url": f"{api}/repos/{repository}/pulls/{pull.number}",
        "head": {"ref": "feature", "sha": pull.head_sha, "repo": repo},
        "base": {"ref": pull.base_ref, "sha": "0" * 40, "repo": repo},
    }


def workflow_run(run: WorkflowRun, *, pulls: list[Pull], repository: str, api: str) -> dict[str, Any]:
    base = f"{api}/repos/{repository}/actions/runs/{run.id}"
    return deep_update(
        example("workflow-run"),
        {
            "id": run.id,
            "run_number": run.id,
            "head_branch": run.branch,
            "head_sha": run.head_sha,
            "event": run.event,
            "status": run.status,
            "conclusion": run.conclusion,
            "path": f".github/workflows/{run.workflow}",
            "created_at": timestamp(run.created),
            "updated_at": timestamp(run.created),
            "html_url": f"https://github.com/{repository}/actions/runs/{run.id}",
            "url": base,
            "artifacts_url": f"{base}/artifacts",
            "pull_requests": [_pull_minimal(p, repository=repository, api=api) for p in pulls],
            "head_repository": None
            if run.head_repository_deleted
            else {"full_name": run.head_repository or repository},
            "repository": {"full_name": repository},
        },
    )


def artifact(item: Artifact, *, repository: str, api: str) -> dict[str, Any]:
    base = f"{api}/repos/{repository}/actions/artifacts/{item.id}"
    return deep_update(
        example("artifact"),
        {
            "id": item.id,
            "node_id": f"MDg6QXJ0aWZhY3Qx{item.id}",
            "name": item.name,
            "size_in_bytes": item.declared_size,
            "url": base,
            "archive_download_url": f"{base}/zip",
            "expired": item.expired,
            "workflow_run": {"id": item.run_id, "head_sha": "0" * 40},
        },
    )

"""The GitHub Actions context, read once from the runner's environment."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pydantic

from adk_eval_gate.support import sanitize

PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})  # runs whose code is the PR's own


class GitHubContext(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True)

    in_actions: bool = False
    event_name: str | None = None
    event: dict[str, Any] = pydantic.Field(default_factory=dict)
    repository: str | None = None
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str | None = None
    run_attempt: str | None = None
    workflow_ref: str | None = None
    sha: str | None = None
    ref: str | None = None
    base_ref: str | None = None
    head_ref: str | None = None
    workspace: Path | None = None
    output_path: Path | None = None
    step_summary_path: Path | None = None

    @property
    def run_url(self) -> str | None:
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"

    @property
    def attempt(self) -> int | None:
        """The workflow run's attempt (``GITHUB_RUN_ATTEMPT``: 2 on a re-run), when it is a number."""
        given = self.run_attempt
        return int(given) if given and given.isascii() and given.isdigit() and len(given) < 6 else None

    @property
    def pull_request_number(self) -> int | None:
        """The PR of a ``pull_request``/``pull_request_target`` event (``workflow_run`` is resolved later)."""
        pull = self.event.get("pull_request")
        if isinstance(pull, dict) and isinstance(pull.get("number"), int):
            return int(pull["number"])
        if self.event_name in PULL_REQUEST_EVENTS and isinstance(self.event.get("number"), int):
            return int(self.event["number"])
        return None

    @property
    def head_repository(self) -> str | None:
        pull = self.event.get("pull_request")
        if isinstance(pull, dict):
            repo = (pull.get("head") or {}).get("repo") or {}
            name = repo.get("full_name")
            return str(name) if name else None
        return None

    @property
    def is_fork_pull_request(self) -> bool:
        head = self.head_repository
        return bool(head and self.repository and head != self.repository)

    @property
    def base_branch(self) -> str | None:
        """The pull request's base branch (``GITHUB_BASE_REF``, else the event payload)."""
        if self.base_ref:
            return self.base_ref
        pull = self.event.get("pull_request")
        if isinstance(pull, dict):
            ref = (pull.get("base") or {}).get("ref")
            return str(ref) if ref else None
        return None

    @property
    def head_sha(self) -> str | None:
        """The commit evaluated: the PR's head (not the merge commit), or the workflow_run's head, or GITHUB_SHA."""
        pull = self.event.get("pull_request")
        if isinstance(pull, dict) and (pull.get("head") or {}).get("sha"):
            return str(pull["head"]["sha"])
        if self.workflow_run.get("head_sha"):
            return str(self.workflow_run["head_sha"])
        return self.sha

    @property
    def workflow_file(self) -> str | None:
        """This workflow's file name (``eval.yml``), from ``GITHUB_WORKFLOW_REF``: the Actions API's workflow id."""
        if not self.workflow_ref:
            return None
        path = self.workflow_ref.split("@", 1)[0]
        name = path.rsplit("/", 1)[-1]
        return name or None

    @property
    def workflow_path(self) -> str | None:
        """This workflow's file in its repository (``.github/workflows/eval.yml``), from ``GITHUB_WORKFLOW_REF``
        (``owner/repo/.github/workflows/eval.yml@ref``): what a workflow run's ``path`` says."""
        if not self.workflow_ref:
            return None
        parts = self.workflow_ref.split("@", 1)[0].split("/", 2)
        return parts[2] if len(parts) == 3 and parts[2] else None

    @property
    def workflow_run(self) -> dict[str, Any]:
        """The triggering run of a ``workflow_run`` event (empty for other events)."""
        run = self.event.get("workflow_run") if self.event_name == "workflow_run" else None
        return run if isinstance(run, dict) else {}

    @property
    def workflow_run_pull_requests(self) -> list[int]:
        """PR numbers GitHub lists on the triggering run (empty for pull requests from forks, by GitHub's design)."""
        numbers = []
        for pull in self.workflow_run.get("pull_requests") or []:
            if isinstance(pull, dict) and isinstance(pull.get("number"), int):
                numbers.append(int(pull["number"]))
        return numbers


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def read_context(env: Mapping[str, str]) -> GitHubContext:
    event: dict[str, Any] = {}
    event_path = env.get("GITHUB_EVENT_PATH")
    if event_path and Path(event_path).is_file():
        try:
            loaded = sanitize.loads(Path(event_path).read_text(encoding="utf-8"))
            event = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            event = {}
    return GitHubContext(
        in_actions=env.get("GITHUB_ACTIONS") == "true",
        event_name=env.get("GITHUB_EVENT_NAME") or None,
        event=event,
        repository=env.get("GITHUB_REPOSITORY") or None,
        api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
        server_url=env.get("GITHUB_SERVER_URL") or "https://github.com",
        run_id=env.get("GITHUB_RUN_ID") or None,
        run_attempt=env.get("GITHUB_RUN_ATTEMPT") or None,
        workflow_ref=env.get("GITHUB_WORKFLOW_REF") or None,
        sha=env.get("GITHUB_SHA") or None,
        ref=env.get("GITHUB_REF") or None,
        base_ref=env.get("GITHUB_BASE_REF") or None,
        head_ref=env.get("GITHUB_HEAD_REF") or None,
        workspace=_path(env.get("GITHUB_WORKSPACE")),
        output_path=_path(env.get("GITHUB_OUTPUT")),
        step_summary_path=_path(env.get("GITHUB_STEP_SUMMARY")),
    )

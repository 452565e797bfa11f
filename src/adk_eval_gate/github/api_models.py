"""GitHub's answers as small models, validated where they enter (the client): only the fields we read.

Unknown fields are ignored, so a newer GitHub or GitHub Enterprise Server adding fields changes nothing.
"""

from __future__ import annotations

import pydantic


class Answer(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore", frozen=True)


class User(Answer):
    login: str | None = None


class Repository(Answer):
    full_name: str | None = None


class WorkflowRun(Answer):
    id: int
    run_number: int | None = None
    event: str | None = None
    path: str | None = None  # the workflow file, ``.github/workflows/eval.yml``
    conclusion: str | None = None
    head_branch: str | None = None
    head_sha: str | None = None
    html_url: str | None = None
    created_at: str | None = None
    head_repository: Repository | None = None


class Artifact(Answer):
    id: int
    name: str
    size_in_bytes: int = 0
    expired: bool = False


class IssueComment(Answer):
    id: int
    body: str | None = None
    user: User | None = None
    html_url: str | None = None


class CommitRef(Answer):
    sha: str | None = None


class PullRequest(Answer):
    number: int | None = None
    head: CommitRef | None = None

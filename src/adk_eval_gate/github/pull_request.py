"""Which pull request to comment on.

In a ``pull_request`` run it is the event's. In the two-workflow set-up the ``workflow_run`` workflow posts the
comment, and the number comes, in this order, from ``--pr``, from the triggering run's ``pull_requests`` (GitHub
fills it for branches of the same repository, not for forks), or from ``run.pull_request`` in the uploaded
results.json. The last one was written by the pull request's own (untrusted) run, so any number is checked:
the pull request's head commit must be the triggering run's ``head_sha``, else nothing is posted.
"""

from __future__ import annotations

from dataclasses import dataclass

from adk_eval_gate.config.github_context import PULL_REQUEST_EVENTS, GitHubContext
from adk_eval_gate.github.api_models import PullRequest
from adk_eval_gate.github.client import GitHubClient
from adk_eval_gate.support.errors import GateError


@dataclass(frozen=True)
class Resolved:
    number: int | None
    problem: str | None = None  # why there is no number (a warning), when there is a reason to expect one


def candidate(context: GitHubContext, *, explicit: int | None, recorded: int | None) -> int | None:
    if explicit is not None:
        return explicit
    if context.pull_request_number is not None:
        return context.pull_request_number
    listed = context.workflow_run_pull_requests
    if listed:
        return listed[0]
    return recorded


def none_to_comment_on(context: GitHubContext) -> str:
    """Why there is no pull request to comment on when neither the event nor ``--pr`` names one (one line)."""
    if not context.in_actions or context.event_name is None:
        return "not in a GitHub Actions run (no pull request event), and no --pr NUMBER was given"
    return f"the {context.event_name} event names no pull request, and no --pr NUMBER was given"


def resolve(client: GitHubClient, *, context: GitHubContext, explicit: int | None, recorded: int | None) -> Resolved:
    number = candidate(context, explicit=explicit, recorded=recorded)
    if number is None:
        if context.event_name not in {*PULL_REQUEST_EVENTS, "workflow_run"}:
            return Resolved(None)  # a push or a manual run: nothing to comment on, and nothing wrong
        return Resolved(None, f"no pull request to comment on: {none_to_comment_on(context)}")
    expected = context.workflow_run.get("head_sha")
    if not expected or not context.repository:
        return Resolved(number)
    try:
        pull = client.get(f"/repos/{context.repository}/pulls/{number}", PullRequest, permission="pull-requests: read")
    except GateError as error:
        return Resolved(None, f"cannot check pull request #{number}: {error.one_line()}")
    head_sha = pull.head.sha if pull.head else None
    if head_sha != expected:
        return Resolved(
            None,
            f"pull request #{number} is not the one the triggering run evaluated (its head is not {expected[:12]}); "
            "no comment posted",
        )
    return Resolved(number)

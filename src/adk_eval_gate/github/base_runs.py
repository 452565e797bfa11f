"""Which runs of the Actions API are the base branch's own, and how many requests looking them up may cost.

A base run is a run of the same workflow file as this one, on the base branch, whose head is the repository itself
(never a fork, never unknown), of an event that runs the base branch's own code: an allow-list, so that an event
GitHub adds later, or one that runs a pull request's code on a branch named like the base branch
(``pull_request_review``, ``issue_comment``, ``workflow_run``...), never becomes a baseline.

The lookup's requests are held by ``LookupBudget``: one listing of runs, then per run looked up over the network one
artifact listing, one download location and one download. Runs looked up are the ``history`` wanted (at least one)
plus at most ``MAX_PASSED_OVER`` that turn out to be unusable, so passing runs over never costs more than that.
"""

from __future__ import annotations

from dataclasses import dataclass

from adk_eval_gate.github.api_models import WorkflowRun
from adk_eval_gate.github.download import GitHubError

BASE_BRANCH_EVENTS = frozenset({"push", "schedule", "workflow_dispatch", "merge_group"})
MAX_PASSED_OVER = 10  # runs looked up that turn out unusable (no artifact, corrupt, undecided), beyond the history
LISTED_RUNS = 100  # one page of the listing: runs beyond it are never looked at, whatever the page holds
REQUESTS_PER_RUN = 2  # the artifact listing and the download location; the download itself goes to storage


def is_base_branch_run(run: WorkflowRun, *, repository: str, branch: str, workflow_path: str) -> bool:
    """Whether ``run`` ran the base branch's own code with this workflow file (any missing field: it did not)."""
    head = run.head_repository.full_name if run.head_repository else None
    return (
        run.event in BASE_BRANCH_EVENTS
        and run.head_branch == branch
        and head is not None
        and head.lower() == repository.lower()
        and _run_workflow_path(run) == workflow_path
    )


def _run_workflow_path(run: WorkflowRun) -> str | None:
    """The run's workflow file (``.github/workflows/eval.yml``), without the ``@ref`` some answers append."""
    return run.path.split("@", 1)[0] if run.path else None


def runs_to_look_up(history: int) -> int:
    """How many runs the lookup may look up over the network: the history wanted and the runs it may pass over."""
    return max(history, 1) + MAX_PASSED_OVER


class LookupSpent(GitHubError):
    """The lookup's requests are spent: the runs left are not looked up."""


@dataclass
class LookupBudget:
    """What one baseline lookup may still do: look up ``runs`` runs over the network, send ``api`` requests to
    GitHub's API and ``downloads`` to its storage. The runs bound the requests; the request counts hold them."""

    runs: int
    api: int
    downloads: int

    @classmethod
    def for_history(cls, history: int) -> LookupBudget:
        runs = runs_to_look_up(history)
        return cls(runs=runs, api=1 + REQUESTS_PER_RUN * runs, downloads=runs)

    def look_up_a_run(self) -> bool:
        """Whether one more run may be looked up (and counts it)."""
        if self.runs <= 0:
            return False
        self.runs -= 1
        return True

    def spend_api(self) -> None:
        if self.api <= 0:
            raise LookupSpent("the baseline lookup's requests to GitHub are spent")
        self.api -= 1

    def spend_download(self) -> None:
        if self.downloads <= 0:
            raise LookupSpent("the baseline lookup's downloads are spent")
        self.downloads -= 1

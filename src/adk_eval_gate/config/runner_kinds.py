"""What each runner of ``--runner`` can do, by name: the stages around the runners ask these, never the name.

The table is here, below ``runners/``, so that the settings, the inputs and the selection can read it; a runner is
built by ``runners.factory``, which holds one builder per name of this table (``tests/runners/test_factory.py``).
A new runner is its module, one line here and one builder in the factory.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunnerKind:
    """What a runner does, for the stages that prepare its work and read its results."""

    needs_agent: bool = False  # imports the user's agent here: an agent per file, ADK's version recorded
    observes_inputs: bool = False  # records the files each run uses (--only-affected, custom metrics' reads)
    replays: bool = False  # answers from --recorded results: no agent at all, and a case cannot run again
    runs_remote: bool = False  # reaches an agent served elsewhere, at --agent-url

    @property
    def can_rerun(self) -> bool:
        """Whether a case can run again in a fresh session (--confirm-failures)."""
        return not self.replays


RUNNER_KINDS: dict[str, RunnerKind] = {
    "adk": RunnerKind(needs_agent=True, observes_inputs=True),
    "http": RunnerKind(runs_remote=True),
    "a2a": RunnerKind(runs_remote=True),
    "recorded": RunnerKind(replays=True),
}
RUNNER_NAMES: tuple[str, ...] = tuple(RUNNER_KINDS)

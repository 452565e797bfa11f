"""What a case depends on (its inputs, recorded in results.json so that a later run can tell whether a change can
touch it), where a case that did not run again was carried from, and what ``--only-affected`` ran."""

from __future__ import annotations

from pydantic import Field

from adk_eval_gate.model.results.vocabulary import ResultModel


class CaseInputs(ResultModel):
    """The inputs of a case: the files that can change its results, and a digest of the settings that can."""

    files: list[str] = Field(
        default_factory=list,
        description="Repository-relative paths the case depends on: its eval file, its config, the modules its "
        "agent imported, the files it opened, checked or looked for (an import that found nothing) while it loaded "
        "and ran, the symbolic links on the way and the files they lead to, what its metrics read; a path ending in "
        "/ is a folder the agent listed (./ is the repository's root). A change to one of them, or under one, "
        "touches the case.",
    )
    absent: list[str] = Field(
        default_factory=list,
        description="Of the files, those that did not exist when the run ended (looked for, not found): one that "
        "exists now touches the case.",
    )
    listings: dict[str, str] = Field(
        default_factory=dict,
        description="Per folder the case listed, a digest of the names in it when the run ended: other names now "
        "touch the case.",
    )
    settings: str = Field(
        default="",
        description="Digest of the gate's settings that change the case's scores or status: its criteria, the "
        "judge settings, --num-runs, --pass-rule, --confirm-failures, --timeout, the runner and the prices.",
    )
    observed: bool = Field(
        default=False,
        description="Every run reported the files its agent used (the adk runner); false: the agent ran elsewhere "
        "or could not be observed, so any change can touch the case.",
    )


class Carried(ResultModel):
    """The case did not run: nothing it depends on changed, so its result is the base run's (--only-affected)."""

    sha: str | None = Field(default=None, description="The commit of the run the result came from.")
    run_url: str | None = Field(default=None, description="The workflow run the result came from, if known.")
    description: str = Field(default="", description="The run the result came from, for people.")


class AffectedRun(ResultModel):
    """What ``--only-affected`` did: how many cases ran, and why everything ran when it did."""

    base_sha: str | None = Field(default=None, description="The baseline's commit the changes were computed from.")
    changed_files: int | None = Field(default=None, description="Files changed between that commit and this one.")
    ran: int = Field(default=0, description="Cases that ran.")
    carried: int = Field(default=0, description="Cases carried from the baseline.")
    everything: str | None = Field(
        default=None, description="Why every case ran although --only-affected was given, when it did."
    )

"""Like-for-like: the differences between head and base in what results.json records of how they ran (the run's
settings and each file's criteria digests: ``aggregate.run_info``), each one line for people and the metrics it
makes incomparable.

A drop of a metric that head and base scored differently (another judge model, provider or sampling, other
criteria for it, or, for ADK's service-backed metrics, Google's evaluation service on one side and the gate's own
judge on the other) is not counted as a regression unless ``--strict-comparison``; differences that do not change
how a score is computed (the runner, the tool's or ADK's version, runs per case, the pass rule, thresholds) are
only said.
"""

from __future__ import annotations

from adk_eval_gate.judge import platform_access
from adk_eval_gate.model.results import Difference, FileResult, ResultsDocument, ServedAgent

ALL = "*"


def _changed(base: object, head: object) -> bool:
    return base not in (None, "") and head not in (None, "") and base != head


def _label(agent: ServedAgent | None) -> str | None:
    return agent.label() if agent is not None else None


def _run_differences(head: ResultsDocument, base: ResultsDocument) -> list[Difference]:
    h, b = head.run, base.run
    found = []
    notes = [
        ("runner", b.runner, h.runner, ", the agents were reached differently"),
        ("adk-eval-gate", b.tool_version, h.tool_version, ""),
        ("google-adk", b.adk_version, h.adk_version, ", the agents ran on another ADK"),
        ("agent", _label(b.served_agent), _label(h.served_agent), ", the A2A server serves another agent"),
        ("runs per case", b.num_runs, h.num_runs, ""),
        ("pass rule", b.pass_rule, h.pass_rule, ", case verdicts are decided differently"),
    ]
    for what, before, after, why in notes:
        if _changed(before, after):
            found.append(
                Difference(
                    what=what, base=str(before), head=str(after), message=f"{what} changed: {before} -> {after}{why}"
                )
            )
    return found


def _judge_differences(head: ResultsDocument, base: ResultsDocument) -> list[Difference]:
    found = []
    for name, after in head.run.judges.items():
        before = base.run.judges.get(name)
        if before is None:
            continue
        was, now = platform_access.recorded(name, before.computed_by), platform_access.recorded(name, after.computed_by)
        if was != now and was is not None and now is not None:
            found.append(
                Difference(
                    what="computed by",
                    subject=name,
                    base=was,
                    head=now,
                    incomparable=[name],
                    message=f"{name} was computed by {platform_access.WORDS[was]} on the base branch and by "
                    f"{platform_access.WORDS[now]} here: its scores are not comparable",
                )
            )
            continue
        for what, old, new in (
            ("judge model", before.model, after.model),
            ("judge provider", before.provider, after.provider),  # None: a result before providers were recorded
            ("judge sampling", before.sampling, after.sampling),
        ):
            if old != new and None not in (old, new):
                found.append(
                    Difference(
                        what=what,
                        subject=name,
                        base=old,
                        head=new,
                        incomparable=[name],
                        message=f"{what} changed for {name}: {old} -> {new}, judge scores are not comparable",
                    )
                )
                break
    return found


def _criteria_differences(head: ResultsDocument, base: ResultsDocument) -> list[Difference]:
    base_files: dict[str, FileResult] = {file.path: file for file in base.files}
    found = []
    for file in head.files:
        before = base_files.get(file.path)
        if before is None or not before.criteria_digest or not file.criteria_digest:
            continue
        changed = [
            name
            for name, digest in file.metric_digests.items()
            if name in before.metric_digests and before.metric_digests[name] != digest
        ]
        for name in changed:
            found.append(
                Difference(
                    what="criteria",
                    subject=f"{file.path}::{name}",
                    incomparable=[f"{file.path}::{name}"],
                    message=f"criteria changed for {name} in {file.path}, its scores are not comparable",
                )
            )
        if not changed and before.criteria_digest != file.criteria_digest:
            found.append(Difference(what="thresholds", subject=file.path, message=f"criteria changed in {file.path}"))
    return found


def differences(head: ResultsDocument, base: ResultsDocument) -> list[Difference]:
    """What head and base did differently; nothing for what an older baseline did not record."""
    return [*_run_differences(head, base), *_judge_differences(head, base), *_criteria_differences(head, base)]


def comparable(found: list[Difference], *, file: str, metric: str) -> bool:
    """Whether ``metric`` of a case in ``file`` was scored the same way on both sides."""
    keys = {ALL, metric, f"{file}::{metric}"}
    return not any(keys.intersection(difference.incomparable) for difference in found)

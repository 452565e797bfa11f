"""The judges' calibration against human labels, rendered: one line per judge (the console, the summary and the
comment), and ``calibration.md`` (each judge's numbers, confusion matrix and disagreements). Pure: what gates was
decided by the verdict (``verdict/judge_gate.py``); every text from a labels file is escaped."""

from __future__ import annotations

from adk_eval_gate.model.results import CalibrationDocument, JudgeCalibration, JudgeChange, ResultsDocument
from adk_eval_gate.report.markdown import inline
from adk_eval_gate.support.words import plural

MAX_DISAGREEMENTS = 20
_TEXT_LIMIT = 160


def _kappa_text(calibration: JudgeCalibration) -> str:
    if calibration.kappa is None or calibration.kappa_interval is None:
        return "kappa undefined"
    low, high = calibration.kappa_interval
    weighted = "weighted " if calibration.weighted else ""
    return f"{weighted}kappa {calibration.kappa:.2f} [{low:.2f}, {high:.2f}]"


def judge_line(calibration: JudgeCalibration) -> str:
    """``final_response_match_v2 on gemini-2.5-flash: kappa 0.71 [0.58, 0.83], 64 labels, gates``."""
    gates = "gates" if calibration.gates else f"does not gate ({calibration.reason})"
    return (
        f"{calibration.metric} on {calibration.judge_model}: {_kappa_text(calibration)}, "
        f"{plural(calibration.labels, 'label')}, {gates}"
    )


def _value(value: float) -> str:
    return f"{value:g}"


def _confusion(calibration: JudgeCalibration) -> list[str]:
    names = [_value(category) for category in calibration.categories]
    rows = [
        "| human \\ judge | " + " | ".join(names) + " | human rate |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for name, row, rate in zip(names, calibration.confusion, calibration.base_rate, strict=True):
        rows.append(f"| **{name}** | " + " | ".join(str(n) for n in row) + f" | {rate:.0%} |")
    rows.append("| judge rate | " + " | ".join(f"{rate:.0%}" for rate in calibration.judge_rate) + " | |")
    return rows


def _disagreements(calibration: JudgeCalibration) -> list[str]:
    if not calibration.disagreements:
        return []
    rows = ["", "| label | human | judge | user | response |", "|---|---|---|---|---|"]
    for item in calibration.disagreements[:MAX_DISAGREEMENTS]:
        where = f"{item.file}:{item.line}" if item.line else item.file
        rows.append(
            f"| {inline(where, limit=80)} | {_value(item.human)} | {_value(item.judge)} | "
            f"{inline(item.user, limit=_TEXT_LIMIT)} | {inline(item.response, limit=_TEXT_LIMIT)} |"
        )
    more = len(calibration.disagreements) - MAX_DISAGREEMENTS
    return [*rows, *(["", f"and {plural(more, 'more disagreement')}"] if more > 0 else [])]


def _judge_section(calibration: JudgeCalibration) -> list[str]:
    consistency = (
        f", self-consistency {calibration.self_consistency:.0%}" if calibration.self_consistency is not None else ""
    )
    unjudged = f", {calibration.unjudged} without a verdict" if calibration.unjudged else ""
    return [
        f"### {inline(calibration.metric)} on {inline(calibration.judge_model)}",
        "",
        f"{inline(judge_line(calibration))}",
        "",
        f"Raw agreement {calibration.agreement:.0%} on {plural(calibration.labels, 'label')}{unjudged}{consistency}; "
        f"fingerprint `{calibration.fingerprint}`.",
        "",
        *_confusion(calibration),
        *_disagreements(calibration),
        "",
    ]


def calibration_markdown(document: CalibrationDocument) -> str:
    lines = ["## Judges against human labels", ""]
    if not document.metrics:
        lines += ["No judge metric in use.", ""]
    for calibration in document.metrics:
        lines += _judge_section(calibration)
    lines += [f"- {inline(note)}" for note in document.notes]
    return "\n".join(lines).rstrip() + "\n"


def judges_section(doc: ResultsDocument) -> str:
    """The comment's and the summary's "Judges": one line per labelled judge metric; nothing without labels."""
    if not doc.calibrations:
        return ""
    changes = {change.metric: change for change in doc.comparison.judge_changes} if doc.comparison else {}
    lines = []
    for calibration in doc.calibrations:
        line = judge_line(calibration)
        change = changes.get(calibration.metric)
        if change is not None:
            line += f"; before: {_before(change)}"
        lines.append(f"- {inline(line)}")
    return "### Judges\n\n" + "\n".join(lines)


def _before(change: JudgeChange) -> str:
    if change.base_kappa is None or change.base_kappa_interval is None:
        kappa = "kappa undefined"
    else:
        low, high = change.base_kappa_interval
        kappa = f"kappa {change.base_kappa:.2f} [{low:.2f}, {high:.2f}]"
    changed = ", a different judge" if change.changed else ""
    dropped = ", a drop beyond its interval" if change.dropped else ""
    return f"{kappa} on {change.base_judge_model}{changed}{dropped}"


def junit_properties(doc: ResultsDocument) -> dict[str, str]:
    """Each labelled judge metric as a JUnit property, ``judge.<metric>.<model>``."""
    return {
        f"judge.{calibration.metric}.{calibration.judge_model}": judge_line(calibration)
        for calibration in doc.calibrations
    }

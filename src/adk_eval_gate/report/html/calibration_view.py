"""report.html's "Judges against human labels": each labelled judge metric's kappa, whether it gates, its
confusion matrix and its disagreements with the texts (escaped: they come from labels files)."""

from __future__ import annotations

from adk_eval_gate.model.results import JudgeCalibration, ResultsDocument
from adk_eval_gate.report.html.parts import element, key_values, table, text
from adk_eval_gate.report.judge_lines import judge_line

MAX_DISAGREEMENTS = 50


def _confusion(calibration: JudgeCalibration) -> str:
    names = [f"{category:g}" for category in calibration.categories]
    rows = [
        [text(f"human {name}"), *(text(n) for n in row), text(f"{rate:.0%}")]
        for name, row, rate in zip(names, calibration.confusion, calibration.base_rate, strict=True)
    ]
    rows.append([text("judge rate"), *(text(f"{rate:.0%}") for rate in calibration.judge_rate), ""])
    return table(["human \\ judge", *(f"judge {name}" for name in names), "human rate"], rows, cls="confusion")


def _disagreements(calibration: JudgeCalibration) -> str:
    rows = [
        [
            text(f"{item.file}:{item.line}" if item.line else item.file),
            text(f"{item.human:g}"),
            text(f"{item.judge:g}"),
            text(item.user),
            text(item.response),
        ]
        for item in calibration.disagreements[:MAX_DISAGREEMENTS]
    ]
    return table(["label", "human", "judge", "user", "response"], rows) if rows else ""


def _judge(calibration: JudgeCalibration) -> str:
    facts = key_values(
        [
            ("raw agreement", text(f"{calibration.agreement:.0%}")),
            ("labels without a verdict", text(calibration.unjudged) if calibration.unjudged else None),
            (
                "self-consistency",
                text(f"{calibration.self_consistency:.0%}") if calibration.self_consistency is not None else None,
            ),
            ("fingerprint", text(calibration.fingerprint)),
        ]
    )
    heading = element("h3", text(judge_line(calibration)))
    return heading + facts + _confusion(calibration) + _disagreements(calibration)


def calibrations(doc: ResultsDocument) -> str:
    """The section, or nothing without labels."""
    if not doc.calibrations:
        return ""
    body = "".join(_judge(calibration) for calibration in doc.calibrations)
    return element("section", element("h2", "Judges against human labels") + body)

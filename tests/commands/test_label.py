"""``adk-eval-gate label RESULTS``: a suggested label per turn a judge metric scored, none confirmed; rubric metrics
left to label by hand; a results.json without judged turns is one line saying so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from adk_eval_gate.inputs.labels_files import load_labels
from adk_eval_gate.model.evalset import content_text
from adk_eval_gate.model.results import CaseResult
from adk_eval_gate.report.writer import results_json
from tests.report.builders import case, document, metric

JUDGE = "final_response_match_v2"
RUBRIC = "rubric_based_final_response_quality_v1"
GOLDEN_JUDGES = Path(__file__).resolve().parents[1] / "golden" / "inputs" / "judges.results.json"


def judged(eval_id: str, score: float) -> CaseResult:
    """A case whose one turn the judge metric and a rubric metric scored ``score``, as a run records it."""
    built = case(eval_id, [metric(JUDGE, score, kind="judge"), metric(RUBRIC, score, kind="judge")])
    runs = [
        run.model_copy(update={"metrics": [m.model_copy(update={"invocation_scores": [m.score]}) for m in run.metrics]})
        for run in built.runs
    ]
    return built.model_copy(update={"runs": runs})


def test_each_judged_turn_is_an_unconfirmed_suggestion_and_rubrics_are_left_out(
    tmp_path: Path, cli_in_process: Callable[..., Any]
) -> None:
    results = tmp_path / "results.json"
    results.write_text(results_json(document([judged("paris", 1.0), judged("lima", 0.0)])), encoding="utf-8")
    out = tmp_path / "evals" / "suggested.labels.json"
    made = cli_in_process("label", str(results), "--output", str(out), cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "2 suggested labels, none confirmed" in made.stdout
    labels = load_labels(out, display="suggested").labels
    assert [(label.metric, label.label, label.confirmed) for label in labels] == [
        (JUDGE, "valid", False),
        (JUDGE, "invalid", False),
    ]
    assert [label.case for label in labels] == [
        f"{c.file}::{c.eval_id}" for c in (judged("paris", 1), judged("lima", 0))
    ]
    assert content_text(labels[1].invocation.final_response) == "I do not know."


def test_a_results_json_without_judged_turns_is_one_line_saying_so(
    tmp_path: Path, cli_in_process: Callable[..., Any]
) -> None:
    made = cli_in_process("label", str(GOLDEN_JUDGES), "--output", str(tmp_path / "x.labels.json"), cwd=tmp_path)
    assert made.returncode != 0
    [line] = [line for line in (made.stdout + made.stderr).splitlines() if "judge metric" in line]
    assert "has no turn a judge metric scored" in line and "Traceback" not in made.stdout + made.stderr
    assert not (tmp_path / "x.labels.json").exists()

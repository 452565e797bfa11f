"""A pull request that changes a judge: kappa before and after, a drop beyond the baseline's interval is a
regression, and the comment shows both kappas."""

from __future__ import annotations

from adk_eval_gate.compare.changes import compare
from adk_eval_gate.finish.against_baseline import decide_with_comparison
from adk_eval_gate.model.results import ResultsDocument
from adk_eval_gate.report import comment
from adk_eval_gate.verdict import Policy
from tests.report.builders import baseline_info
from tests.report.scenarios import load_input


def base_of(head: ResultsDocument) -> ResultsDocument:
    """The base branch's run: the same judges, hallucinations_v1 on another model with a higher kappa."""
    calibrations = [
        calibration.model_copy(
            update={"judge_model": "gemini-2.5-pro", "kappa": 0.81, "kappa_interval": (0.7, 0.92), "fingerprint": "b"}
        )
        if calibration.metric == "hallucinations_v1"
        else calibration
        for calibration in head.calibrations
    ]
    return head.model_copy(update={"calibrations": calibrations})


def decided(*, fail_on_regression: bool) -> ResultsDocument:
    head = load_input("judges")
    comparison = compare(head, base_of(head), baseline=baseline_info(), tolerance=0.0)
    return decide_with_comparison(head, comparison, Policy(fail_on_regression=fail_on_regression))


def test_a_judge_that_changed_shows_both_kappas_and_its_drop_is_a_regression() -> None:
    doc = decided(fail_on_regression=False)
    assert doc.comparison is not None
    changes = {change.metric: change for change in doc.comparison.judge_changes}
    assert changes["hallucinations_v1"].dropped and changes["hallucinations_v1"].changed
    assert not changes["final_response_match_v2"].dropped and not changes["final_response_match_v2"].changed
    [finding] = [f for f in doc.findings if f.metric == "hallucinations_v1"]
    assert (finding.rule, finding.effect) == ("regressions", "none")
    assert "kappa 0.32 on gemini-2.5-flash, under the baseline's 0.81 [0.70, 0.92] on gemini-2.5-pro" in finding.reason
    text = comment.render(doc)
    assert "hallucinations\\_v1 on gemini\\-2.5\\-flash: kappa 0.32 \\[0.05, 0.59\\]" in text
    assert (
        "before: kappa 0.81 \\[0.70, 0.92\\] on gemini\\-2.5\\-pro, a different judge, a drop beyond its interval"
        in text
    )


def test_with_fail_on_regression_a_judges_drop_fails_the_run() -> None:
    doc = decided(fail_on_regression=True)
    assert any(f.metric == "hallucinations_v1" and f.effect == "failed" for f in doc.findings)
    assert doc.status == "failed"

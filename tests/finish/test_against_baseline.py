"""gate: the verdict decided from a document and its comparison, and the exit code."""

from __future__ import annotations

from adk_eval_gate import verdict
from adk_eval_gate.compare.changes import compare
from adk_eval_gate.finish.against_baseline import decide_with_comparison
from adk_eval_gate.verdict import Policy
from tests.report.builders import baseline_info, case, document, metric

RESPONSE = "response_match_score"


def _pair(head_score: float) -> tuple:  # type: ignore[type-arg]
    base = document([case("paris", [metric(RESPONSE, 0.95)]), case("tokyo", [metric(RESPONSE, 0.9)])])
    head = document([case("paris", [metric(RESPONSE, head_score)]), case("tokyo", [metric(RESPONSE, 0.9)])])
    return head, compare(head, base, baseline=baseline_info(), tolerance=0.0)


def test_a_regression_above_the_threshold_passes_unless_fail_on_regression() -> None:
    head, comparison = _pair(0.85)  # lower than the base, still above 0.8
    assert comparison is not None and comparison.regressions == 1
    lenient = decide_with_comparison(head, comparison, Policy(fail_on_regression=False, tolerance=0.0))
    strict = decide_with_comparison(head, comparison, Policy(fail_on_regression=True, tolerance=0.0))
    assert (lenient.status, verdict.exit_code(lenient)) == ("passed", 0)
    assert (strict.status, verdict.exit_code(strict)) == ("failed", 1)
    assert strict.run.fail_on_regression and strict.comparison is comparison


def test_without_a_baseline_the_note_is_kept_and_the_status_is_the_document_s() -> None:
    head = document([case("paris", [metric(RESPONSE, 0.5)])])
    decided = decide_with_comparison(head, None, Policy(fail_on_regression=True, tolerance=0.1), note="no baseline yet")
    assert decided.status == "failed" and decided.run.baseline_note == "no baseline yet"
    assert decided.run.regression_tolerance == 0.1


def test_a_document_with_an_error_stays_an_error_and_file_errors_exit_2() -> None:
    head, comparison = _pair(0.99)
    broken = head.model_copy(update={"error": "the run ended without a verdict"})
    assert decide_with_comparison(broken, comparison, Policy(fail_on_regression=False, tolerance=0.0)).status == "error"
    with_file_error = head.model_copy(update={"totals": head.totals.model_copy(update={"file_errors": 1})})
    assert verdict.exit_code(with_file_error) == 2


def test_strict_comparison_given_later_counts_the_saved_incomparable_drops_in_the_verdict_and_the_report() -> None:
    """``report --strict-comparison`` on results compared without it: the gate and the comment count alike."""
    from adk_eval_gate.model.results import JudgeSetting
    from adk_eval_gate.report.headline import change_counts

    def judged(model: str, score: float):  # type: ignore[no-untyped-def]
        built = document([case("paris", [metric("judged", score, kind="judge")])])
        run = built.run.model_copy(update={"judges": {"judged": JudgeSetting(model=model, sampling="5 samples")}})
        return built.model_copy(update={"run": run})

    head = judged("gemini-2.5-pro", 0.85)
    saved = compare(head, judged("gemini-2.5-flash", 0.95), baseline=baseline_info())
    assert (saved.regressions, saved.incomparable_regressions) == (0, 1)
    lenient = decide_with_comparison(head, saved, Policy(fail_on_regression=True, tolerance=0.0))
    assert lenient.status == "passed" and lenient.comparison is saved
    strict = decide_with_comparison(head, saved, Policy(fail_on_regression=True, tolerance=0.0, strict_comparison=True))
    assert strict.comparison is not None and strict.comparison.regressions == 1
    assert strict.status == "failed"
    counts = change_counts(strict)
    assert counts is not None and (len(counts.regressions), len(counts.incomparable)) == (1, 0)

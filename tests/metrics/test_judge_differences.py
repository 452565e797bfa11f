"""The two deliberate differences from ADK 2.13 in what judge metrics score, shown against ADK itself."""

from __future__ import annotations

from google.adk.evaluation import eval_metrics as adk_metrics
from google.adk.evaluation.final_response_match_v2 import FinalResponseMatchV2Evaluator
from google.adk.evaluation.rubric_based_final_response_quality_v1 import RubricBasedFinalResponseQualityV1Evaluator

from adk_eval_gate.metrics.judge_metrics import FinalResponseMatchV2
from adk_eval_gate.metrics.rubric_metrics import RubricFinalResponseQuality
from adk_eval_gate.metrics.score import attach_rubrics
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import EvalCase, Rubric, RubricContent
from adk_eval_gate.model.results import MetricStatus
from tests.fakes.gemini_server import FakeGemini, Reply
from tests.judge.helpers import MarkerScript, gemini, invocation, judge_options, rubric_answer, v2_answer
from tests.metrics.test_judge_parity import both

__all__ = ["gemini"]
TEXTS = {"first_only": "The first answer greets the user.", "shared": "The answer is short."}


def test_each_turn_is_read_against_its_own_rubrics(gemini: FakeGemini) -> None:
    """ADK reads every turn's answers against the last turn's rubric list, so a rubric given only to an earlier
    turn is dropped there; we keep it."""
    shared = Rubric(rubric_id="shared", rubric_content=RubricContent(text_property=TEXTS["shared"]))
    first_only = Rubric(
        rubric_id="first_only",
        rubric_content=RubricContent(text_property=TEXTS["first_only"]),
        type="FINAL_RESPONSE_QUALITY",
    )
    expected = [invocation("MARK-0 hi", "x", rubrics=[first_only]), invocation("MARK-1 bye", "y")]
    case = EvalCase(eval_id="c", conversation=expected)
    actual = attach_rubrics(case, [invocation("MARK-0 hi", "Hello!"), invocation("MARK-1 bye", "Bye.")])
    answers = {
        "MARK-0": [rubric_answer({"shared": "yes", "first_only": "no"}, TEXTS)],
        "MARK-1": [rubric_answer({"shared": "yes"}, TEXTS)],
    }
    ours, theirs = both(
        gemini=gemini,
        make_script=lambda: MarkerScript(answers).answer,
        ours=RubricFinalResponseQuality,
        theirs=RubricBasedFinalResponseQualityV1Evaluator,
        name="rubric_based_final_response_quality_v1",
        criterion=eval_config.RubricsBasedCriterion(
            threshold=0.5, rubrics=[shared], judge_model_options=judge_options(1)
        ),
        adk_criterion=adk_metrics.RubricsBasedCriterion(
            threshold=0.5,
            rubrics=[adk_metrics.Rubric.model_validate(shared.model_dump())],
            judge_model_options=adk_metrics.JudgeModelOptions(judge_model="scripted-judge", num_samples=1),
        ),
        actual=actual,
        expected=expected,
        case=case,
    )
    assert [r.rubric_id for r in ours.per_invocation[0].rubric_scores or []] == ["shared", "first_only"]
    assert [r.rubric_id for r in theirs.per_invocation_results[0].rubric_scores] == ["shared"]
    assert (ours.per_invocation[0].score, theirs.per_invocation_results[0].score) == (0.5, 1.0)
    assert (ours.score, theirs.overall_score) == (2 / 3, 1.0)


def test_a_judge_failure_is_not_scored_from_the_other_turns(gemini: FakeGemini) -> None:
    """ADK scores the case from the turns whose judge calls worked; we do not score it at all."""
    answers = {"MARK-0": [v2_answer("valid")], "MARK-1": [Reply.error(500)] * 3}
    actual = [invocation("q0", "MARK-0 a"), invocation("q1", "MARK-1 b")]
    expected = [invocation("q0", "a"), invocation("q1", "b")]
    ours, theirs = both(
        gemini=gemini,
        make_script=lambda: MarkerScript(answers).answer,
        ours=FinalResponseMatchV2,
        theirs=FinalResponseMatchV2Evaluator,
        name="final_response_match_v2",
        criterion=eval_config.LlmAsAJudgeCriterion(threshold=0.5, judge_model_options=judge_options(1)),
        adk_criterion=adk_metrics.LlmAsAJudgeCriterion(
            threshold=0.5,
            judge_model_options=adk_metrics.JudgeModelOptions(judge_model="scripted-judge", num_samples=1),
        ),
        actual=actual,
        expected=expected,
    )
    assert (theirs.overall_score, theirs.overall_eval_status.name) == (1.0, "PASSED")
    assert (ours.score, ours.status) == (None, MetricStatus.NOT_EVALUATED)
    assert ours.reason is not None and "HTTP 500" in ours.reason

"""Parity with ADK 2.13: for the same judge answers, our judge metrics give the same per-invocation and
per-case scores and statuses as ADK's own evaluators.

ADK's evaluators run directly on the same invocations (converted to ADK's models) with a scripted judge model
registered in ADK's ``LLMRegistry`` (spec 6.3); ours ask google-genai, pointed at the fake Gemini server that
answers from the same script. Prompts differ (ours are our own), so scripts answer by what the judged part of
a prompt contains, not by its wording.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import pytest
from google.adk.evaluation import eval_metrics as adk_metrics
from google.adk.evaluation.eval_rubrics import Rubric as AdkRubric
from google.adk.evaluation.final_response_match_v2 import FinalResponseMatchV2Evaluator
from google.adk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator
from google.adk.evaluation.rubric_based_final_response_quality_v1 import RubricBasedFinalResponseQualityV1Evaluator
from google.adk.evaluation.rubric_based_multi_turn_trajectory_evaluator import RubricBasedMultiTurnTrajectoryEvaluator
from google.adk.evaluation.rubric_based_tool_use_quality_v1 import RubricBasedToolUseV1Evaluator
from google.adk.evaluation.simulation.per_turn_user_simulator_quality_v1 import PerTurnUserSimulatorQualityV1
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_eval_gate.metrics.hallucinations import HallucinationsV1
from adk_eval_gate.metrics.judge_metrics import FinalResponseMatchV2
from adk_eval_gate.metrics.metric import Metric, MetricOutcome
from adk_eval_gate.metrics.rubric_metrics import (
    RubricFinalResponseQuality,
    RubricMultiTurnTrajectoryQuality,
    RubricToolUseQuality,
)
from adk_eval_gate.metrics.score import attach_rubrics
from adk_eval_gate.metrics.user_simulator_quality import PerTurnUserSimulatorQuality
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import (
    ConversationScenario,
    EvalCase,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    Rubric,
    RubricContent,
)
from tests.fakes.gemini_server import FakeGemini
from tests.judge import adk_judge
from tests.judge.helpers import (
    HallucinationScript,
    MarkerScript,
    gemini,
    invocation,
    is_valid_answer,
    judge_options,
    rubric_answer,
    run_of,
    score,
    v2_answer,
)

pytestmark = pytest.mark.slow  # judge metrics against ADK's own evaluators and a fake Gemini server
__all__ = ["gemini"]
STATUS = {1: "passed", 2: "failed", 3: "not_evaluated", 4: "informational"}
FIXTURE_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, abs_tol=1e-9)


def assert_same(ours: MetricOutcome, theirs: Any, *, rubrics: bool = False) -> None:
    assert _close(ours.score, theirs.overall_score), (ours.score, theirs.overall_score)
    assert ours.status.value == STATUS[theirs.overall_eval_status.value]
    assert len(ours.per_invocation) == len(theirs.per_invocation_results)
    for mine, reference in zip(ours.per_invocation, theirs.per_invocation_results, strict=True):
        assert _close(mine.score, reference.score), (mine.score, reference.score)
        assert mine.status.value == STATUS[reference.eval_status.value]
        if rubrics:
            assert [(r.rubric_id, r.score) for r in mine.rubric_scores or []] == [
                (r.rubric_id, r.score) for r in reference.rubric_scores or []
            ]
    if rubrics:
        assert [(r.rubric_id, r.score) for r in ours.rubric_scores or []] == [
            (r.rubric_id, r.score) for r in theirs.overall_rubric_scores or []
        ]


def both(
    *,
    gemini: FakeGemini,
    make_script: Callable[[], Callable[[str], Any]],
    ours: type[Metric],
    theirs: type[Any],
    name: str,
    criterion: eval_config.BaseCriterion,
    adk_criterion: adk_metrics.BaseCriterion,
    actual: list[Invocation],
    expected: list[Invocation] | None,
    case: EvalCase | None = None,
) -> tuple[MetricOutcome, Any]:
    ours_script = make_script()
    gemini.script = lambda request: ours_script(request.prompt)
    our_outcome = score(ours, name, criterion, run_of(actual, expected, case))
    adk_judge.use_script(make_script())
    evaluator = theirs(adk_metrics.EvalMetric(metric_name=name, criterion=adk_criterion))
    scenario = adk_judge.scenario_to_adk(case.conversation_scenario) if case and case.conversation_scenario else None
    result = evaluator.evaluate_invocations(adk_judge.to_adk(actual), adk_judge.to_adk(expected), scenario)
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    return our_outcome, result


def adk_options(num_samples: int) -> adk_metrics.JudgeModelOptions:
    return adk_metrics.JudgeModelOptions(judge_model="scripted-judge", num_samples=num_samples)


# ---------------------------------------------------------------------------------------------------------
# final_response_match_v2

V2_LABELS = ["valid", "invalid", "true", "false", "almost", "partially", "garbage"]


def v2_sample(label: str) -> str:
    return "I could not decide." if label == "garbage" else v2_answer(label)


@FIXTURE_SETTINGS
@given(
    votes=st.lists(st.lists(st.sampled_from(V2_LABELS), min_size=3, max_size=3), min_size=1, max_size=3),
    threshold=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_final_response_match_v2(gemini: FakeGemini, votes: list[list[str]], threshold: float) -> None:
    actual = [invocation(f"question {i}", f"MARK-{i} reply") for i in range(len(votes))]
    expected = [invocation(f"question {i}", f"reference {i}") for i in range(len(votes))]
    answers = {f"MARK-{i}": [v2_sample(label) for label in labels] for i, labels in enumerate(votes)}
    options = judge_options(num_samples=3)
    ours, theirs = both(
        gemini=gemini,
        make_script=lambda: MarkerScript(answers).answer,
        ours=FinalResponseMatchV2,
        theirs=FinalResponseMatchV2Evaluator,
        name="final_response_match_v2",
        criterion=eval_config.LlmAsAJudgeCriterion(threshold=threshold, judge_model_options=options),
        adk_criterion=adk_metrics.LlmAsAJudgeCriterion(threshold=threshold, judge_model_options=adk_options(3)),
        actual=actual,
        expected=expected,
    )
    assert_same(ours, theirs)


# ---------------------------------------------------------------------------------------------------------
# rubric metrics

TEXTS = {"r1": "The reply is short.", "r2": "The reply names the city.", "r3": "The reply is polite."}
VERDICT = st.sampled_from(["yes", "no", "missing"])


def rubric(rubric_id: str, kind: str | None = None) -> Rubric:
    return Rubric(rubric_id=rubric_id, rubric_content=RubricContent(text_property=TEXTS[rubric_id]), type=kind)


def rubric_sample(verdicts: dict[str, str]) -> str:
    given_ = {rid: v for rid, v in verdicts.items() if v != "missing"}
    return rubric_answer(given_, TEXTS) if given_ else "No verdicts."


def tool_invocation(index: int) -> Invocation:
    events = InvocationEvents(
        invocation_events=[
            InvocationEvent(
                author="weather",
                content=types.Content(
                    role="model",
                    parts=[
                        types.Part(function_call=types.FunctionCall(id=f"c{index}", name="lookup", args={"i": index}))
                    ],
                ),
            ),
            InvocationEvent(
                author="weather",
                content=types.Content(
                    role="user",
                    parts=[
                        types.Part(
                            function_response=types.FunctionResponse(
                                id=f"c{index}", name="lookup", response={"v": index}
                            )
                        )
                    ],
                ),
            ),
        ]
    )
    return invocation(f"MARK-{index} user", f"MARK-{index} reply", intermediate_data=events)


def rubric_case(turns: int) -> tuple[EvalCase, list[Invocation]]:
    expected = [invocation(f"MARK-{i} user", "x") for i in range(turns)]
    case = EvalCase(
        eval_id="c",
        conversation=expected,
        rubrics=[
            rubric("r3", "FINAL_RESPONSE_QUALITY"),
            rubric("r3", "TOOL_USE_QUALITY").model_copy(update={"rubric_id": "t3"}),
            rubric("r3", "TRAJECTORY_QUALITY").model_copy(update={"rubric_id": "j3"}),
            rubric("r3").model_copy(update={"rubric_id": "untyped"}),
        ],
    )
    return case, attach_rubrics(case, [tool_invocation(i) for i in range(turns)])


RUBRIC_METRICS = [
    (
        RubricFinalResponseQuality,
        RubricBasedFinalResponseQualityV1Evaluator,
        "rubric_based_final_response_quality_v1",
        "r3",
    ),
    (RubricToolUseQuality, RubricBasedToolUseV1Evaluator, "rubric_based_tool_use_quality_v1", "t3"),
    (
        RubricMultiTurnTrajectoryQuality,
        RubricBasedMultiTurnTrajectoryEvaluator,
        "rubric_based_multi_turn_trajectory_quality_v1",
        "j3",
    ),
]


@FIXTURE_SETTINGS
@given(
    metric=st.sampled_from(RUBRIC_METRICS),
    votes=st.lists(st.lists(st.tuples(VERDICT, VERDICT, VERDICT), min_size=3, max_size=3), min_size=1, max_size=3),
    threshold=st.sampled_from([0.0, 0.5, 0.7, 1.0]),
)
def test_rubric_metrics(
    gemini: FakeGemini, metric: tuple[Any, ...], votes: list[list[tuple[str, str, str]]], threshold: float
) -> None:
    ours_class, theirs_class, name, case_rubric = metric
    case, actual = rubric_case(len(votes))
    texts = {**TEXTS, case_rubric: TEXTS["r3"]}
    markers = [f"MARK-{i} " for i in range(len(votes))]
    if ours_class is RubricMultiTurnTrajectoryQuality:
        markers = [f"MARK-{len(votes) - 1} reply"] * len(votes)  # one prompt with the whole dialogue
    answers: dict[str, list[str]] = {}
    for marker, samples in zip(markers, votes, strict=True):
        answers.setdefault(
            marker,
            [
                rubric_answer(
                    {rid: v for rid, v in zip(("r1", "r2", case_rubric), sample, strict=True) if v != "missing"}, texts
                )
                if any(v != "missing" for v in sample)
                else "No verdicts."
                for sample in samples
            ],
        )
    rubrics = [rubric("r1"), rubric("r2")]
    ours, theirs = both(
        gemini=gemini,
        make_script=lambda: MarkerScript(answers).answer,
        ours=ours_class,
        theirs=theirs_class,
        name=name,
        criterion=eval_config.RubricsBasedCriterion(
            threshold=threshold, rubrics=rubrics, judge_model_options=judge_options(3)
        ),
        adk_criterion=adk_metrics.RubricsBasedCriterion(
            threshold=threshold,
            rubrics=[AdkRubric.model_validate(r.model_dump()) for r in rubrics],
            judge_model_options=adk_options(3),
        ),
        actual=actual,
        expected=case.conversation,
        case=case,
    )
    assert_same(ours, theirs, rubrics=True)


# ---------------------------------------------------------------------------------------------------------
# hallucinations_v1


def test_hallucinations(gemini: FakeGemini) -> None:
    segments = {
        "Paris is sunny. It is 22 C.": ["Paris is sunny.", "It is 22 C."],
        "Tokyo is on fire. Have a nice day! Bye.": ["Tokyo is on fire.", "Have a nice day!", "Bye."],
        "Checking the forecast.": ["Checking the forecast."],
        "Nothing to say": [],
    }
    labels = {
        "Paris is sunny.": "supported",
        "It is 22 C.": "unsupported",
        "Tokyo is on fire.": "contradictory",
        "Have a nice day!": "not_applicable",
        "Bye.": "disputed",
        "Checking the forecast.": "supported",
    }
    events = InvocationEvents(
        invocation_events=[
            InvocationEvent(
                author="agent", content=types.Content(role="model", parts=[types.Part(text="Checking the forecast.")])
            )
        ]
    )
    actual = [
        invocation("Paris?", "Paris is sunny. It is 22 C.", intermediate_data=events),
        invocation("Tokyo?", "Tokyo is on fire. Have a nice day! Bye."),
        invocation("Quiet?", None),
        invocation("Empty?", "Nothing to say"),
    ]
    for intermediate in (False, True):
        for threshold in (0.4, 0.6):
            ours, theirs = both(
                gemini=gemini,
                make_script=lambda: HallucinationScript(segments, labels).answer,
                ours=HallucinationsV1,
                theirs=HallucinationsV1Evaluator,
                name="hallucinations_v1",
                criterion=eval_config.HallucinationsCriterion(
                    threshold=threshold,
                    evaluate_intermediate_nl_responses=intermediate,
                    judge_model_options=judge_options(),
                ),
                adk_criterion=adk_metrics.HallucinationsCriterion(
                    threshold=threshold,
                    evaluate_intermediate_nl_responses=intermediate,
                    judge_model_options=adk_options(5),
                ),
                actual=actual,
                expected=None,
            )
            assert_same(ours, theirs)
            assert ours.score is not None


# ---------------------------------------------------------------------------------------------------------
# per_turn_user_simulator_quality_v1

SIM_LABELS = ["true", "false", '"valid"', '"invalid"', '"almost"', "garbage"]


def sim_sample(label: str) -> str:
    return "Unsure." if label == "garbage" else is_valid_answer(label)


@FIXTURE_SETTINGS
@given(
    votes=st.lists(st.lists(st.sampled_from(SIM_LABELS), min_size=3, max_size=3), min_size=2, max_size=4),
    first_matches=st.booleans(),
    threshold=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_per_turn_user_simulator_quality(
    gemini: FakeGemini, votes: list[list[str]], first_matches: bool, threshold: float
) -> None:
    # votes[:-1] judge turns 2..n, votes[-1] judges the stop signal
    scenario = ConversationScenario(starting_prompt="Plan a trip.", conversation_plan="Ask for a trip to Rome.")
    case = EvalCase(eval_id="sim", conversation_scenario=scenario)
    actual = [invocation("Plan a trip." if first_matches else "Hello", "Where to?")]
    actual += [invocation(f"USER-MSG-{i}", f"agent reply {i}") for i in range(1, len(votes))]
    answers = {f"USER-MSG-{i}": [sim_sample(label) for label in votes[i - 1]] for i in range(1, len(votes))}
    answers["</finished>"] = [sim_sample(label) for label in votes[-1]]
    ours, theirs = both(
        gemini=gemini,
        make_script=lambda: MarkerScript(answers).answer,
        ours=PerTurnUserSimulatorQuality,
        theirs=PerTurnUserSimulatorQualityV1,
        name="per_turn_user_simulator_quality_v1",
        criterion=eval_config.LlmBackedUserSimulatorCriterion(
            threshold=threshold, judge_model_options=judge_options(3)
        ),
        adk_criterion=adk_metrics.LlmBackedUserSimulatorCriterion(
            threshold=threshold, judge_model_options=adk_options(3)
        ),
        actual=actual,
        expected=None,
        case=case,
    )
    assert_same(ours, theirs)

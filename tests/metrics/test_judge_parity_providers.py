"""Parity with ADK 2.13 for judges that are not Gemini: every judge metric, with ``gpt-4o-mini`` (ADK's OpenAI
integration), ``openai/gpt-4o-mini`` and ``anthropic/claude-haiku-4-5`` (LiteLLM) as the judge model, gives the
scores ADK's own evaluators give with the same judge answers. Both sides reach the same fake OpenAI or Anthropic
server, through the same ADK model class: ours through ``AdkModelJudge``, ADK's through its ``LLMRegistry``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from google.adk.evaluation import eval_metrics as adk_metrics
from google.adk.evaluation.eval_rubrics import Rubric as AdkRubric
from google.adk.evaluation.final_response_match_v2 import FinalResponseMatchV2Evaluator
from google.adk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator
from google.adk.evaluation.simulation.per_turn_user_simulator_quality_v1 import PerTurnUserSimulatorQualityV1

from adk_eval_gate.metrics.hallucinations import HallucinationsV1
from adk_eval_gate.metrics.judge_metrics import FinalResponseMatchV2
from adk_eval_gate.metrics.metric import Metric, MetricOutcome
from adk_eval_gate.metrics.user_simulator_quality import PerTurnUserSimulatorQuality
from adk_eval_gate.model import eval_config
from adk_eval_gate.model.evalset import ConversationScenario, EvalCase, Invocation
from tests.fakes.gemini_server import FakeGemini
from tests.judge import adk_judge
from tests.judge.helpers import HallucinationScript, MarkerScript, invocation, rubric_answer, run_of, score
from tests.judge.providers import PROVIDERS, Provider, provider_servers, routed_service
from tests.metrics.test_judge_parity import (
    RUBRIC_METRICS,
    TEXTS,
    assert_same,
    rubric,
    rubric_case,
    sim_sample,
    v2_sample,
)

pytestmark = pytest.mark.slow  # ADK's evaluators and model classes against fake provider servers
__all__ = ["provider_servers"]


@pytest.fixture(params=PROVIDERS, ids=[provider.model for provider in PROVIDERS])
def provider(request: pytest.FixtureRequest) -> Provider:
    return request.param  # type: ignore[no-any-return]


def options(provider: Provider, num_samples: int) -> dict[str, Any]:
    return {"judge_model": provider.model, "num_samples": num_samples, "parallelism_limit": 2}


def both(
    fake: FakeGemini,
    *,
    make_script: Callable[[], Callable[[str], Any]],
    metric: tuple[type[Metric], type[Any], str],
    criteria: tuple[eval_config.BaseCriterion, adk_metrics.BaseCriterion],
    actual: list[Invocation],
    expected: list[Invocation] | None,
    case: EvalCase | None = None,
) -> tuple[MetricOutcome, Any]:
    ours, theirs, name = metric
    ours_script = make_script()
    fake.script = lambda request: ours_script(request.prompt)
    our_outcome = score(ours, name, criteria[0], run_of(actual, expected, case), service=routed_service())
    ours_asked = fake.count
    theirs_script = make_script()
    fake.script = lambda request: theirs_script(request.prompt)
    evaluator = theirs(adk_metrics.EvalMetric(metric_name=name, criterion=criteria[1]))
    scenario = adk_judge.scenario_to_adk(case.conversation_scenario) if case and case.conversation_scenario else None
    result = evaluator.evaluate_invocations(adk_judge.to_adk(actual), adk_judge.to_adk(expected), scenario)
    if asyncio.iscoroutine(result):
        result = asyncio.run(result)
    assert ours_asked > 0 and fake.count > ours_asked  # both sides asked the fake server
    return our_outcome, result


def test_final_response_match_v2(provider_servers: dict[str, FakeGemini], provider: Provider) -> None:
    votes = [["valid", "invalid", "valid"], ["invalid", "garbage", "almost"], ["true", "false", "garbage"]]
    actual = [invocation(f"question {i}", f"MARK-{i} reply") for i in range(len(votes))]
    expected = [invocation(f"question {i}", f"reference {i}") for i in range(len(votes))]
    answers = {f"MARK-{i}": [v2_sample(label) for label in labels] for i, labels in enumerate(votes)}
    criterion = {"threshold": 0.6, "judge_model_options": options(provider, 3)}
    ours, theirs = both(
        provider_servers[provider.api],
        make_script=lambda: MarkerScript(answers).answer,
        metric=(FinalResponseMatchV2, FinalResponseMatchV2Evaluator, "final_response_match_v2"),
        criteria=(
            eval_config.LlmAsAJudgeCriterion.model_validate(criterion),
            adk_metrics.LlmAsAJudgeCriterion.model_validate(criterion),
        ),
        actual=actual,
        expected=expected,
    )
    assert_same(ours, theirs)
    assert ours.score == pytest.approx(1 / 3)  # valid; invalid; a tie, which counts as invalid


@pytest.mark.parametrize("metric", RUBRIC_METRICS, ids=[metric[2] for metric in RUBRIC_METRICS])
def test_rubric_metrics(provider_servers: dict[str, FakeGemini], provider: Provider, metric: tuple[Any, ...]) -> None:
    ours_class, theirs_class, name, case_rubric = metric
    votes = [[("yes", "no", "yes"), ("yes", "yes", "missing"), ("no", "no", "yes")], [("no", "yes", "yes")] * 3]
    case, actual = rubric_case(len(votes))
    texts = {**TEXTS, case_rubric: TEXTS["r3"]}
    markers = [f"MARK-{i} " for i in range(len(votes))]
    if name == "rubric_based_multi_turn_trajectory_quality_v1":
        markers = [f"MARK-{len(votes) - 1} reply"] * len(votes)  # one prompt with the whole dialogue
    answers: dict[str, list[str]] = {}
    for marker, samples in zip(markers, votes, strict=True):
        answers.setdefault(
            marker,
            [
                rubric_answer(
                    {rid: v for rid, v in zip(("r1", "r2", case_rubric), s, strict=True) if v != "missing"}, texts
                )
                for s in samples
            ],
        )
    rubrics = [rubric("r1"), rubric("r2")]
    criterion = {"threshold": 0.5, "judge_model_options": options(provider, 3)}
    ours, theirs = both(
        provider_servers[provider.api],
        make_script=lambda: MarkerScript(answers).answer,
        metric=(ours_class, theirs_class, name),
        criteria=(
            eval_config.RubricsBasedCriterion.model_validate({**criterion, "rubrics": rubrics}),
            adk_metrics.RubricsBasedCriterion.model_validate(
                {**criterion, "rubrics": [AdkRubric.model_validate(r.model_dump()) for r in rubrics]}
            ),
        ),
        actual=actual,
        expected=case.conversation,
        case=case,
    )
    assert_same(ours, theirs, rubrics=True)
    assert ours.score is not None


def test_hallucinations(provider_servers: dict[str, FakeGemini], provider: Provider) -> None:
    segments = {"Paris is sunny. It is 22 C.": ["Paris is sunny.", "It is 22 C."], "Bye.": ["Bye."]}
    labels = {"Paris is sunny.": "supported", "It is 22 C.": "unsupported", "Bye.": "not_applicable"}
    actual = [invocation("Paris?", "Paris is sunny. It is 22 C."), invocation("Done?", "Bye.")]
    criterion = {"threshold": 0.7, "judge_model_options": options(provider, 1)}
    ours, theirs = both(
        provider_servers[provider.api],
        make_script=lambda: HallucinationScript(segments, labels).answer,
        metric=(HallucinationsV1, HallucinationsV1Evaluator, "hallucinations_v1"),
        criteria=(
            eval_config.HallucinationsCriterion.model_validate(criterion),
            adk_metrics.HallucinationsCriterion.model_validate(criterion),
        ),
        actual=actual,
        expected=None,
    )
    assert_same(ours, theirs)
    assert ours.score == pytest.approx(0.75)


def test_per_turn_user_simulator_quality(provider_servers: dict[str, FakeGemini], provider: Provider) -> None:
    votes = [["true", "false", "true"], ['"invalid"', "garbage", '"almost"'], ["true", "true", "false"]]
    scenario = ConversationScenario(starting_prompt="Plan a trip.", conversation_plan="Ask for a trip to Rome.")
    case = EvalCase(eval_id="sim", conversation_scenario=scenario)
    actual = [invocation("Plan a trip.", "Where to?")]
    actual += [invocation(f"USER-MSG-{i}", f"agent reply {i}") for i in range(1, len(votes))]
    answers = {f"USER-MSG-{i}": [sim_sample(label) for label in votes[i - 1]] for i in range(1, len(votes))}
    answers["</finished>"] = [sim_sample(label) for label in votes[-1]]
    criterion = {"threshold": 0.5, "judge_model_options": options(provider, 3)}
    ours, theirs = both(
        provider_servers[provider.api],
        make_script=lambda: MarkerScript(answers).answer,
        metric=(PerTurnUserSimulatorQuality, PerTurnUserSimulatorQualityV1, "per_turn_user_simulator_quality_v1"),
        criteria=(
            eval_config.LlmBackedUserSimulatorCriterion.model_validate(criterion),
            adk_metrics.LlmBackedUserSimulatorCriterion.model_validate(criterion),
        ),
        actual=actual,
        expected=None,
        case=case,
    )
    assert_same(ours, theirs)

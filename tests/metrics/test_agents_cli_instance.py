"""What agents-cli's metrics are given about a run, against the evaluation SDK's own code: the trace agents-cli
writes after the agent answered, the ``instance`` the SDK's CustomMetricHandler gives a ``custom_function``, and the
values of a ``prompt_template``'s placeholders (the SDK's ``_build_evaluation_instance``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adk_eval_gate.metrics.agents_cli_instance import fill, function_instance, template_values, trace_case
from adk_eval_gate.metrics.metric import NotEvaluated
from adk_eval_gate.model import platform_cases as pc
from tests.metrics.agents_cli_helpers import answered, dataset_case, run_of

PROMPT_CASE = {
    "eval_case_id": "capital",
    "prompt": {"role": "user", "parts": [{"text": "Capital of France?"}]},
    "reference": {"response": {"role": "model", "parts": [{"text": "Paris"}]}},
    "context": "France's capital is Paris.",
    "tier": {"level": "gold"},
}
CONTINUED_CASE = {
    "eval_case_id": "followup",
    "agent_data": {
        "turns": [
            {
                "turn_index": 0,
                "events": [
                    {"author": "user", "content": {"parts": [{"text": "I am in Oslo"}]}},
                    {"author": "bot", "content": {"parts": [{"text": "Noted."}]}},
                    {"author": "user", "content": {"parts": [{"text": "Weather?"}]}},
                ],
            }
        ]
    },
}
RECORDED_CASE = {
    "eval_case_id": "recorded",
    "prompt": {"role": "user", "parts": [{"text": "Hi"}]},
    "responses": [{"response": {"role": "model", "parts": [{"text": "Hello!"}]}}],
}


def _trace(data: dict[str, Any], *answers: str) -> pc.PlatformEvalCase:
    case = dataset_case(data)
    actual = [answered("q", answer) for answer in answers] or [answered("q", "Hello!", calls=0)]
    return trace_case(run_of(case, actual))


def test_a_prompt_case_gets_turn_0_with_the_agents_events_its_agents_and_its_response() -> None:
    trace = _trace(PROMPT_CASE, "It is Paris.")
    assert trace.agent_data is not None and trace.agent_data.turns is not None
    (turn,) = trace.agent_data.turns
    assert (turn.turn_index, turn.turn_id) == (0, "turn_0")
    kinds = [
        next(k for k in ("function_call", "function_response", "text") if getattr(e.content.parts[0], k))
        for e in turn.events or []
    ]  # type: ignore[union-attr,index]
    assert kinds == ["function_call", "function_response", "text"]
    agents = trace.agent_data.agents or {}
    assert agents["bot"].agent_type == "LlmAgent" and agents["bot"].instruction == "Answer well."
    assert [d.name for t in agents["bot"].tools or [] for d in t.function_declarations or []] == ["lookup"]
    assert [pc.text_of(r.response) for r in trace.responses or []] == ["It is Paris."]


def test_a_continued_case_gets_the_agents_events_after_its_last_user_message() -> None:
    trace = _trace(CONTINUED_CASE, "Sunny.")
    (turn,) = trace.agent_data.turns  # type: ignore[union-attr,misc]
    assert [e.author for e in turn.events or []] == ["user", "bot", "user", "bot", "bot", "bot"]
    assert pc.text_of((trace.responses or [])[0].response) == "Sunny."


def test_a_missing_response_is_the_sdks_error() -> None:
    case = dataset_case(PROMPT_CASE)
    silent = answered("q", "x", calls=0).model_copy(update={"final_response": None, "intermediate_data": None})
    with pytest.raises(NotEvaluated, match="No response found for candidate 0 in EvalCase capital"):
        function_instance(trace_case(run_of(case, [silent])), "capital")


@pytest.mark.slow
@pytest.mark.parametrize("data", [PROMPT_CASE, CONTINUED_CASE, RECORDED_CASE], ids=["prompt", "continued", "recorded"])
def test_a_custom_function_gets_the_instance_the_sdks_handler_gives_it(data: dict[str, Any]) -> None:
    from agentplatform import types
    from agentplatform._genai._evals_metric_handlers import CustomMetricHandler

    trace = _trace(data, "Answer.") if "responses" not in data else _trace(data)
    seen: list[dict[str, Any]] = []

    def evaluate(instance: dict[str, Any]) -> dict[str, Any]:
        seen.append(instance)
        return {"score": 1}

    handler = CustomMetricHandler(None, types.Metric(name="m", custom_function=evaluate))  # type: ignore[arg-type]
    sdk_case = types.EvalCase.model_validate(trace.model_dump(mode="json", exclude_none=True))
    assert handler.get_metric_result(sdk_case, 0).score == 1
    assert function_instance(trace, "x") == seen[0]
    json.dumps(seen[0])  # JSON, as agents-cli's functions expect


@pytest.mark.slow
def test_the_placeholders_are_the_sdks_instance_and_other_data() -> None:
    from agentplatform import types
    from agentplatform._genai._evals_metric_handlers import _build_evaluation_instance

    template = '{prompt}|{response}|{reference}|{context}|{tier}|{agent_data}|{eval_case_id} and {"score": 1}'
    trace = _trace(PROMPT_CASE, "It is Paris.")
    ours = template_values(trace, template, "capital")
    sdk_case = types.EvalCase.model_validate(trace.model_dump(mode="json", exclude_none=True))
    response = sdk_case.responses[0].response
    instance = _build_evaluation_instance(sdk_case, response, prompt_template=template)

    def texts(data: Any) -> str:
        if data.text is not None:
            return str(data.text)
        return "".join(part.text or "" for content in data.contents.contents for part in content.parts or [])

    assert ours["prompt"] == texts(instance.prompt) and ours["response"] == texts(instance.response)
    assert ours["reference"] == texts(instance.reference)
    others = instance.other_data.map_instance
    assert {name: texts(value) for name, value in others.items()} == {
        name: ours[name] for name in ("context", "tier", "eval_case_id")
    }
    agent_data = instance.agent_data.model_dump(mode="json", exclude_none=True)
    assert json.loads(ours["agent_data"]) == agent_data


def test_filling_replaces_each_placeholder_once_and_leaves_other_braces() -> None:
    template = 'Q: {prompt}\nA: {response}\nReturn JSON: {"score": <1-5>} {not a placeholder}'
    filled = fill(template, {"prompt": "what is {response}?", "response": "{prompt}"})
    assert filled == 'Q: what is {response}?\nA: {prompt}\nReturn JSON: {"score": <1-5>} {not a placeholder}'


@pytest.mark.parametrize(("placeholder", "said"), [("reference", "no value for"), ("ticket", "add it to the case")])
def test_a_placeholder_the_case_has_no_value_for_is_not_evaluated_with_its_name(placeholder: str, said: str) -> None:
    trace = _trace(RECORDED_CASE)
    with pytest.raises(NotEvaluated, match=said) as caught:
        template_values(trace, f"{{response}} {{{placeholder}}}", "recorded")
    assert f"{{{placeholder}}}" in str(caught.value)

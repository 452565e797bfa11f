"""The gate's models of the evaluation SDK's ``EvaluationDataset`` against the SDK itself (google-cloud-aiplatform's
``agentplatform.types``): the same fields, aliases and rule on unknown keys, and the same data out of the same file;
and what a case means to the gate (run, continued or recorded)."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest
from google.genai import types as genai_types

from adk_eval_gate.model import platform_cases as pc
from tests.inputs.layouts import LAYOUTS

BASIC = LAYOUTS / "agents_cli" / "tests" / "eval" / "datasets" / "basic-dataset.json"

# agents-cli's dataset_schema.md: a single-turn and a multi-agent multi-turn case, with rubric groups and extras
DOCUMENTED = {
    "eval_cases": [
        {
            "eval_case_id": "capital_of_france",
            "prompt": {"role": "user", "parts": [{"text": "What is the capital of France?"}]},
            "responses": [{"response": {"role": "model", "parts": [{"text": "The capital of France is Paris."}]}}],
            "reference": {"response": {"role": "model", "parts": [{"text": "Paris"}]}},
            "context": "France is a country in Europe.",
            "rubric_groups": {
                "booking_rubrics": {
                    "rubrics": [
                        {
                            "rubric_id": "confirmation_check",
                            "content": {"property": {"description": "The model must confirm the booking."}},
                            "importance": "HIGH",
                        }
                    ]
                }
            },
            "customer_tier": "gold",
        },
        {
            "eval_case_id": "flight_booking_via_specialist",
            "agent_data": {
                "agents": {
                    "flight_bot": {
                        "agent_id": "flight_bot",
                        "agent_type": "SpecialistAgent",
                        "instruction": "Search and book flights.",
                        "tools": [{"function_declarations": [{"name": "search_flights", "description": "Search"}]}],
                    }
                },
                "turns": [
                    {
                        "turn_index": 0,
                        "events": [
                            {"author": "user", "content": {"parts": [{"text": "Book a flight to NYC"}]}},
                            {
                                "author": "flight_bot",
                                "content": {
                                    "parts": [{"function_call": {"name": "search_flights", "args": {"to": "NYC"}}}]
                                },
                                "event_time": "2026-05-01T10:00:00Z",
                                "state_delta": {"seen": True},
                            },
                            {"author": "flight_bot", "content": {"parts": [{"text": "Found AA123."}]}},
                        ],
                    }
                ],
            },
        },
    ]
}

PAIRS = [
    ("EvaluationDataset", "EvaluationDataset"),
    ("PlatformEvalCase", "EvalCase"),
    ("AgentData", "evals.AgentData"),
    ("ConversationTurn", "evals.ConversationTurn"),
    ("AgentEvent", "evals.AgentEvent"),
    ("AgentConfig", "evals.AgentConfig"),
    ("ResponseCandidate", "ResponseCandidate"),
    ("RubricGroup", "RubricGroup"),
    ("Rubric", "evals.Rubric"),
    ("RubricContent", "evals.RubricContent"),
    ("RubricContentProperty", "evals.RubricContentProperty"),
    ("Message", "evals.Message"),
    ("Event", "evals.Event"),
    ("AgentInfo", "evals.AgentInfo"),
    ("UserScenario", "evals.UserScenario"),
]
LEFT_OUT = {"EvaluationDataset": {"eval_dataset_df"}}  # the SDK's in-memory DataFrame: never in a file


def _sdk(path: str) -> Any:
    from agentplatform import types

    found: Any = types
    for part in path.split("."):
        found = getattr(found, part)
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("ours", "theirs"), PAIRS)
def test_each_model_has_the_sdks_fields_aliases_and_rule_on_unknown_keys(ours: str, theirs: str) -> None:
    mine: type[pydantic.BaseModel] = getattr(pc, ours)
    sdk = _sdk(theirs)
    expected = {name: field.alias for name, field in sdk.model_fields.items() if name not in LEFT_OUT.get(ours, set())}
    assert {
        name: field.alias or pydantic.alias_generators.to_camel(name) for name, field in mine.model_fields.items()
    } == expected
    assert mine.model_config.get("extra") == sdk.model_config.get("extra")


@pytest.mark.slow
def test_the_importance_values_are_the_sdks() -> None:
    assert [member.value for member in pc.Importance] == [member.value for member in _sdk("evals.Importance")]


@pytest.mark.slow
@pytest.mark.parametrize(
    "data", [json.loads(BASIC.read_text(encoding="utf-8")), DOCUMENTED], ids=["scaffold", "documented"]
)
def test_a_file_gives_the_sdk_and_the_gate_the_same_data(data: dict[str, Any]) -> None:
    sdk = _sdk("EvaluationDataset").model_validate(data)
    ours = pc.EvaluationDataset.model_validate(data)
    assert ours.model_dump(mode="json", exclude_none=True) == sdk.model_dump(mode="json", exclude_none=True)
    camel = pc.EvaluationDataset.model_validate(json.loads(ours.model_dump_json(by_alias=True, exclude_none=True)))
    assert camel == ours


def test_a_prompt_runs_and_a_response_is_recorded() -> None:
    (greeting, *_) = pc.EvaluationDataset.model_validate_json(BASIC.read_text(encoding="utf-8")).eval_cases or []
    assert pc.case_shape(greeting) == "prompt"
    answered = greeting.model_copy(update={"responses": [pc.ResponseCandidate(response=greeting.prompt)]})
    assert pc.case_shape(answered) == "recorded"


def _turns(*authors: str | None) -> pc.PlatformEvalCase:
    events = [{"author": author, "content": {"parts": [{"text": f"said by {author}"}]}} for author in authors]
    return pc.PlatformEvalCase.model_validate({"agent_data": {"turns": [{"turn_index": 0, "events": events}]}})


def test_turns_that_end_with_the_user_continue_and_turns_that_go_on_are_recorded() -> None:
    assert pc.case_shape(_turns("user", "agent", "user")) == "continued"
    assert pc.case_shape(_turns("user", "agent")) == "recorded"


@pytest.mark.parametrize(
    ("case", "said"),
    [
        (pc.PlatformEvalCase(), "neither a prompt nor agent_data.turns"),
        (_turns("agent"), "no user event"),
        (
            _turns("user").model_copy(update={"prompt": genai_types.Content(parts=[genai_types.Part(text="x")])}),
            "both prompt and agent_data.turns",
        ),
    ],
)
def test_a_case_that_cannot_run_says_why_in_one_line(case: pc.PlatformEvalCase, said: str) -> None:
    shape = pc.case_shape(case)
    assert said in shape and "\n" not in shape


def test_the_conversation_so_far_is_every_event_before_the_last_user_message_and_its_state_delta() -> None:
    case = _turns("user", "agent", "user")
    last = case.agent_data.turns[0].events[-1]  # type: ignore[union-attr,index]
    last.state_delta = {"plan": "gold"}
    gate = pc.PlatformEvalCase.model_validate(case.model_dump())
    from adk_eval_gate.model.evalset import EvalCase, Invocation

    wrapped = EvalCase(
        eval_id="c",
        conversation=[Invocation(user_content=last.content)],  # type: ignore[arg-type]
        **{pc.CASE_KEY: gate.model_dump(mode="json", exclude_none=True)},
    )
    history = pc.history_of(wrapped)
    assert [event.author for event in history] == ["user", "agent", "user"]
    assert history[-1].content is None and history[-1].state_delta == {"plan": "gold"}


def test_the_final_response_is_the_last_text_joined_as_agents_cli_takes_it() -> None:
    events = [
        pc.AgentEvent(author="a", content=genai_types.Content(role="model", parts=[genai_types.Part(text="one")])),
        pc.AgentEvent(
            author="a",
            content=genai_types.Content(parts=[genai_types.Part(text="two "), genai_types.Part(text="parts")]),
        ),
        pc.AgentEvent(author="a"),
    ]
    final = pc.final_response_of(events)
    assert final is not None and final.role == "model" and pc.text_of(final) == "two parts"


@pytest.mark.slow
def test_the_text_of_a_content_is_the_sdks() -> None:
    from agentplatform._genai._evals_metric_handlers import _extract_text_from_content

    content = genai_types.Content(
        parts=[
            genai_types.Part(text="think", thought=True),
            genai_types.Part(text="a"),
            genai_types.Part(function_call=genai_types.FunctionCall(name="f", args={})),
            genai_types.Part(text="b"),
        ]
    )
    assert pc.text_of(content) == _extract_text_from_content(content) == "ab"
    assert pc.text_of(genai_types.Content(parts=[])) is _extract_text_from_content(genai_types.Content(parts=[]))

"""The compact form of a turn (model/compact.py) and results.json's compact text (model/results/json_text.py): lossless,
each thing once, and files of the earlier form still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.genai import types as genai_types
from hypothesis import given, settings
from hypothesis import strategies as st

from adk_eval_gate.model import compact
from adk_eval_gate.model.evalset import (
    EvalSet,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    dump_invocation,
)
from adk_eval_gate.model.results import (
    CaseResult,
    InvocationRecord,
    MetricResult,
    ResultsDocument,
    RunMetric,
    RunRecord,
    Totals,
    dump_json,
    parse_document,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _round_trip(invocation: dict[str, Any], user: str | None) -> None:
    table = compact.AppTable()
    turn = compact.compact(invocation, user=user, apps=table)
    assert json.loads(json.dumps(turn)) == turn  # JSON data only
    assert compact.expand(turn, user=user, apps=table.table) == invocation


def test_every_turn_of_the_fixture_eval_sets_round_trips() -> None:
    seen = 0
    for path in sorted(FIXTURES.rglob("*.evalset.json")):
        try:
            eval_set = EvalSet.model_validate_json(path.read_text(encoding="utf-8"))
        except ValueError:
            continue  # the deliberately broken ones
        for case in eval_set.eval_cases:
            for invocation in case.conversation or []:
                dumped = dump_invocation(invocation)
                _round_trip(dumped, None)
                _round_trip(dumped, "".join(part.text or "" for part in invocation.user_content.parts or []))
                seen += 1
    assert seen > 5


def _call(name: str, call_id: str | None, **args: Any) -> genai_types.Part:
    return genai_types.Part(function_call=genai_types.FunctionCall(name=name, args=args, id=call_id))


def _reply(name: str, call_id: str | None, **response: Any) -> genai_types.Part:
    return genai_types.Part(function_response=genai_types.FunctionResponse(name=name, response=response, id=call_id))


def _event(*parts: genai_types.Part, author: str = "agent", role: str | None = "model") -> InvocationEvent:
    return InvocationEvent(author=author, content=genai_types.Content(role=role, parts=list(parts)))


def test_an_answer_takes_the_id_of_the_call_it_answers_and_says_so_only_when_it_differs() -> None:
    events = [
        _event(_call("weather", "a", city="Paris"), _call("weather", "b", city="Oslo"), _call("time", None)),
        _event(_reply("weather", "b", t=3), _reply("weather", "a", t=20), _reply("time", None), role="user"),
        _event(_reply("weather", "a", t=20), author="other"),  # answered twice: the second names its id
    ]
    invocation = Invocation(
        user_content=genai_types.Content(role="user", parts=[genai_types.Part(text="hi")]),
        intermediate_data=InvocationEvents(invocation_events=events),
    )
    dumped = dump_invocation(invocation)
    turn = compact.compact(dumped, user="hi")
    answers = [part["reply"] for part in turn["events"][1]["c"]["parts"]]  # role user: the content's own form
    assert answers == [["weather", {"t": 3}, "b"], ["weather", {"t": 20}], ["time", {}, None]]
    assert [part["reply"] for part in turn["events"][2]["c"]] == [["weather", {"t": 20}, "a"]]
    assert "by" not in turn["events"][1] and turn["events"][2]["by"] == "other"
    assert compact.expand(turn, user="hi") == dumped
    assert compact.tool_calls(turn) == [("weather", {"city": "Paris"}), ("weather", {"city": "Oslo"}), ("time", {})]


_TEXT = st.text(max_size=12)
_ARGS = st.dictionaries(st.sampled_from(["city", "n", "x"]), st.one_of(st.integers(), _TEXT, st.none()), max_size=2)
_IDS = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))
_BYTES = st.binary(max_size=4)
_PARTS = st.one_of(
    st.builds(lambda text: genai_types.Part(text=text), _TEXT),
    st.builds(lambda text: genai_types.Part(text=text, thought=True), _TEXT),
    st.builds(_call, st.sampled_from(["f", "g"]), _IDS),
    st.builds(lambda name, i, args: _reply(name, i, **args), st.sampled_from(["f", "g"]), _IDS, _ARGS),
    st.builds(lambda data: genai_types.Part(inline_data=genai_types.Blob(mime_type="image/png", data=data)), _BYTES),
)
_CONTENT = st.builds(
    lambda role, parts: genai_types.Content(role=role, parts=parts),
    st.sampled_from(["model", "user", None]),
    st.one_of(st.none(), st.lists(_PARTS, max_size=4)),
)
_USAGE = st.one_of(
    st.none(),
    st.tuples(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)).map(
        lambda counts: genai_types.GenerateContentResponseUsageMetadata(
            prompt_token_count=counts[0], candidates_token_count=counts[1], total_token_count=counts[2]
        )
    ),
    st.integers(0, 99).map(lambda count: genai_types.GenerateContentResponseUsageMetadata(prompt_token_count=count)),
)
_EVENTS = st.lists(
    st.fixed_dictionaries(
        {
            "author": st.sampled_from(["agent", "helper", "user"]),
            "content": st.one_of(st.none(), _CONTENT),
            "usage_metadata": _USAGE,
            "model_version": st.one_of(st.none(), st.sampled_from(["m-1", "m-2"])),
        }
    ).map(lambda fields: InvocationEvent(**fields)),
    max_size=5,
)
_WRITTEN = st.fixed_dictionaries(
    {
        "tool_uses": st.lists(st.builds(_call, st.sampled_from(["f", "g"]), _IDS).map(lambda part: part.function_call)),
        "tool_responses": st.lists(
            st.builds(_reply, st.sampled_from(["f"]), _IDS).map(lambda part: part.function_response), max_size=2
        ),
        "intermediate_responses": st.lists(st.tuples(st.sampled_from(["a", "b"]), st.lists(_PARTS, max_size=2))),
    }
).map(lambda fields: IntermediateData(**fields))
_INVOCATIONS = st.fixed_dictionaries(
    {
        "invocation_id": st.sampled_from(["", "e-1"]),
        "user_content": _CONTENT,
        "final_response": st.one_of(st.none(), _CONTENT),
        "intermediate_data": st.one_of(
            st.none(), _EVENTS.map(lambda events: InvocationEvents(invocation_events=events))
        ),
        "creation_timestamp": st.sampled_from([0.0, 1795609299.2451344]),
        "duration": st.one_of(st.none(), st.floats(0, 9)),
        "model_duration": st.one_of(st.none(), st.floats(0, 9)),
    }
).map(lambda fields: Invocation(**fields))


@pytest.mark.slow  # 300 generated turns: seconds of CPU; the fixture eval sets' turns are the fast tier's
@settings(max_examples=300, deadline=None)
@given(invocation=_INVOCATIONS, user=st.one_of(st.none(), _TEXT))
def test_any_invocation_round_trips(invocation: Invocation, user: str | None) -> None:
    _round_trip(dump_invocation(invocation), user)


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20,
)
_KEYS = st.sampled_from(["in", "out", "events", "tools", "time", "c", "use", "call", "calls", "parts", "part"])


@pytest.mark.slow  # 300 generated turns: seconds of CPU; the fixture eval sets' turns are the fast tier's
@settings(max_examples=300, deadline=None)
@given(turn=st.one_of(_JSON, st.dictionaries(_KEYS, _JSON, max_size=5)))
def test_the_readers_never_raise_on_a_turn_from_an_untrusted_file(turn: Any) -> None:
    compact.answer_text(turn)
    compact.user_text(turn)
    compact.tool_calls(turn)
    compact.timing(turn)
    compact.usages(turn)
    compact.compact_untrusted(turn, user="x")
    compact.expanded(turn, user="x")


def _turn(text: str, answer: str) -> Invocation:
    return Invocation(
        invocation_id="e-1",
        user_content=genai_types.Content(role="user", parts=[genai_types.Part(text=text)]),
        final_response=genai_types.Content(role="model", parts=[genai_types.Part(text=answer)]),
        creation_timestamp=12.5,
    )


def _earlier_document() -> dict[str, Any]:
    """A results.json as versions before the compact form wrote it: ADK's form in every run's turns."""
    expected, actual = dump_invocation(_turn("hi", "hello")), dump_invocation(_turn("hi", "hey"))
    actual["app_details"] = {"agent_details": {"bot": {"name": "bot", "instructions": "be kind"}}}
    run = {
        "run": 1,
        "status": "passed",
        "invocations": [{"user": "hi", "expected": expected, "actual": actual}],
        "metrics": [{"name": "m", "score": 0.5, "status": "passed", "invocation_scores": [0.5]}],
    }
    case = {
        "id": "a.evalset.json::c",
        "file": "a.evalset.json",
        "eval_set_id": "s",
        "eval_id": "c",
        "status": "passed",
        "metrics": [
            {"name": "m", "score": 0.5, "threshold": 0.4, "status": "passed", "run_scores": [0.5, 0.5],
             "invocation_scores": [[0.5], [0.5]]}
        ],
        "runs": [run, {**run, "run": 2}],
    }  # fmt: skip
    return {"schema_version": 1, "status": "passed", "totals": {"cases": 1, "passed": 1}, "cases": [case]}


def test_a_results_file_of_the_earlier_form_still_reads_the_same() -> None:
    doc = parse_document(_earlier_document(), shown="old.json")
    case = doc.cases[0]
    assert len(case.expected) == 1 and case.expected[0] is not None
    for run in case.runs:
        [turn] = run.invocations
        assert turn.expected_invocation() == _turn("hi", "hello")
        actual = turn.actual_invocation()
        assert actual is not None and actual.final_response == _turn("hi", "hey").final_response
        assert actual.app_details is not None and actual.app_details.agent_details["bot"].instructions == "be kind"
        assert run.metrics[0].invocation_scores == [0.5]
    rewritten = parse_document(json.loads(dump_json(doc)), shown="new.json")
    assert rewritten == doc


def test_results_json_keeps_each_thing_once_and_reads_back_whole() -> None:
    apps = compact.AppTable()
    details = {"agent_details": {"bot": {"name": "bot", "instructions": "be kind", "tool_declarations": []}}}
    act = compact.compact(dump_invocation(_turn("hi", "hey")) | {"app_details": details}, user="hi", apps=apps)
    expected = compact.compact(dump_invocation(_turn("hi", "hello")), user="hi")
    runs = [
        RunRecord(
            run=number,
            status="passed",
            invocations=[InvocationRecord(user="hi", act=act)],
            metrics=[RunMetric(name="m", score=0.5, status="passed", invocation_scores=[0.5])],
        )
        for number in (1, 2)
    ]
    metric = MetricResult(
        name="m", score=0.5, threshold=0.4, status="passed", run_scores=[0.5, 0.5], invocation_scores=[[0.5], [0.5]]
    )
    case = CaseResult(
        id="a::c", file="a", eval_set_id="s", eval_id="c", status="passed", metrics=[metric], runs=runs,
        expected=[expected],
    )  # fmt: skip
    doc = ResultsDocument(status="passed", totals=Totals(cases=1, passed=1), cases=[case], app_details=apps.table)
    text = dump_json(doc)
    assert text.startswith('{"schema_version":1,\n"status":"passed",')  # what the supervising parent reads
    assert text.count("be kind") == 1 and text.count("hello") == 1  # app details and expected turns once
    assert text.count('"invocation_scores"') == 1  # the case's metric lists the runs' per-turn scores
    assert '"run_scores"' not in text and '"passed_runs"' not in text  # the runs' own scores and statuses
    read = parse_document(json.loads(text), shown="results.json")
    assert read == doc
    turn = read.cases[0].runs[1].invocations[0]
    assert turn.expected_invocation() == _turn("hi", "hello")
    actual = turn.actual_invocation(read.app_details)
    assert actual is not None and actual.app_details is not None

"""Hypothesis strategies: invocations with tool calls and texts in many scripts."""

from __future__ import annotations

from typing import Any

from google.genai import types
from hypothesis import strategies as st

from adk_eval_gate.model.evalset import IntermediateData, Invocation, InvocationEvent, InvocationEvents

# Argument values chosen to exercise Python-equality edge cases: 1 == 1.0 == True, None vs {}, nesting.
_SCALARS = st.one_of(
    st.sampled_from([0, 1, 2, 1.0, 0.0, 2.5, True, False, None, "1", "Paris", "paris", ""]),
    st.integers(-3, 3),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "c"]), children, max_size=2)
    ),
    max_leaves=5,
)
ARGS = st.one_of(st.none(), st.dictionaries(st.sampled_from(["city", "n", "x", "opts"]), _VALUES, max_size=3))
CALLS = st.builds(
    lambda name, args: types.FunctionCall(name=name, args=args),
    st.sampled_from(["get_weather", "lookup", "transfer_to_agent"]),
    ARGS,
)

# Text in several scripts, with punctuation, digits, combining marks, full-width forms and emoji.
_ALPHABETS = [
    "abcdefghijklmnopqrstuvwxyz ABCDEFG 0123456789 ,.;:!?'\"-_@#$%&*()[]",
    "running runs ran runner sky skies dying lying generously cats cat's",
    "東京天気晴れです日本語ひらがなカタカナー・한국어중국",
    "สวัสดีครับภาษาไทย ພາສາລາວ ភាសាខ្មែរ မြန်မာ",
    "Café naïve résumé Ünïcödé ẞ ß İstanbul Ελληνικά Кириллица",
    "ＡＢＣ１２３ ｆｕｌｌ x² y³ ½ ﬁ ﬂ ① ℌ",
    "\u0915\u093f\u0928\u093e\u0930\u0947 \u0645\u0631\u062d\u0628\u0627 😀🌧️ \u200b\t\n",
    "𠀀𠀁 \u3400\u3401 \U00010000",
]
TEXT = st.one_of(
    *(st.text(alphabet=alphabet, max_size=40) for alphabet in _ALPHABETS),
    st.lists(st.sampled_from(_ALPHABETS), max_size=3).map("".join),
)


def _content(text: str | None, role: str) -> types.Content | None:
    if text is None:
        return None
    return types.Content(role=role, parts=[types.Part(text=text)])


@st.composite
def invocation(draw: Any, *, events: bool) -> Invocation:
    calls = draw(st.lists(CALLS, max_size=4))
    if events:
        data: Any = InvocationEvents(
            invocation_events=[
                InvocationEvent(
                    author="agent", content=types.Content(role="model", parts=[types.Part(function_call=c)])
                )
                for c in calls
            ]
        )
    else:
        data = (
            draw(st.sampled_from([IntermediateData(tool_uses=calls), None]))
            if not calls
            else IntermediateData(tool_uses=calls)
        )
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text=draw(TEXT))]),
        final_response=_content(draw(st.one_of(st.none(), TEXT)), "model"),
        intermediate_data=data,
    )


@st.composite
def invocation_pairs(draw: Any) -> tuple[list[Invocation], list[Invocation]]:
    size = draw(st.integers(1, 4))
    actual = [draw(invocation(events=draw(st.booleans()))) for _ in range(size)]
    expected = [draw(invocation(events=False)) for _ in range(size)]
    return actual, expected


def _equal_variants(value: object) -> list[object]:
    """Values equal under Python ``==`` but of another type (1 == 1.0 == True)."""
    if isinstance(value, (int, float)) and value in (0, 1):
        return [int(value), float(value), bool(value)]
    return [value]


@st.composite
def related_calls(draw: Any, calls: list[types.FunctionCall]) -> list[types.FunctionCall]:
    """Expected calls derived from actual ones (same, reordered, subset, superset, args varied), so that the
    match types see matches as often as mismatches."""
    out = [c.model_copy(deep=True) for c in calls]
    operation = draw(st.sampled_from(["same", "shuffle", "drop", "add", "vary", "null_args", "random"]))
    if operation == "shuffle":
        out = draw(st.permutations(out))
    elif operation == "drop" and out:
        out.pop(draw(st.integers(0, len(out) - 1)))
    elif operation == "add":
        out.insert(draw(st.integers(0, len(out))), draw(CALLS))
    elif operation == "vary" and out:
        index = draw(st.integers(0, len(out) - 1))
        args = dict(out[index].args or {})
        for key, value in list(args.items()):
            args[key] = draw(st.sampled_from(_equal_variants(value)))
        out[index] = types.FunctionCall(name=out[index].name, args=args or draw(ARGS))
    elif operation == "null_args" and out:
        index = draw(st.integers(0, len(out) - 1))
        out[index] = types.FunctionCall(name=out[index].name, args=None if out[index].args == {} else {})
    elif operation == "random":
        out = draw(st.lists(CALLS, max_size=4))
    return list(out)


@st.composite
def trajectory_pairs(draw: Any) -> tuple[list[Invocation], list[Invocation]]:
    from adk_eval_gate.model.evalset import tool_calls

    actual, _ = draw(invocation_pairs())
    expected = []
    for inv in actual:
        calls = draw(related_calls(tool_calls(inv.intermediate_data)))
        expected.append(Invocation(user_content=inv.user_content, intermediate_data=IntermediateData(tool_uses=calls)))
    return actual, expected


@st.composite
def text_pairs(draw: Any) -> tuple[str, str]:
    reference = draw(TEXT)
    words = reference.split()
    candidate = draw(
        st.one_of(
            TEXT,
            st.permutations(words).map(" ".join),
            st.lists(st.sampled_from(words or ["x"]), max_size=8).map(" ".join),
            st.just(reference.upper()),
        )
    )
    return candidate, reference

"""What is kept of a case run's actual invocations, made once, where they were made (in a worker process for the
agents there, else in this process).

``capture`` turns the invocation objects a runner returned into what every later stage reads: the turns in the
compact form of results.json (``model/compact.py``), made safe to store and render on the way (``sanitize``:
lone surrogates replaced, values nested deeper than ``sanitize.MAX_VALUE_DEPTH`` cut, each with a note), and
each turn's ``TurnFacts`` for the usage figures. No metric is scored here: a worker process's agent code could
change what it scores, so the gate scores every metric in its own process, from the turns (``actual_invocations``).
"""

from __future__ import annotations

from typing import Any

from adk_eval_gate.metrics.efficiency import turn_facts
from adk_eval_gate.model import compact
from adk_eval_gate.model.evalset import EvalCase, Invocation, content_text, dump_invocation
from adk_eval_gate.runners.runner import Inference
from adk_eval_gate.support import sanitize


def expected_user(case: EvalCase, index: int) -> str | None:
    """The text of the expected turn's user message: what a record of the turn shows as its ``user``."""
    expected = case.conversation or []
    return content_text(expected[index].user_content) if index < len(expected) else None


def expected_turns(case: EvalCase) -> list[compact.Turn]:
    """The case's expected turns, compact (once per case, for all its runs)."""
    return [
        compact.compact(dump_invocation(invocation), user=content_text(invocation.user_content))
        for invocation in case.conversation or []
    ]


def _settled(invocation: Invocation, number: int, notes: list[str]) -> tuple[Invocation, dict[str, Any]]:
    """The invocation and its JSON form, made safe to store (pydantic cannot serialize lone surrogates or values
    nested ~250 deep); a note says what was changed."""
    try:
        data = dump_invocation(invocation)
    except ValueError:  # nested deeper than pydantic serializes as JSON: cut in Python's form first
        data = invocation.model_dump(mode="python", exclude_none=True)
    cleaned, cut = sanitize.bounded(data, max_depth=sanitize.MAX_VALUE_DEPTH + 8)
    if cleaned is data:
        return invocation, data
    if cut:
        notes.append(
            f"turn {number}: the agent's output is nested more than {sanitize.MAX_VALUE_DEPTH} levels deep and was "
            "cut there"
        )
    else:
        notes.append(f"turn {number}: text that is not valid Unicode was replaced with U+FFFD")
    kept = Invocation.model_validate(cleaned)
    return kept, dump_invocation(kept)


def capture(case: EvalCase, inference: Inference, *, apps: compact.AppTable | None = None) -> Inference:
    """Fills ``inference.turns`` and ``inference.facts`` from its invocations, settled; the app details go to
    ``apps`` (kept in the turns when None). Does nothing when the turns are already there."""
    if inference.turns is not None:
        return inference
    settled, turns = [], []
    for index, invocation in enumerate(inference.invocations):
        kept, data = _settled(invocation, index + 1, inference.notes)
        settled.append(kept)
        turns.append(compact.compact(data, user=expected_user(case, index), apps=apps))
    inference.invocations = settled
    inference.turns = turns
    inference.facts = [turn_facts(invocation) for invocation in settled]
    if inference.error is not None:
        inference.error = sanitize.clean_text(inference.error)
    return inference


def actual_invocations(case: EvalCase, inference: Inference, apps: dict[str, Any] | None = None) -> list[Invocation]:
    """The run's invocation objects: those the runner made, or made again from the compact turns (a worker
    process sent turns, and a metric of this process needs objects)."""
    if inference.invocations or not inference.turns:
        return inference.invocations
    return [
        Invocation.model_validate(compact.expand(turn, user=expected_user(case, index), apps=apps))
        for index, turn in enumerate(inference.turns)
    ]
